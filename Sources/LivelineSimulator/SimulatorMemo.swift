import Foundation
import LivelineCore
import LivelineCrypto

/// What the simulator remembers to answer repeated requests fast: the rules' results for the
/// inputs a sender repeats (the `authorization` header, the topic, the push type, the device path,
/// an ordinary notification's body), each for the last input seen, plus the provider tokens
/// already checked. It holds no rule; `SimulatorState` computes, this keeps.
///
/// Invalidation, in one place:
/// - the topic split, the device path, the push type's facts, the delivery list and the last
///   deliverable body are pure functions of their input (compared byte for byte), so they never
///   go stale; a device removed, a token rotated or a key revoked changes nothing they say,
///   because the rules look tokens, devices and keys up afresh on every request;
/// - the checked provider tokens and the authorization memo depend on the provider keys:
///   `keysChanged()` drops both whenever a key is added, so a token refused for want of its key
///   is checked again;
/// - the authorization memo is only used for the very same header; any other header (a token
///   rotated by the provider) is looked up and checked again.
///
/// Used only inside `Simulator`'s mutex, as part of `SimulatorState`.
struct SimulatorMemo: Sendable {
    /// A provider token after it was parsed and verified (or refused).
    struct CheckedToken: Sendable {
        var token: JWT
        var valid: Bool
    }

    /// An `authorization` header and what checking its token gave: the token after `bearer`, whether
    /// the JWT verified, when it was issued, and the facts of its key (`keyFound` false when no
    /// key has its `kid`). Immutable, so one instance is shared, not copied.
    final class Authorization: Sendable {
        let header: String
        let token: String
        let valid: Bool
        let issuedAt: Date
        let keyFound: Bool
        let keyID: String
        let teamID: String
        let scope: ProviderKey.Scope
        let relatedKeyID: String?
        let topics: [String]?

        init(header: String, token: String, checked: CheckedToken, key: ProviderKey?) {
            self.header = header
            self.token = token
            valid = checked.valid
            issuedAt = checked.token.issuedAt
            keyFound = key != nil
            keyID = key?.keyID ?? ""
            teamID = key?.teamID ?? ""
            scope = key?.scope ?? .both
            relatedKeyID = key?.relatedKeyID
            topics = key?.topics
        }
    }

    /// A device-push path, its token (`nil` when not under `/3/device/`), its log form and the token's scan.
    final class DevicePath: Sendable {
        let path: String
        let token: String?
        let redacted: String
        let scan: ASCII.TokenScan

        init(path: String, token: String?, redacted: String, scan: ASCII.TokenScan) {
            self.path = path
            self.token = token
            self.redacted = redacted
            self.scan = scan
        }
    }

    /// A push type's rules as LivelineCore states them, looked up once and kept.
    /// Immutable, so the kept instance is shared rather than copied.
    final class PushTypeFacts: Sendable {
        let type: PushType
        /// One of `PushType.all`.
        let known: Bool
        let topicSuffix: String?
        /// Bit `n` set when priority `n` is allowed.
        let priorityMask: UInt32
        let maxPayloadBytes: Int
        /// The delivery detail logged for an ordinary notification of this type.
        let deliveredDetail: String

        init(_ type: PushType) {
            self.type = type
            known = PushType.all.contains(type)
            topicSuffix = type.topicSuffix
            priorityMask = type.allowedPriorities.reduce(0) { $0 | (1 << UInt32($1.rawValue)) }
            maxPayloadBytes = type.maxPayloadBytes
            deliveredDetail = "\(type) notification delivered"
        }

        func allows(priority: Int) -> Bool { priority >= 0 && priority < 32 && priorityMask & (1 << UInt32(priority)) != 0 }
    }

    /// Provider tokens already checked, at most `capacity` (oldest dropped first).
    private(set) var checkedTokens: BoundedCache<String, CheckedToken>
    private var lastAuthorization: Authorization?
    private var lastTopic: (topic: String, bundleID: String, suffix: String)?
    private var lastPushType: PushTypeFacts?
    private var lastDevicePath: DevicePath?
    private var lastDeviceDeliveries: [PushRecord.Delivery] = []
    private var lastDeliverableBody: [UInt8]?

    /// An empty memo keeping at most `checkedTokenCapacity` checked provider tokens.
    init(checkedTokenCapacity: Int) {
        checkedTokens = BoundedCache(capacity: checkedTokenCapacity)
    }

    // MARK: Invalidation

    /// The provider keys changed: every checked token and the authorization memo are forgotten.
    mutating func keysChanged() {
        checkedTokens.removeAll()
        lastAuthorization = nil
    }

    // MARK: Authorization

    /// What the last check of exactly this `authorization` header gave, if it was the last one.
    func authorization(for header: String) -> Authorization? {
        guard let last = lastAuthorization, ASCII.sameBytes(last.header, header) else { return nil }
        return last
    }

    /// Keeps `authorization` as the answer for its header.
    mutating func remember(_ authorization: Authorization) {
        lastAuthorization = authorization
    }

    /// The check of `token` made earlier, if still kept.
    func checkedToken(_ token: String) -> CheckedToken? { checkedTokens[token] }

    /// Keeps the check of `token`.
    mutating func remember(_ checked: CheckedToken, for token: String) {
        checkedTokens.insert(checked, for: token)
    }

    // MARK: Pure functions of one input

    /// `split(topic)`, or the split kept for the same topic.
    mutating func splitTopic(_ topic: String, by split: (String) -> (bundleID: String, suffix: String)) -> (bundleID: String, suffix: String) {
        if let last = lastTopic, ASCII.sameBytes(last.topic, topic) { return (last.bundleID, last.suffix) }
        let result = split(topic)
        lastTopic = (topic, result.bundleID, result.suffix)
        return result
    }

    /// The facts for `type`, the instance kept when it is the type seen last.
    mutating func facts(for type: PushType) -> PushTypeFacts {
        if let last = lastPushType, ASCII.sameBytes(last.type.rawValue, type.rawValue) { return last }
        let facts = PushTypeFacts(type)
        lastPushType = facts
        return facts
    }

    /// `parse(path)`, or the result kept for the same path.
    mutating func devicePath(_ path: String, by parse: (String) -> DevicePath) -> DevicePath {
        if let last = lastDevicePath, ASCII.sameBytes(last.path, path) { return last }
        let parsed = parse(path)
        lastDevicePath = parsed
        return parsed
    }

    /// `[Delivery(deviceID:activityID: nil, dropReason: nil, detail:)]`, the same array as last time when
    /// it would hold the same bytes (one array shared by log entries).
    mutating func deviceDeliveries(deviceID: String, detail: String) -> [PushRecord.Delivery] {
        if let last = lastDeviceDeliveries.first, lastDeviceDeliveries.count == 1,
            ASCII.sameBytes(last.deviceID, deviceID), ASCII.sameBytes(last.detail, detail)
        {
            return lastDeviceDeliveries
        }
        lastDeviceDeliveries = [PushRecord.Delivery(deviceID: deviceID, activityID: nil, dropReason: nil, detail: detail)]
        return lastDeviceDeliveries
    }

    /// Whether `body` is the ordinary notification body last found deliverable.
    func isDeliverable(_ body: [UInt8]) -> Bool { lastDeliverableBody == body }

    /// Keeps `body` as found deliverable.
    mutating func rememberDeliverable(_ body: [UInt8]) {
        lastDeliverableBody = body
    }
}

import Foundation
import LivelineCore
import LivelineStore
import Synchronization

/// What one renewal pass did (`Service.renewActivities`).
public struct RenewalPass: Sendable, Hashable {
    /// Successors push-started, confirmed (the predecessor's end queued), given up, not renewable, waiting for the budget.
    public var started = 0, confirmed = 0, unconfirmed = 0, skipped = 0, waiting = 0
    public init() {}
}

/// Renewal past 8 hours: ActivityKit ends a Live Activity 8 hours after its start. An activity whose
/// start said `"renew": true` gets, `renewalMargin` before that, a successor on each device: a
/// push-to-start with the same attributes and the current content. The logical id moves to it, and
/// the predecessor is ended (current content, dismissed at once) only when the successor is confirmed
/// by its update token or a receipt. Nothing is ended on a device whose successor never confirms;
/// its renewal says why (migration 14-activity-renewal).
extension Service {
    /// Reason codes of a device's renewal.
    enum RenewalReason {
        static let iosTooOld = "ios-too-old"
        static let noPushToStartToken = "no-push-to-start-token"
        static let followsChannel = "follows-channel"
        static let startBudget = "start-budget-exceeded"
        static let unconfirmed = "successor-unconfirmed"
        static let noStart = "no-start-known"
    }

    /// The start's `renew`: recorded for a new run (a run without it keeps no renewal), changed on a
    /// running activity only when the start says so. Generations keep counting across runs.
    func recordRenewalChoice(_ renew: Bool?, activityID: String, newRun: Bool, _ tx: any StoreTransaction, now: Date) throws {
        let existing = try tx.activityRenewal(activityID: activityID)
        if newRun {
            guard renew == true || existing != nil else { return }
            try tx.setActivityRenewal(ActivityRenewalRecord(activityID: activityID, enabled: renew ?? false, generation: (existing?.generation ?? 0) + 1, updatedAt: now))
        } else if let renew, renew != (existing?.enabled ?? false) {
            try tx.setActivityRenewal(ActivityRenewalRecord(activityID: activityID, enabled: renew, generation: existing?.generation ?? 1, updatedAt: now))
        }
    }

    /// One pass over the activities that opted in: successors due are push-started, pending ones
    /// confirmed or given up. The renewer runs it on a timer; a test runs it after moving its clock.
    @discardableResult
    public func renewActivities() async -> RenewalPass {
        let now = configuration.clock()
        var pass = RenewalPass()
        let lead = Self.activityLifetime - configuration.renewalMargin.seconds
        let ids: [String]
        do { ids = try store.write { try $0.renewalCandidates(startedAfter: now.addingTimeInterval(-Self.activityLifetime), startedBefore: now.addingTimeInterval(-lead), now: now, limit: 200) } } catch {
            log("renewal: cannot list the activities due: \(error)")
            return pass
        }
        for id in ids {
            do { try store.write { tx in try renew(id, tx, now: now, &pass) } } catch { log("renewal: activity \(id): \(error)") }
        }
        if pass.started + pass.confirmed > 0 { dispatcher.wake() }
        return pass
    }

    /// What a successor is made of: the newest start (attributes, alert) and the newest content sent.
    private struct RenewalContent {
        var start: LiveActivityPush
        var state: JSONObject?
        var staleDate: Date?
        /// The send that carried `state`.
        var stateSendID: Int64?
    }

    private static func renewalContent(_ activityID: String, _ tx: any StoreTransaction) throws -> RenewalContent? {
        var seen = Set<Int64>()
        var state: JSONObject?
        var stale: Date?
        var sentBy: Int64?
        var found = false
        for row in try tx.deliveries(activityID: activityID, limit: 2000) where seen.insert(row.sendID).inserted {  // newest first
            guard let send = try tx.send(row.sendID), let json = try? JSONValue.parse(send.body), let push = try? LiveActivityPush(body: json) else { continue }
            if !found, push.event != .end, let s = push.contentState { state = s; stale = push.staleDate; sentBy = send.id; found = true }
            if push.event == .start { return RenewalContent(start: push, state: state, staleDate: stale, stateSendID: sentBy) }
        }
        return nil
    }

    private func renew(_ activityID: String, _ tx: any StoreTransaction, now: Date, _ pass: inout RenewalPass) throws {
        try tx.lockActivity(activityID)
        guard var activity = try tx.activity(activityID), var renewal = try tx.activityRenewal(activityID: activityID), renewal.enabled else { return }
        let before = (activity, renewal)
        let rows = try tx.deviceRenewals(activityID: activityID)
        let content = try Self.renewalContent(activityID, tx)

        // Successors sent: confirmed by their update token or a receipt, or given up at the predecessor's 8 hours.
        for var row in rows where row.state == .pending || row.state == .waiting {
            if row.state == .waiting {
                // Still waiting for the budget when the predecessor's 8 hours are over: no successor any more.
                guard now >= row.predecessorStartedAt.addingTimeInterval(Self.activityLifetime) else { continue }
                row.state = .skipped
                row.reason = "\(row.reason ?? ""); the budget did not allow a successor before ActivityKit ended the predecessor"
                pass.skipped += 1
            } else if let by = try confirmation(row, tx) {
                if row.generation > renewal.generation {  // the first device to confirm moves the logical activity
                    renewal.generation = row.generation
                    activity.startedAt = row.requestedAt
                }
                row.endSendID = try endPredecessor(row, &activity, content, tx, now: now)
                if by == "update-token" { try catchUp(row, &activity, content, tx, now: now) }
                row.state = .confirmed
                row.confirmedAt = now
                row.confirmedBy = by
                row.reasonCode = nil
                row.reason = nil
                pass.confirmed += 1
            } else if now >= row.predecessorStartedAt.addingTimeInterval(Self.activityLifetime) {
                let start = try row.sendID.flatMap { id in try tx.deliveries(activityID: activityID, deviceID: row.deviceID, limit: 50).first { $0.sendID == id } }
                let verdict = start.map { d in d.state == .failed ? "APNs refused its push-to-start (\([d.status.map(String.init), d.reason].compactMap { $0 }.joined(separator: " ")))" : "APNs answered \(d.state.rawValue) for its push-to-start" } ?? "its push-to-start is unknown"
                row.state = .unconfirmed
                row.reasonCode = RenewalReason.unconfirmed
                row.reason = "the successor of generation \(row.generation) sent at \(ISODate.string(row.requestedAt)) never confirmed (no new update token, no receipt) before the predecessor's 8 hours ended at \(ISODate.string(row.predecessorStartedAt.addingTimeInterval(Self.activityLifetime))); \(verdict). The service did not end the predecessor: ActivityKit did"
                pass.unconfirmed += 1
            } else {
                continue
            }
            row.updatedAt = now
            try tx.upsertDeviceRenewal(row)
        }

        // Successors due: `renewalMargin` before ActivityKit's 8 hours, while the activity runs.
        let generation = renewal.generation + 1
        let endsAt = activity.startedAt.addingTimeInterval(Self.activityLifetime)
        let due = endsAt.addingTimeInterval(-configuration.renewalMargin.seconds)
        if now >= due, now < endsAt, activity.endedAt.map({ $0 > now }) ?? true {
            try startSuccessors(activity, generation: generation, rows: rows, content: content, endsAt: endsAt, tx, now: now, &pass)
        }
        if activity != before.0 { try tx.upsertActivity(activity) }
        if renewal != before.1 { renewal.updatedAt = now; try tx.setActivityRenewal(renewal) }
    }

    /// The devices that hold the running generation: those with an update token or a push-to-start of
    /// it (not refused), less those whose successor of it never confirmed (their activity ended).
    private func holders(_ activity: ActivityRecord, generation running: Int, rows: [DeviceRenewalRecord], _ tx: any StoreTransaction) throws -> [String] {
        var ids = Set(try tx.activityTokens(activityID: activity.activityID).map(\.deviceID))
        for d in try tx.deliveries(activityID: activity.activityID, limit: 2000)
        where d.event == "start" && d.target == .pushToStart && d.state != .failed && d.updatedAt >= activity.startedAt {
            if let id = d.deviceID { ids.insert(id) }
        }
        if running > 1 {
            for r in rows where r.generation == running && r.state != .confirmed { ids.remove(r.deviceID) }
        }
        return ids.sorted()
    }

    private func startSuccessors(_ activity: ActivityRecord, generation: Int, rows: [DeviceRenewalRecord], content: RenewalContent?, endsAt: Date,
                                 _ tx: any StoreTransaction, now: Date, _ pass: inout RenewalPass) throws {
        let done = Dictionary(rows.filter { $0.generation == generation }.map { ($0.deviceID, $0) }, uniquingKeysWith: { a, _ in a })
        let windowStart = now.addingTimeInterval(-configuration.startBudgetWindow.seconds)
        var group: [(row: DeviceRenewalRecord, token: TokenRecord)] = []
        for deviceID in try holders(activity, generation: generation - 1, rows: rows, tx) {
            if let r = done[deviceID], r.state != .waiting { continue }
            let predecessor = try tx.activityToken(activityID: activity.activityID, deviceID: deviceID)
            var row = DeviceRenewalRecord(activityID: activity.activityID, deviceID: deviceID, generation: generation, state: .skipped, requestedAt: now,
                                          predecessorToken: predecessor?.token, predecessorEnvironment: predecessor?.environment,
                                          predecessorStartedAt: activity.startedAt, updatedAt: now)
            let device = try tx.device(deviceID)
            let version = device.flatMap { OSVersionNumber($0.iosVersion) }
            let ends = "ActivityKit ends its activity at \(ISODate.string(endsAt))"
            if content == nil {
                row.reasonCode = RenewalReason.noStart
                row.reason = "the service sent no start of activity \(activity.activityID), so it does not know the attributes a successor needs; \(ends)"
            } else if version.map({ $0 < OSVersionNumber(17, 2) }) ?? true {
                row.reasonCode = RenewalReason.iosTooOld
                row.reason = "iOS \(device?.iosVersion ?? "unknown") cannot be started by push (push-to-start needs 17.2), so no successor can be started; \(ends)"
            } else if activity.channelID != nil, let version, version >= OSVersionNumber(18, 0) {
                row.reasonCode = RenewalReason.followsChannel
                row.reason = "the device follows the activity's channel: a successor on it could not be told apart from the predecessor when the predecessor is ended, so the service does not renew it (start with \"channel\": \"none\" to renew on update tokens); \(ends)"
            } else if let token = try tx.pushToStartToken(deviceID: deviceID, attributesType: activity.attributesType),
                      TokenHygiene.unusableForStart(token, now: now, maxUnseen: configuration.pushToStartTokenMaxUnseen) == nil {
                let used = try tx.startCount(deviceID: deviceID, since: windowStart)
                if used < configuration.startBudget {
                    group.append((row, token))
                    continue
                }
                row.state = .waiting
                row.reasonCode = RenewalReason.startBudget
                row.reason = "the device had \(used) of \(configuration.startBudget) push-to-starts in the last \(Int(configuration.startBudgetWindow.seconds / 60)) minutes: iOS would drop the successor, so it waits for the budget (\(ends))"
            } else {
                let why = try tx.pushToStartToken(deviceID: deviceID, attributesType: activity.attributesType)
                    .flatMap { TokenHygiene.unusableForStart($0, now: now, maxUnseen: configuration.pushToStartTokenMaxUnseen) }
                row.reasonCode = RenewalReason.noPushToStartToken
                row.reason = "the device has no usable push-to-start token for \(activity.attributesType)\(why.map { " (\($0))" } ?? ""), so no successor can be started; \(ends)"
            }
            if row.state == .waiting { pass.waiting += 1 } else { pass.skipped += 1 }
            if let old = done[deviceID], old.reasonCode == row.reasonCode, old.state == row.state { continue }  // said already
            try tx.upsertDeviceRenewal(row)
        }
        guard !group.isEmpty, let content else { return }
        var push = content.start
        push.timestamp = now
        push.contentState = content.state ?? push.contentState
        push.staleDate = content.staleDate.flatMap { $0 > now ? $0 : nil }
        push.startInput = .pushToken
        let bytes: [UInt8]
        do { bytes = try PushRequest.liveActivity(push, bundleID: activity.bundleID).validate(for: .device) } catch {
            log("renewal: the successor of \(activity.activityID) is not a valid push: \(error.message)")
            return
        }
        let note = "renewal: generation \(generation), before ActivityKit ends generation \(generation - 1) at \(ISODate.string(endsAt))"
        let deliveries = group.map { NewDelivery(deviceID: $0.row.deviceID, target: .pushToStart, token: $0.token.token, priority: 10, note: note, notBefore: now, environment: $0.token.environment) }
        let sendID = try tx.insertSend(SendRecord(activityID: activity.activityID, event: "start", bundleID: activity.bundleID, body: bytes, createdAt: now), deliveries: deliveries, now: now).id
        for var (row, _) in group {
            row.state = .pending
            row.sendID = sendID
            try tx.upsertDeviceRenewal(row)
            pass.started += 1
        }
    }

    /// How the successor was confirmed: a new update token registered since it was sent, or a receipt for its start.
    private func confirmation(_ row: DeviceRenewalRecord, _ tx: any StoreTransaction) throws -> String? {
        if let token = try tx.activityToken(activityID: row.activityID, deviceID: row.deviceID), token.token != row.predecessorToken, token.registeredAt >= row.requestedAt {
            return "update-token"
        }
        if let sendID = row.sendID, try tx.deliveries(activityID: row.activityID, deviceID: row.deviceID, limit: 50).contains(where: { $0.sendID == sendID && $0.displayedAt != nil }) {
            return "receipt"
        }
        return nil
    }

    /// Ends the predecessor by its own update token: the current content, dismissed at once (the
    /// successor shows the same). Sent with no device id, so the device's status describes the successor.
    private func endPredecessor(_ row: DeviceRenewalRecord, _ activity: inout ActivityRecord, _ content: RenewalContent?, _ tx: any StoreTransaction, now: Date) throws -> Int64? {
        guard let old = row.predecessorToken else { return nil }  // nothing reaches it: ActivityKit ends it at its 8 hours
        let timestamp = Self.nextTimestamp(activity, now: now)
        let push = LiveActivityPush(event: .end, timestamp: timestamp, contentState: content?.state, dismissal: .immediate)
        let bytes: [UInt8]
        do { bytes = try PushRequest.liveActivity(push, bundleID: activity.bundleID).validate(for: .device) } catch {
            log("renewal: the end of \(activity.activityID)'s predecessor on \(row.deviceID) is not a valid push: \(error.message)")
            return nil
        }
        let note = "renewal: ends \(row.deviceID)'s activity of generation \(row.generation - 1), replaced by generation \(row.generation)"
        let id = try tx.insertSend(SendRecord(activityID: activity.activityID, event: "end", bundleID: activity.bundleID, body: bytes, createdAt: now),
                                   deliveries: [NewDelivery(deviceID: nil, target: .token, token: old, priority: 10, note: note, notBefore: now, environment: row.predecessorEnvironment)],
                                   now: now).id
        activity.lastTimestamp = timestamp
        return id
    }

    /// Newer than every push the activity's devices saw.
    private static func nextTimestamp(_ activity: ActivityRecord, now: Date) -> Date {
        if let last = activity.lastTimestamp, ReferenceDate.unixSeconds(now) <= ReferenceDate.unixSeconds(last) { return last.addingTimeInterval(1) }
        return now
    }

    /// An update sent while the successor waited for confirmation went to the predecessor's token:
    /// the successor gets the current content now, by its own token.
    private func catchUp(_ row: DeviceRenewalRecord, _ activity: inout ActivityRecord, _ content: RenewalContent?, _ tx: any StoreTransaction, now: Date) throws {
        guard let content, let state = content.state, let carried = content.stateSendID, let successor = row.sendID, carried > successor,
              let token = try tx.activityToken(activityID: row.activityID, deviceID: row.deviceID), token.refusedAt == nil else { return }
        let timestamp = Self.nextTimestamp(activity, now: now)
        let push = LiveActivityPush(event: .update, timestamp: timestamp, contentState: state, staleDate: content.staleDate.flatMap { $0 > now ? $0 : nil })
        guard let bytes = try? PushRequest.liveActivity(push, bundleID: activity.bundleID).validate(for: .device) else { return }
        let note = "renewal: the content sent to generation \(row.generation - 1) while generation \(row.generation) waited for confirmation"
        _ = try tx.insertSend(SendRecord(activityID: activity.activityID, event: "update", bundleID: activity.bundleID, body: bytes, createdAt: now),
                              deliveries: [NewDelivery(deviceID: row.deviceID, target: .token, token: token.token, priority: 5, note: note, notBefore: now, environment: token.environment)],
                              now: now)
        activity.lastTimestamp = timestamp
    }

    // MARK: The status

    /// `renewal` in `GET /v1/activities/{id}`, and each device's newest renewal in its `devices` entry.
    func withRenewal(_ overview: JSONValue, activityID: String, _ tx: any StoreTransaction) throws -> JSONValue {
        guard let renewal = try tx.activityRenewal(activityID: activityID), case .object(var o) = overview else { return overview }
        let rows = try tx.deviceRenewals(activityID: activityID)
        var r: JSONObject = ["enabled": .bool(renewal.enabled), "generation": .number(Double(renewal.generation)),
                             "marginSeconds": .number(configuration.renewalMargin.seconds)]
        if renewal.enabled, let a = try tx.activity(activityID) {
            r["renewsAt"] = .string(ISODate.string(a.startedAt.addingTimeInterval(Self.activityLifetime - configuration.renewalMargin.seconds)))
        }
        r["devices"] = .array(rows.suffix(400).map(Self.json))
        o["renewal"] = .object(r)
        if case .array(var devices)? = o["devices"] {
            let newest = Dictionary(rows.map { ($0.deviceID, $0) }, uniquingKeysWith: { a, b in a.generation >= b.generation ? a : b })
            for i in devices.indices {
                guard case .object(var d) = devices[i], let id = d["deviceID"]?.stringValue, let row = newest[id] else { continue }
                d["renewal"] = Self.json(row)
                devices[i] = .object(d)
            }
            o["devices"] = .array(devices)
        }
        return .object(o)
    }

    static func json(_ row: DeviceRenewalRecord) -> JSONValue {
        var o: JSONObject = ["deviceID": .string(row.deviceID), "generation": .number(Double(row.generation)), "state": .string(row.state.rawValue),
                             "requestedAt": .string(ISODate.string(row.requestedAt))]
        if let id = row.sendID { o["successor"] = ["sendID": .number(Double(id))] }
        if let at = row.confirmedAt, case .object(var s)? = o["successor"] {
            s["confirmedAt"] = .string(ISODate.string(at))
            if let by = row.confirmedBy { s["confirmedBy"] = .string(by) }
            o["successor"] = .object(s)
        }
        if let t = row.predecessorToken { o["predecessor"] = ["token": .string(prefix(t)), "startedAt": .string(ISODate.string(row.predecessorStartedAt))] }
        if let id = row.endSendID, case .object(var p)? = o["predecessor"] { p["endSendID"] = .number(Double(id)); o["predecessor"] = .object(p) }
        if let code = row.reasonCode { o["reason"] = ["code": .string(code), "message": .string(row.reason ?? "")] }
        return .object(o)
    }
}

/// The loop that runs `renewActivities` (every 30 s, or a tenth of the margin when that is shorter).
final class ActivityRenewer: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func start(_ service: Service) {
        let every = min(30, max(1, service.configuration.renewalMargin.seconds / 10))
        let t = Task { [weak service] in
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: .milliseconds(Int64(every * 1000)))) != nil, let service else { return }
                await service.renewActivities()
            }
        }
        task.withLock { $0 = t }
    }

    func stop() async {
        let t = task.withLock { t in defer { t = nil }; return t }
        t?.cancel()
        await t?.value
    }
}

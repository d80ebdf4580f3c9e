import Foundation
import LivelineCore

/// Why a device dropped a push that APNs accepted: the "APNs said 200, nothing changed" failures.
public struct DropReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// `content-state` or `attributes` did not decode into the registered type.
    public static let decodingFailed = DropReason(rawValue: "decoding-failed")
    /// `timestamp` not newer than the content shown.
    public static let staleTimestamp = DropReason(rawValue: "older-timestamp")
    /// No `timestamp` in `aps`.
    public static let missingTimestamp = DropReason(rawValue: "missing-timestamp")
    /// The activity has ended: later pushes are ignored.
    public static let activityEnded = DropReason(rawValue: "activity-ended")
    /// A push-to-start without `alert`.
    public static let missingAlert = DropReason(rawValue: "start-missing-alert")
    /// `attributes-type` names no type the app registered.
    public static let unknownAttributesType = DropReason(rawValue: "unknown-attributes-type")
    /// The body is not JSON or not a JSON object (the detail is the parse error), `aps` is not an
    /// object, or a required field (`attributes`, `content-state`, `event`) is missing or has the
    /// wrong JSON type.
    public static let malformedPayload = DropReason(rawValue: "malformed-payload")
    /// The wrong event for the token (e.g. `update` to a push-to-start token).
    public static let wrongEvent = DropReason(rawValue: "wrong-event-for-token")
    /// The device's iOS lacks the feature (push-to-start < 17.2, channels < 18).
    public static let unsupportedOS = DropReason(rawValue: "unsupported-ios")
    /// Priority-10 update budget exhausted for this hour.
    public static let overBudget = DropReason(rawValue: "over-budget")
    /// Push-to-start budget of the app on the device exhausted.
    public static let pushToStartBudget = DropReason(rawValue: "push-to-start-budget")
    /// The app already has the most concurrent activities allowed (`targetMaximumExceeded`).
    public static let targetMaximumExceeded = DropReason(rawValue: "target-maximum-exceeded")
    /// Attributes plus content state above the device limit (`attributesTooLarge`).
    public static let attributesTooLarge = DropReason(rawValue: "attributes-too-large")
    /// `input-push-channel` names a channel that does not exist.
    public static let unknownChannel = DropReason(rawValue: "unknown-channel")
}

/// One push the simulator received and what became of it.
public struct PushRecord: Sendable, Hashable {
    /// What APNs and the device did with it.
    public enum Verdict: Sendable, Hashable {
        /// APNs accepted it and at least one device applied it (or it was a management request that succeeded).
        case accepted
        /// APNs rejected it with this reason.
        case rejected(APNSReason)
        /// APNs answered 200 but every device that got it dropped it; the first reason and its detail.
        case dropped(DropReason, String)
    }

    /// What one device did with an accepted push.
    public struct Delivery: Sendable, Hashable {
        /// The device that received it.
        public var deviceID: String
        /// The activity it was for, if any.
        public var activityID: String?
        /// `nil` when applied.
        public var dropReason: DropReason?
        /// What was applied, or why it was dropped (with the decoding error when that is the cause).
        public var detail: String
    }

    /// Position in the log, from 1.
    public var sequence: Int
    /// When it arrived (simulator clock).
    public var time: Date
    /// `device`, `broadcast` or `channels`.
    public var kind: String
    /// The HTTP method.
    public var method: String
    /// The path with any device token cut to an 8-character prefix.
    public var path: String
    /// The app, once known from the topic or path.
    public var bundleID: String?
    /// `apns-push-type` (or the one inferred from the topic).
    public var pushType: String?
    /// `apns-priority` (10 when absent).
    public var priority: Int?
    /// `start`, `update` or `end` for Live Activity pushes.
    public var event: String?
    /// The broadcast channel, for broadcasts and channel management.
    public var channelID: String?
    /// The HTTP status answered.
    public var status: Int
    /// `apns-id` (or `apns-request-id`) answered.
    public var apnsID: String
    /// Accepted, rejected (reason) or dropped on the device (why).
    public var verdict: Verdict
    /// What each device did with it.
    public var deliveries: [Delivery]
    /// The `apns-` headers as sent, in order, duplicates kept, each value cut to `headerValueLimit`
    /// characters and at most `headerLimit` of them (`authorization` is never kept: it holds a JWT).
    public var headers: [SimulatorRequest.Header] = []
    /// The body as sent, cut to `payloadLimit` bytes (the largest payload APNs takes).
    public var payload: [UInt8] = []
    /// The body's whole size in bytes (more than `payload.count` when it was cut).
    public var payloadBytes: Int = 0
}

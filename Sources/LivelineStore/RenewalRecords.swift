import Foundation
import LivelineSQL

/// A logical activity's renewal past ActivityKit's 8 hours (migration `14-activity-renewal`): whether
/// its start opted in, and which generation runs now (1: the first start; each confirmed renewal adds one).
public struct ActivityRenewalRecord: Sendable, Hashable {
    public var activityID: String
    public var enabled: Bool
    public var generation: Int
    public var updatedAt: Date
    public init(activityID: String, enabled: Bool, generation: Int, updatedAt: Date) {
        self.activityID = activityID
        self.enabled = enabled
        self.generation = generation
        self.updatedAt = updatedAt
    }
}

/// One device's successor of one generation: the push-to-start the service sent (or why it sent
/// none), the predecessor it replaces, and how the successor was confirmed.
public struct DeviceRenewalRecord: Sendable, Hashable {
    /// `waiting` (not sent yet: the push-to-start budget), `pending` (sent, not confirmed), `confirmed`
    /// (its update token or a receipt came; the predecessor's end is queued), `unconfirmed` (nothing
    /// came before the predecessor's 8 hours), `skipped` (it cannot be renewed: `reasonCode` says why).
    public enum State: String, Sendable, Hashable {
        case waiting, pending, confirmed, unconfirmed, skipped
    }

    public var activityID: String
    public var deviceID: String
    /// The successor's generation.
    public var generation: Int
    public var state: State
    public var requestedAt: Date
    /// The successor's push-to-start send.
    public var sendID: Int64?
    /// The predecessor's update token (nil: it had none), and when the predecessor started.
    public var predecessorToken: String?
    /// The predecessor token's APNs environment (nil: the app's default).
    public var predecessorEnvironment: String?
    public var predecessorStartedAt: Date
    public var confirmedAt: Date?
    /// `update-token` or `receipt`.
    public var confirmedBy: String?
    /// The send that ends the predecessor.
    public var endSendID: Int64?
    public var reasonCode: String?
    public var reason: String?
    public var updatedAt: Date

    public init(activityID: String, deviceID: String, generation: Int, state: State, requestedAt: Date, sendID: Int64? = nil,
                predecessorToken: String? = nil, predecessorEnvironment: String? = nil, predecessorStartedAt: Date, confirmedAt: Date? = nil, confirmedBy: String? = nil,
                endSendID: Int64? = nil, reasonCode: String? = nil, reason: String? = nil, updatedAt: Date) {
        self.activityID = activityID
        self.deviceID = deviceID
        self.generation = generation
        self.state = state
        self.requestedAt = requestedAt
        self.sendID = sendID
        self.predecessorToken = predecessorToken
        self.predecessorEnvironment = predecessorEnvironment
        self.predecessorStartedAt = predecessorStartedAt
        self.confirmedAt = confirmedAt
        self.confirmedBy = confirmedBy
        self.endSendID = endSendID
        self.reasonCode = reasonCode
        self.reason = reason
        self.updatedAt = updatedAt
    }
}

extension RecordDecoding {
    func activityRenewalRecord(_ row: SQLRow) -> ActivityRenewalRecord {
        ActivityRenewalRecord(activityID: row.string("activity_id") ?? "", enabled: row.int("enabled") == 1,
                              generation: row.int("generation") ?? 1, updatedAt: date(row, "updated_at"))
    }

    func deviceRenewalRecord(_ row: SQLRow) -> DeviceRenewalRecord {
        DeviceRenewalRecord(
            activityID: row.string("activity_id") ?? "", deviceID: row.string("device_id") ?? "", generation: row.int("generation") ?? 0,
            state: DeviceRenewalRecord.State(rawValue: row.string("state") ?? "") ?? .skipped, requestedAt: date(row, "requested_at"),
            sendID: row.int64("send_id"), predecessorToken: row.string("predecessor_token"),
            predecessorEnvironment: row.string("predecessor_environment"), predecessorStartedAt: date(row, "predecessor_started_at"),
            confirmedAt: row.double("confirmed_at").map(Date.init(timeIntervalSince1970:)), confirmedBy: row.string("confirmed_by"),
            endSendID: row.int64("end_send_id"), reasonCode: row.string("reason_code"), reason: row.string("reason"), updatedAt: date(row, "updated_at"))
    }
}

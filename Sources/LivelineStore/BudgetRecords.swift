import Foundation

/// What a push did to one device's budget when no outbox row of its own says so: a broadcast
/// (one channel row reaching every device that holds an activity on the channel) spent each
/// device's priority-10 budget, or went out lowered to priority 5; an update to a token lowered
/// to priority 5 (migration 8-budget-ledger).
public struct BudgetCharge: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// A priority-10 push that counts against the hourly budget.
        case immediate
        /// A push asked for at priority 10 that went out at 5, and why (`note`).
        case lowered
    }
    public enum Via: String, Sendable, Hashable {
        case token
        case channel
    }
    public var sendID: Int64
    /// The activity the device holds (a broadcast reaches every activity on its channel).
    public var activityID: String
    public var deviceID: String
    public var kind: Kind
    public var via: Via
    public var note: String?
    public var createdAt: Date
    public init(sendID: Int64, activityID: String, deviceID: String, kind: Kind, via: Via, note: String? = nil, createdAt: Date) {
        self.sendID = sendID
        self.activityID = activityID
        self.deviceID = deviceID
        self.kind = kind
        self.via = via
        self.note = note
        self.createdAt = createdAt
    }
}

/// A device holding an activity that follows a broadcast channel: it has an update token for it,
/// or the service push-started it there.
public struct ChannelHolder: Sendable, Hashable {
    public var activityID: String
    public var device: DeviceRecord
    public init(activityID: String, device: DeviceRecord) {
        self.activityID = activityID
        self.device = device
    }
}

/// One line of a device's budget ledger as the store holds it.
public struct BudgetEntry: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// A priority-10 update or end, by token or by broadcast.
        case immediate
        /// A push-to-start.
        case start
        /// Asked for at priority 10, sent at 5.
        case lowered
        /// A waiting update replaced by a newer one for the same activity before it was sent.
        case coalesced
    }
    public var kind: Kind
    public var activityID: String
    public var sendID: Int64?
    /// The outbox row (coalesced: the row that was superseded).
    public var deliveryID: Int64?
    public var via: String?
    public var note: String?
    public var at: Date
    public init(kind: Kind, activityID: String, sendID: Int64? = nil, deliveryID: Int64? = nil, via: String? = nil, note: String? = nil, at: Date) {
        self.kind = kind
        self.activityID = activityID
        self.sendID = sendID
        self.deliveryID = deliveryID
        self.via = via
        self.note = note
        self.at = at
    }
}

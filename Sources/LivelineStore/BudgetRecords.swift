import Foundation

/// What a push did to devices' budgets that no outbox row of their own says (migration
/// 8-budget-ledger): an update to a token lowered to priority 5 (one device), or a broadcast that
/// spent a priority-10 push of, or went out lowered to 5 for, every device holding an activity on the
/// channel (one row per activity, `deviceID` nil: a broadcast costs rows per activity, not per device).
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
    public var activityID: String
    /// Nil: every device holding the activity when it was sent.
    public var deviceID: String?
    public var kind: Kind
    public var via: Via
    public var note: String?
    public var createdAt: Date
    public init(sendID: Int64, activityID: String, deviceID: String?, kind: Kind, via: Via, note: String? = nil, createdAt: Date) {
        self.sendID = sendID
        self.activityID = activityID
        self.deviceID = deviceID
        self.kind = kind
        self.via = via
        self.note = note
        self.createdAt = createdAt
    }
}

/// The budgets of the devices following a broadcast channel: those holding a running activity on it
/// (an update token, or a push-to-start of the activity's current run that was not refused) on
/// iOS 18 or later, and which of them have spent their priority-10 budget for that activity.
public struct ChannelBudgetUse: Sendable, Hashable {
    /// A device that has spent its budget: `spent` priority-10 pushes this hour, of `budget`.
    public struct Spent: Sendable, Hashable {
        public var activityID: String
        public var deviceID: String
        public var spent: Int
        public var budget: Int
        public init(activityID: String, deviceID: String, spent: Int, budget: Int) {
            self.activityID = activityID
            self.deviceID = deviceID
            self.spent = spent
            self.budget = budget
        }
    }
    /// How many devices follow the channel (known only when some are over budget; 0 otherwise).
    public var holders: Int
    /// How many of them have spent their budget.
    public var overBudgetCount: Int
    /// The first of them, by activity and device id.
    public var overBudget: [Spent]
    public init(holders: Int, overBudgetCount: Int, overBudget: [Spent]) {
        self.holders = holders
        self.overBudgetCount = overBudgetCount
        self.overBudget = overBudget
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

import Foundation
import LivelineSQL

/// An installation's word that its app-started activity follows the channel the backend bound to a
/// logical activity (migration `16-channel-members`): ActivityKit gives such an activity no update
/// token, so this row is all the service knows of it. One row per activity and device.
public struct ChannelMemberRecord: Sendable, Hashable {
    public var activityID: String
    public var deviceID: String
    public var channelID: String
    public var bundleID: String
    /// The phone's own `Activity.id`, when the app reported it.
    public var deviceActivityID: String?
    /// When the device began to follow the channel for this activity (the first report of the run).
    public var joinedAt: Date
    public init(activityID: String, deviceID: String, channelID: String, bundleID: String, deviceActivityID: String?, joinedAt: Date) {
        self.activityID = activityID
        self.deviceID = deviceID
        self.channelID = channelID
        self.bundleID = bundleID
        self.deviceActivityID = deviceActivityID
        self.joinedAt = joinedAt
    }
}

/// A member of a running activity on a channel whose activity has had at least the smaller budget
/// of priority-10 broadcasts this hour: what it spent since it joined (or the hour began).
public struct ChannelMemberSpending: Sendable, Hashable {
    public var activityID: String
    public var deviceID: String
    public var frequentUpdates: Bool
    public var spent: Int
    public init(activityID: String, deviceID: String, frequentUpdates: Bool, spent: Int) {
        self.activityID = activityID
        self.deviceID = deviceID
        self.frequentUpdates = frequentUpdates
        self.spent = spent
    }
}

extension RecordDecoding {
    func channelMemberRecord(_ row: SQLRow) -> ChannelMemberRecord {
        ChannelMemberRecord(activityID: row.string("activity_id") ?? "", deviceID: row.string("device_id") ?? "", channelID: row.string("channel_id") ?? "",
                            bundleID: row.string("bundle_id") ?? "", deviceActivityID: row.string("device_activity_id"), joinedAt: date(row, "joined_at"))
    }

    func channelMemberSpending(_ row: SQLRow) -> ChannelMemberSpending {
        ChannelMemberSpending(activityID: row.string("activity_id") ?? "", deviceID: row.string("device_id") ?? "",
                              frequentUpdates: (row.int64("frequent") ?? 0) != 0, spent: row.int("spent") ?? 0)
    }
}

/// The statement both stores run for members' budgets (BudgetSQL's numbering and dialect helpers):
/// #1 channel, #2 now, #3 since, #4 the smaller budget. Only activities with at least #4
/// priority-10 broadcasts this hour are read, so a channel within budget costs one count per activity.
enum ChannelMemberSQL {
    static let spending = """
        WITH live AS (
            SELECT a.activity_id, a.started_at FROM activities a WHERE a.channel_id = #1 AND (a.ended_at IS NULL OR a.ended_at > #2)
                AND (SELECT count(*) FROM budget_charges c WHERE c.activity_id = a.activity_id AND c.device_id IS NULL
                     AND c.kind = 'immediate' AND c.created_at >= #3) >= #4)
        SELECT m.activity_id, m.device_id, d.frequent_updates AS frequent,
            (SELECT count(*) FROM budget_charges c WHERE c.activity_id = m.activity_id AND c.device_id IS NULL AND c.kind = 'immediate'
                AND c.created_at >= GREATER(#3, m.joined_at)) AS spent
        FROM live JOIN channel_members m ON m.activity_id = live.activity_id AND m.channel_id = #1 AND m.joined_at >= live.started_at
        JOIN devices d ON d.device_id = m.device_id
        ORDER BY m.activity_id, m.device_id
        """
}

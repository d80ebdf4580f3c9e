import Foundation
import LivelineSQL

/// Members of channels bound to logical activities (migration `16-channel-members`).
extension SQLTransaction {
    func setChannelMember(_ m: ChannelMemberRecord) throws {
        _ = try db.run("""
            INSERT INTO channel_members (activity_id, device_id, channel_id, bundle_id, device_activity_id, joined_at) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (activity_id, device_id) DO UPDATE SET channel_id = excluded.channel_id, bundle_id = excluded.bundle_id,
                device_activity_id = excluded.device_activity_id, joined_at = excluded.joined_at
            """, [.text(m.activityID), .text(m.deviceID), .text(m.channelID), .text(m.bundleID), .from(m.deviceActivityID), .real(m.joinedAt.timeIntervalSince1970)])
    }

    func channelMember(activityID: String, deviceID: String) throws -> ChannelMemberRecord? {
        try db.queryOne("SELECT * FROM channel_members WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]).map(channelMemberRecord)
    }

    func channelMembers(activityID: String) throws -> [ChannelMemberRecord] {
        try db.query("SELECT * FROM channel_members WHERE activity_id = $1 ORDER BY joined_at DESC, device_id", [.text(activityID)]).map(channelMemberRecord)
    }

    func deleteChannelMember(activityID: String, deviceID: String) throws -> Bool {
        try db.run("DELETE FROM channel_members WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]) == 1
    }

    func channelMemberSpending(channelID: String, now: Date, since: Date, atLeast: Int) throws -> [ChannelMemberSpending] {
        try db.query(BudgetSQL.sql(dialect, ChannelMemberSQL.spending), [.text(channelID), .real(now.timeIntervalSince1970), .real(since.timeIntervalSince1970),
                                                                          .integer(Int64(atLeast))]).map(channelMemberSpending)
    }
}

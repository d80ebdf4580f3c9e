import Foundation
import LivelineSQLite

/// On-demand channels of logical activities on SQLite (migration 13-activity-channels).
extension SQLiteTransaction {
    func activityChannel(activityID: String) throws -> ChannelRecord? {
        try db.queryOne("SELECT * FROM channels WHERE activity_id = ?", [.text(activityID)]).map(channelRecord)
    }

    func staleActivityChannels(endedBefore: Date, startedBefore: Date, limit: Int) throws -> [ChannelRecord] {
        try db.query("""
            SELECT c.* FROM channels c LEFT JOIN activities a ON a.activity_id = c.activity_id
            WHERE c.activity_id IS NOT NULL AND c.created_at <= ?
              AND (a.activity_id IS NULL OR a.channel_id IS NULL OR a.channel_id <> c.channel_id
                   OR (a.ended_at IS NOT NULL AND a.ended_at <= ?) OR a.started_at <= ?)
            ORDER BY c.created_at, c.channel_id LIMIT ?
            """, [.real(endedBefore.timeIntervalSince1970), .real(endedBefore.timeIntervalSince1970), .real(startedBefore.timeIntervalSince1970), .integer(Int64(limit))]).map(channelRecord)
    }
}

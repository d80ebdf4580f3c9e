import Foundation
import LivelineSQL

/// Broadcast channels, and the on-demand channels of logical activities (migration 13-activity-channels).
extension SQLTransaction {
    func insertChannel(_ c: ChannelRecord) throws {
        try db.run("INSERT INTO channels (channel_id, bundle_id, storage_policy, created_at, activity_id) VALUES ($1, $2, $3, $4, $5)",
                   [.text(c.channelID), .text(c.bundleID), .integer(Int64(c.storagePolicy)), time(c.createdAt), .from(c.activityID)])
    }

    func channel(_ channelID: String) throws -> ChannelRecord? {
        try db.queryOne("SELECT * FROM channels WHERE channel_id = $1", [.text(channelID)]).map(channelRecord)
    }

    func channels(bundleID: String?) throws -> [ChannelRecord] {
        if let bundleID {
            return try db.query("SELECT * FROM channels WHERE bundle_id = $1 ORDER BY created_at, channel_id", [.text(bundleID)]).map(channelRecord)
        }
        return try db.query("SELECT * FROM channels ORDER BY created_at, channel_id", []).map(channelRecord)
    }

    func deleteChannel(_ channelID: String) throws -> Bool {
        try db.run("DELETE FROM channels WHERE channel_id = $1", [.text(channelID)]) > 0
    }

    func channelCount(bundleID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM channels WHERE bundle_id = $1", [.text(bundleID)])
    }

    func activityChannel(activityID: String) throws -> ChannelRecord? {
        try db.queryOne("SELECT * FROM channels WHERE activity_id = $1", [.text(activityID)]).map(channelRecord)
    }

    func staleActivityChannels(endedBefore: Date, startedBefore: Date, limit: Int) throws -> [ChannelRecord] {
        try db.query("""
            SELECT c.* FROM channels c LEFT JOIN activities a ON a.activity_id = c.activity_id
            WHERE c.activity_id IS NOT NULL AND c.created_at <= $1
              AND (a.activity_id IS NULL OR a.channel_id IS NULL OR a.channel_id <> c.channel_id
                   OR (a.ended_at IS NOT NULL AND a.ended_at <= $1) OR a.started_at <= $2)
            ORDER BY c.created_at, c.channel_id LIMIT $3
            """, [time(endedBefore), time(startedBefore), .integer(Int64(limit))]).map(channelRecord)
    }
}

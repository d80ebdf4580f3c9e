import Foundation
import LivelineSQL

/// The registry: apps, devices, their push-to-start and update tokens (with token hygiene,
/// migration 6-token-environment), and activities.
extension SQLTransaction {
    // MARK: Apps

    func upsertApp(_ app: AppRecord) throws {
        try db.run("""
            INSERT INTO apps (bundle_id, team_id, key_id, key_pem, environment, created_at, environments) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (bundle_id) DO UPDATE SET team_id = excluded.team_id, key_id = excluded.key_id,
                key_pem = excluded.key_pem, environment = excluded.environment, environments = excluded.environments
            """, [.text(app.bundleID), .text(app.teamID), .text(app.keyID), .text(app.keyPEM), .text(app.environment), time(app.createdAt),
                  .from(app.environments?.joined(separator: ","))])
    }

    func app(bundleID: String) throws -> AppRecord? {
        try db.queryOne("SELECT * FROM apps WHERE bundle_id = $1", [.text(bundleID)]).map(appRecord)
    }

    func apps() throws -> [AppRecord] { try db.query("SELECT * FROM apps ORDER BY bundle_id", []).map(appRecord) }

    // MARK: Devices

    func upsertDevice(_ device: DeviceRecord) throws {
        try db.run("""
            INSERT INTO devices (device_id, bundle_id, ios_version, user_id, frequent_updates, updated_at, user_verified) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (device_id) DO UPDATE SET bundle_id = excluded.bundle_id, ios_version = excluded.ios_version,
                user_id = excluded.user_id, frequent_updates = excluded.frequent_updates, updated_at = excluded.updated_at,
                user_verified = excluded.user_verified
            """, [.text(device.deviceID), .text(device.bundleID), .text(device.iosVersion), .from(device.userID),
                  .integer(device.frequentUpdates ? 1 : 0), time(device.updatedAt), .integer(device.userVerified ? 1 : 0)])
    }

    func device(_ deviceID: String) throws -> DeviceRecord? {
        try db.queryOne("SELECT * FROM devices WHERE device_id = $1", [.text(deviceID)]).map(deviceRecord)
    }

    func devices(userIDs: [String]) throws -> [DeviceRecord] {
        var result: [DeviceRecord] = []
        for user in userIDs {
            result += try db.query("SELECT * FROM devices WHERE user_id = $1 AND user_verified = 1 ORDER BY device_id", [.text(user)]).map(deviceRecord)
        }
        return result
    }

    func deleteDevice(_ deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE device_id = $1", [.text(deviceID)])
        return try db.run("DELETE FROM devices WHERE device_id = $1", [.text(deviceID)]) > 0
    }

    func verifiedDeviceCount(userID: String, excluding deviceID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM devices WHERE user_id = $1 AND user_verified = 1 AND device_id <> $2", [.text(userID), .text(deviceID)])
    }

    // MARK: Tokens

    /// The environment and refusal columns of a token row.
    private func hygiene(_ token: TokenRecord) -> [SQLValue] {
        [.from(token.environment), .from(token.refusedAt?.timeIntervalSince1970), .from(token.refusal)]
    }

    func setPushToStartToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO push_to_start_tokens (device_id, attributes_type, token, registered_at, environment, refused_at, refusal) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (device_id, attributes_type) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.deviceID), .text(token.scope), .text(token.token), time(token.registeredAt)] + hygiene(token))
    }

    func pushToStartToken(deviceID: String, attributesType: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM push_to_start_tokens WHERE device_id = $1 AND attributes_type = $2", [.text(deviceID), .text(attributesType)]).map {
            tokenRecord($0, scope: "attributes_type")
        }
    }

    func pushToStartTokens(deviceID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM push_to_start_tokens WHERE device_id = $1 ORDER BY attributes_type", [.text(deviceID)]).map { tokenRecord($0, scope: "attributes_type") }
    }

    func deletePushToStartToken(deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM push_to_start_tokens WHERE device_id = $1 AND token = $2", [.text(deviceID), .text(token)]) > 0
    }

    func refusePushToStartToken(deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE push_to_start_tokens SET refused_at = $1, refusal = $2 WHERE device_id = $3 AND token = $4",
                   [time(at), .text(reason), .text(deviceID), .text(token)]) > 0
    }

    func setActivityToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO activity_tokens (activity_id, device_id, token, registered_at, environment, refused_at, refusal) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (activity_id, device_id) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.scope), .text(token.deviceID), .text(token.token), time(token.registeredAt)] + hygiene(token))
    }

    func activityTokens(activityID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = $1 ORDER BY device_id", [.text(activityID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTokens(activityID: String, limit: Int) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = $1 ORDER BY device_id LIMIT $2", [.text(activityID), .integer(Int64(limit))]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTokenCount(activityID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM activity_tokens WHERE activity_id = $1", [.text(activityID)])
    }

    func activityToken(activityID: String, deviceID: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM activity_tokens WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTargets(activityID: String) throws -> [(token: TokenRecord, device: DeviceRecord?)] {
        try db.query("""
            SELECT t.activity_id, t.device_id, t.token, t.registered_at, t.environment, t.refused_at, t.refusal, d.bundle_id, d.ios_version, d.user_id, d.frequent_updates, d.updated_at
            FROM activity_tokens t LEFT JOIN devices d ON d.device_id = t.device_id WHERE t.activity_id = $1 ORDER BY t.device_id
            """, [.text(activityID)]).map { row in
            (tokenRecord(row, scope: "activity_id"), row.string("ios_version") == nil ? nil : deviceRecord(row))
        }
    }

    func deleteActivityTokens(activityID: String) throws -> Int {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1", [.text(activityID)])
    }

    func deleteActivityToken(activityID: String, deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]) > 0
    }

    func deleteActivityToken(activityID: String, deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1 AND device_id = $2 AND token = $3", [.text(activityID), .text(deviceID), .text(token)]) > 0
    }

    func refuseActivityToken(activityID: String, deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE activity_tokens SET refused_at = $1, refusal = $2 WHERE activity_id = $3 AND device_id = $4 AND token = $5",
                   [time(at), .text(reason), .text(activityID), .text(deviceID), .text(token)]) > 0
    }

    func tokenCount() throws -> Int {
        try count("SELECT (SELECT count(*) FROM activity_tokens) + (SELECT count(*) FROM push_to_start_tokens) AS n", [])
    }

    func deviceHoldsToken(deviceID: String, token: String) throws -> Bool {
        try db.queryOne("""
            SELECT 1 AS n FROM push_to_start_tokens WHERE device_id = $1 AND token = $2
            UNION ALL SELECT 1 AS n FROM activity_tokens WHERE device_id = $1 AND token = $2 LIMIT 1
            """, [.text(deviceID), .text(token)]) != nil
    }

    // MARK: Activities

    func upsertActivity(_ a: ActivityRecord) throws {
        try db.run("""
            INSERT INTO activities (activity_id, bundle_id, attributes_type, channel_id, started_at, ended_at, last_timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (activity_id) DO UPDATE SET bundle_id = excluded.bundle_id, attributes_type = excluded.attributes_type,
                channel_id = excluded.channel_id, started_at = excluded.started_at, ended_at = excluded.ended_at, last_timestamp = excluded.last_timestamp
            """, [.text(a.activityID), .text(a.bundleID), .text(a.attributesType), .from(a.channelID), time(a.startedAt),
                  .from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970)])
    }

    func activity(_ activityID: String) throws -> ActivityRecord? {
        try db.queryOne("SELECT * FROM activities WHERE activity_id = $1", [.text(activityID)]).map {
            ActivityRecord(activityID: $0.string("activity_id") ?? "", bundleID: $0.string("bundle_id") ?? "", attributesType: $0.string("attributes_type") ?? "",
                           channelID: $0.string("channel_id"), startedAt: date($0, "started_at"), endedAt: optionalDate($0, "ended_at"),
                           lastTimestamp: optionalDate($0, "last_timestamp"))
        }
    }

    func recentActivityIDs(limit: Int) throws -> [String] {
        try db.query("SELECT activity_id FROM activities ORDER BY started_at DESC, activity_id LIMIT $1", [.integer(Int64(limit))]).compactMap { $0.string("activity_id") }
    }
}

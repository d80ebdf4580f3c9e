import Foundation
import LivelineSQLite

/// Activity aliases (migration `12-activity-aliases`) on SQLite.
extension SQLiteTransaction {
    func activityAlias(bundleID: String, alias: String) throws -> ActivityAliasRecord? {
        try db.queryOne("SELECT * FROM activity_aliases WHERE bundle_id = ? AND alias = ?", [.text(bundleID), .text(alias)]).map(activityAliasRecord)
    }

    func insertActivityAlias(_ record: ActivityAliasRecord) throws -> Bool {
        try db.run("INSERT INTO activity_aliases (bundle_id, alias, activity_id, device_id, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (bundle_id, alias) DO NOTHING",
                   [.text(record.bundleID), .text(record.alias), .text(record.activityID), .from(record.deviceID), .real(record.createdAt.timeIntervalSince1970)]) == 1
    }

    func activityAliases(activityID: String) throws -> [ActivityAliasRecord] {
        try db.query("SELECT * FROM activity_aliases WHERE activity_id = ? ORDER BY bundle_id, alias", [.text(activityID)]).map(activityAliasRecord)
    }
}

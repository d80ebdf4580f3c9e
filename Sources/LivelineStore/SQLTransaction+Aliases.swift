import Foundation
import LivelineSQL

/// Activity aliases (migration `12-activity-aliases`).
extension SQLTransaction {
    func activityAlias(bundleID: String, alias: String) throws -> ActivityAliasRecord? {
        try db.queryOne("SELECT * FROM activity_aliases WHERE bundle_id = $1 AND alias = $2", [.text(bundleID), .text(alias)]).map(activityAliasRecord)
    }

    /// `ON CONFLICT DO NOTHING`: both databases count no row when the alias was taken.
    func insertActivityAlias(_ record: ActivityAliasRecord) throws -> Bool {
        try db.run("INSERT INTO activity_aliases (bundle_id, alias, activity_id, device_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (bundle_id, alias) DO NOTHING",
                   [.text(record.bundleID), .text(record.alias), .text(record.activityID), .from(record.deviceID), time(record.createdAt)]) == 1
    }

    func activityAliases(activityID: String) throws -> [ActivityAliasRecord] {
        try db.query("SELECT * FROM activity_aliases WHERE activity_id = $1 ORDER BY bundle_id, alias", [.text(activityID)]).map(activityAliasRecord)
    }
}

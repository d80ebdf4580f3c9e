import Foundation
import LivelineSQL

/// Device reports (migration 7-activity-status). One row per activity, device and kind: a new
/// report replaces the previous one, so a device that reports again and again holds one row.
extension SQLTransaction {
    func replaceDeviceReport(_ r: DeviceReportRecord) throws -> DeviceReportRecord {
        _ = try db.run("DELETE FROM device_reports WHERE activity_id = $1 AND device_id = $2 AND kind = $3", [.text(r.activityID), .text(r.deviceID), .text(r.kind)])
        let row = try db.queryOne("INSERT INTO device_reports (activity_id, device_id, kind, detail, reported_at, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                                  [.text(r.activityID), .text(r.deviceID), .text(r.kind), .text(r.detail), time(r.reportedAt), time(r.createdAt)])
        var stored = r
        stored.id = row?.int64("id") ?? 0
        return stored
    }

    func deviceReports(activityID: String) throws -> [DeviceReportRecord] {
        try db.query("SELECT * FROM device_reports WHERE activity_id = $1 ORDER BY id", [.text(activityID)]).map(deviceReportRecord)
    }
}

extension RecordDecoding {
    func deviceReportRecord(_ row: SQLRow) -> DeviceReportRecord {
        DeviceReportRecord(id: row.int64("id") ?? 0, activityID: row.string("activity_id") ?? "", deviceID: row.string("device_id") ?? "",
                           kind: row.string("kind") ?? "", detail: row.string("detail") ?? "",
                           reportedAt: date(row, "reported_at"), createdAt: date(row, "created_at"))
    }
}

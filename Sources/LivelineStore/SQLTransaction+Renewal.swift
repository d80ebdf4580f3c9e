import Foundation
import LivelineSQL

/// Renewal past 8 hours (migration `14-activity-renewal`).
extension SQLTransaction {
    func setActivityRenewal(_ r: ActivityRenewalRecord) throws {
        try db.run("""
            INSERT INTO activity_renewals (activity_id, enabled, generation, updated_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (activity_id) DO UPDATE SET enabled = excluded.enabled, generation = excluded.generation, updated_at = excluded.updated_at
            """, [.text(r.activityID), .integer(r.enabled ? 1 : 0), .integer(Int64(r.generation)), .real(r.updatedAt.timeIntervalSince1970)])
    }

    func activityRenewal(activityID: String) throws -> ActivityRenewalRecord? {
        try db.queryOne("SELECT * FROM activity_renewals WHERE activity_id = $1", [.text(activityID)]).map(activityRenewalRecord)
    }

    func renewalCandidates(startedAfter: Date, startedBefore: Date, now: Date, limit: Int) throws -> [String] {
        try db.query("""
            SELECT r.activity_id FROM activity_renewals r JOIN activities a ON a.activity_id = r.activity_id
            WHERE r.enabled = 1 AND ((a.started_at > $1 AND a.started_at <= $2 AND (a.ended_at IS NULL OR a.ended_at > $3))
                OR EXISTS (SELECT 1 FROM device_renewals d WHERE d.activity_id = r.activity_id AND d.state IN ('waiting', 'pending')))
            ORDER BY a.started_at, r.activity_id LIMIT $4
            """, [.real(startedAfter.timeIntervalSince1970), .real(startedBefore.timeIntervalSince1970), .real(now.timeIntervalSince1970),
                  .integer(Int64(limit))]).compactMap { $0.string("activity_id") }
    }

    func upsertDeviceRenewal(_ r: DeviceRenewalRecord) throws {
        try db.run("""
            INSERT INTO device_renewals (activity_id, device_id, generation, state, requested_at, send_id, predecessor_token, predecessor_environment, predecessor_started_at,
                confirmed_at, confirmed_by, end_send_id, reason_code, reason, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
            ON CONFLICT (activity_id, device_id, generation) DO UPDATE SET state = excluded.state, requested_at = excluded.requested_at,
                send_id = excluded.send_id, predecessor_token = excluded.predecessor_token, predecessor_environment = excluded.predecessor_environment,
                predecessor_started_at = excluded.predecessor_started_at,
                confirmed_at = excluded.confirmed_at, confirmed_by = excluded.confirmed_by, end_send_id = excluded.end_send_id,
                reason_code = excluded.reason_code, reason = excluded.reason, updated_at = excluded.updated_at
            """, [.text(r.activityID), .text(r.deviceID), .integer(Int64(r.generation)), .text(r.state.rawValue), .real(r.requestedAt.timeIntervalSince1970),
                  r.sendID.map { .integer($0) } ?? .null, .from(r.predecessorToken), .from(r.predecessorEnvironment), .real(r.predecessorStartedAt.timeIntervalSince1970),
                  .from(r.confirmedAt?.timeIntervalSince1970), .from(r.confirmedBy), r.endSendID.map { .integer($0) } ?? .null,
                  .from(r.reasonCode), .from(r.reason), .real(r.updatedAt.timeIntervalSince1970)])
    }

    func deviceRenewals(activityID: String) throws -> [DeviceRenewalRecord] {
        try db.query("SELECT * FROM device_renewals WHERE activity_id = $1 ORDER BY generation, device_id", [.text(activityID)]).map(deviceRenewalRecord)
    }
}

import Foundation
import LivelineSQLite

/// Issue #22's consistency operations in SQLite's dialect (see `StoreTransaction`): the
/// compare-and-set write of an activity, rows given back unsent, and the webhook's lease.
extension SQLiteTransaction {
    func setActivityTimes(_ a: ActivityRecord, ifStill expected: ActivityRecord) throws -> Bool {
        try db.run("""
            UPDATE activities SET ended_at = ?, last_timestamp = ?
            WHERE activity_id = ? AND started_at = ? AND ended_at IS ? AND last_timestamp IS ?
            """, [.from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970),
                  .text(expected.activityID), .real(expected.startedAt.timeIntervalSince1970),
                  .from(expected.endedAt?.timeIntervalSince1970), .from(expected.lastTimestamp?.timeIntervalSince1970)]) == 1
    }

    /// Newest first: an older update to the same device released with a newer one is superseded
    /// by it (the one-waiting-update rule), as `releaseExpiredLeases` does.
    func releaseUnsent(_ ids: [Int64], reason: String, nextAttemptAt: Date, now: Date) throws -> Int {
        let t = SQLiteValue.real(now.timeIntervalSince1970)
        var released = 0
        for id in Set(ids).sorted(by: >) {
            released += try db.run("""
                UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', lease_until = NULL, updated_at = ?
                WHERE id = ? AND state = 'sending' AND event = 'update' AND target = 'token'
                    AND EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = outbox.activity_id AND w.device_id = outbox.device_id
                        AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                """, [t, .integer(id)])
            released += try db.run("""
                UPDATE outbox SET state = 'retrying', attempts = max(attempts - 1, 0), lease_until = NULL, reason = ?, next_attempt_at = ?, updated_at = ?
                WHERE id = ? AND state = 'sending'
                """, [.text(reason), .real(nextAttemptAt.timeIntervalSince1970), t, .integer(id)])
        }
        return released
    }

    /// One UPDATE … RETURNING: SQLite has one writer, so the rows it picks are this claimant's alone.
    func claimWebhooks(by claimant: String, now: Date, limit: Int, leaseUntil: Date) throws -> [InteractionRecord] {
        let t = SQLiteValue.real(now.timeIntervalSince1970)
        return try db.query("""
            UPDATE interactions SET claimed_by = ?, lease_until = ?, attempts = attempts + 1
            WHERE id IN (SELECT id FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ? OR claimed_by = ?)
                         ORDER BY next_attempt_at, id LIMIT ?)
            RETURNING *
            """, [.text(claimant), .real(leaseUntil.timeIntervalSince1970), t, t, .text(claimant), .integer(Int64(limit))]).map(interactionRecord).sorted { $0.id < $1.id }
    }

    func completeWebhook(id: Int64, claimant: String, state: String, nextAttemptAt: Date, error: String?) throws -> Bool {
        try db.run("""
            UPDATE interactions SET webhook_state = ?, next_attempt_at = ?, last_error = ?, claimed_by = NULL, lease_until = NULL
            WHERE id = ? AND claimed_by = ?
            """, [.text(state), .real(nextAttemptAt.timeIntervalSince1970), .from(error), .integer(id), .text(claimant)]) == 1
    }
}

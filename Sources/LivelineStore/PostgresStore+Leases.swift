import Foundation
import LivelinePostgres

/// Issue #22's consistency operations in PostgreSQL's dialect; each does what `SQLiteTransaction`'s
/// method of the same name does.
extension PostgresTransaction {
    /// A conditional UPDATE: under READ COMMITTED, a concurrent writer's committed row is read
    /// again before the condition is checked, so of two racing writers the second matches nothing.
    func setActivityTimes(_ a: ActivityRecord, ifStill expected: ActivityRecord) throws -> Bool {
        try db.run("""
            UPDATE activities SET ended_at = $1, last_timestamp = $2
            WHERE activity_id = $3 AND started_at = $4 AND ended_at IS NOT DISTINCT FROM $5 AND last_timestamp IS NOT DISTINCT FROM $6
            """, [.from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970),
                  .text(expected.activityID), seconds(expected.startedAt),
                  .from(expected.endedAt?.timeIntervalSince1970), .from(expected.lastTimestamp?.timeIntervalSince1970)]) == 1
    }

    func releaseUnsent(_ ids: [Int64], reason: String, nextAttemptAt: Date, now: Date) throws -> Int {
        var released = 0
        for id in Set(ids).sorted(by: >) {
            released += try db.run("""
                UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', lease_until = NULL, updated_at = $1
                WHERE id = $2 AND state = 'sending' AND event = 'update' AND target = 'token'
                    AND EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = outbox.activity_id AND w.device_id = outbox.device_id
                        AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                """, [seconds(now), .integer(id)])
            released += try db.run("""
                UPDATE outbox SET state = 'retrying', attempts = greatest(attempts - 1, 0), lease_until = NULL, reason = $1, next_attempt_at = $2, updated_at = $3
                WHERE id = $4 AND state = 'sending'
                """, [.text(reason), seconds(nextAttemptAt), seconds(now), .integer(id)])
        }
        return released
    }

    /// `FOR UPDATE SKIP LOCKED`: an interaction another instance is claiming right now is passed
    /// over, not waited for, and never claimed twice.
    func claimWebhooks(by claimant: String, now: Date, limit: Int, leaseUntil: Date) throws -> [InteractionRecord] {
        try db.query("""
            WITH due AS MATERIALIZED (
                SELECT id FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3 OR claimed_by = $1)
                ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
            UPDATE interactions SET claimed_by = $1, lease_until = $2, attempts = interactions.attempts + 1
            FROM due WHERE interactions.id = due.id
            RETURNING interactions.*
            """, [.text(claimant), seconds(leaseUntil), seconds(now), .integer(Int64(limit))]).map(interactionRecord).sorted { $0.id < $1.id }
    }

    func completeWebhook(id: Int64, claimant: String, state: String, nextAttemptAt: Date, error: String?) throws -> Bool {
        try db.run("""
            UPDATE interactions SET webhook_state = $1, next_attempt_at = $2, last_error = $3, claimed_by = NULL, lease_until = NULL
            WHERE id = $4 AND claimed_by = $5
            """, [.text(state), seconds(nextAttemptAt), .from(error), .integer(id), .text(claimant)]) == 1
    }

    private func seconds(_ date: Date) -> PostgresValue { .real(date.timeIntervalSince1970) }
}

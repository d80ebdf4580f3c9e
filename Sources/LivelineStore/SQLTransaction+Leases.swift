import Foundation
import LivelineSQL

/// Issue #22's consistency operations (see `StoreTransaction`): the compare-and-set write of an
/// activity and rows given back unsent. (The webhook's lease is in +Interactions.)
extension SQLTransaction {
    /// A conditional UPDATE. PostgreSQL, under READ COMMITTED, reads a concurrent writer's
    /// committed row again before checking the condition, so of two racing writers the second
    /// matches nothing; SQLite has one writer. (`IS NOT DISTINCT FROM`: SQLite 3.39 and later.)
    func setActivityTimes(_ a: ActivityRecord, ifStill expected: ActivityRecord) throws -> Bool {
        try db.run("""
            UPDATE activities SET ended_at = $1, last_timestamp = $2
            WHERE activity_id = $3 AND started_at = $4 AND ended_at IS NOT DISTINCT FROM $5 AND last_timestamp IS NOT DISTINCT FROM $6
            """, [.from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970),
                  .text(expected.activityID), time(expected.startedAt),
                  .from(expected.endedAt?.timeIntervalSince1970), .from(expected.lastTimestamp?.timeIntervalSince1970)]) == 1
    }

    /// Newest first: an older update to the same device released with a newer one is superseded
    /// by it (the one-waiting-update rule), as `releaseExpiredLeases` does.
    func releaseUnsent(_ ids: [Int64], reason: String, nextAttemptAt: Date, now: Date) throws -> Int {
        var released = 0
        for id in Set(ids).sorted(by: >) {
            released += try db.run("""
                UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', lease_until = NULL, updated_at = $1
                WHERE id = $2 AND state = 'sending' AND event = 'update' AND target = 'token'
                    AND EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = outbox.activity_id AND w.device_id = outbox.device_id
                        AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                """, [time(now), .integer(id)])
            released += try db.run("""
                UPDATE outbox SET state = 'retrying', attempts = \(dialect.greatest)(attempts - 1, 0), lease_until = NULL, reason = $1, next_attempt_at = $2, updated_at = $3
                WHERE id = $4 AND state = 'sending'
                """, [.text(reason), time(nextAttemptAt), time(now), .integer(id)])
        }
        return released
    }
}

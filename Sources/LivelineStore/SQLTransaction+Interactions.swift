import Foundation
import LivelineSQL

/// Interactions posted by devices and their webhook: stored once per idempotency key, delivered
/// under a claimant's lease (migration 9-webhook-lease).
extension SQLTransaction {
    /// `ON CONFLICT DO NOTHING … RETURNING`: two instances storing the same tap at once store it
    /// once; the one that did not store it reads the stored one.
    func insertInteraction(activityID: String, deviceID: String?, idempotencyKey: String, body: [UInt8], now: Date) throws -> (InteractionRecord, created: Bool) {
        if let inserted = try db.queryOne("""
            INSERT INTO interactions (activity_id, device_id, idempotency_key, body, created_at, webhook_state, next_attempt_at)
            VALUES ($1, $2, $3, $4, $5, 'pending', $5)
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING *
            """, [.text(activityID), .from(deviceID), .text(idempotencyKey), .blob(body), time(now)]) {
            return (interactionRecord(inserted), true)
        }
        guard let existing = try db.queryOne("SELECT * FROM interactions WHERE idempotency_key = $1", [.text(idempotencyKey)]) else {
            throw StoreError("an interaction conflicted on its idempotency key but cannot be read back")
        }
        return (interactionRecord(existing), false)
    }

    func interactions(activityID: String, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = $1 ORDER BY id LIMIT $2", [.text(activityID), .integer(Int64(limit))]).map(interactionRecord)
    }

    func interactions(activityID: String, after: Int64, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = $1 AND id > $2 ORDER BY id LIMIT $3", [.text(activityID), .integer(after), .integer(Int64(limit))]).map(interactionRecord)
    }

    func dueInteractions(now: Date, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2",
                     [time(now), .integer(Int64(limit))]).map(interactionRecord)
    }

    func recordWebhook(id: Int64, state: String, attempts: Int, nextAttemptAt: Date, error: String?) throws {
        try db.run("UPDATE interactions SET webhook_state = $1, attempts = $2, next_attempt_at = $3, last_error = $4 WHERE id = $5",
                   [.text(state), .integer(Int64(attempts)), time(nextAttemptAt), .from(error), .integer(id)])
    }

    func interactionCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM interactions WHERE device_id = $1 AND created_at >= $2", [.text(deviceID), time(since)])
    }

    func deleteInteractions(before: Date) throws -> Int {
        try db.run("DELETE FROM interactions WHERE created_at < $1 AND webhook_state <> 'pending'", [time(before)])
    }

    /// SQLite: one UPDATE … RETURNING (one writer, so the rows it picks are this claimant's alone).
    /// PostgreSQL: `FOR UPDATE SKIP LOCKED`, so an interaction another instance is claiming right
    /// now is passed over, not waited for, and never claimed twice.
    func claimWebhooks(by claimant: String, now: Date, limit: Int, leaseUntil: Date) throws -> [InteractionRecord] {
        let sql = switch dialect {
        case .sqlite: """
            UPDATE interactions SET claimed_by = $1, lease_until = $2, attempts = attempts + 1
            WHERE id IN (SELECT id FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3 OR claimed_by = $1)
                         ORDER BY next_attempt_at, id LIMIT $4)
            RETURNING *
            """
        case .postgres: """
            WITH due AS MATERIALIZED (
                SELECT id FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until <= $3 OR claimed_by = $1)
                ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
            UPDATE interactions SET claimed_by = $1, lease_until = $2, attempts = interactions.attempts + 1
            FROM due WHERE interactions.id = due.id
            RETURNING interactions.*
            """
        }
        return try db.query(sql, [.text(claimant), time(leaseUntil), time(now), .integer(Int64(limit))]).map(interactionRecord).sorted { $0.id < $1.id }
    }

    func completeWebhook(id: Int64, claimant: String, state: String, nextAttemptAt: Date, error: String?) throws -> Bool {
        try db.run("""
            UPDATE interactions SET webhook_state = $1, next_attempt_at = $2, last_error = $3, claimed_by = NULL, lease_until = NULL
            WHERE id = $4 AND claimed_by = $5
            """, [.text(state), time(nextAttemptAt), .from(error), .integer(id), .text(claimant)]) == 1
    }
}

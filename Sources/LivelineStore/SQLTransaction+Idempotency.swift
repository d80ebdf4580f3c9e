import Foundation
import LivelineSQL

/// Stored answers by credential and `Idempotency-Key`.
extension SQLTransaction {
    func idempotentAnswer(keyID: String, key: String) throws -> IdempotentAnswer? {
        try db.queryOne("SELECT request_hash, status, body FROM idempotency WHERE key_id = $1 AND idempotency_key = $2", [.text(keyID), .text(key)]).map {
            IdempotentAnswer(requestHash: $0.string("request_hash") ?? "", status: $0.int("status") ?? 200, body: $0.blob("body") ?? [])
        }
    }

    func saveIdempotentAnswer(keyID: String, key: String, answer: IdempotentAnswer, now: Date) throws {
        try db.run("""
            INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status, body = excluded.body
            """, [.text(keyID), .text(key), .text(answer.requestHash), .integer(Int64(answer.status)), .blob(answer.body), time(now)])
    }

    /// On PostgreSQL a concurrent claimer of the same key waits on the unique index for the first
    /// one's commit, then finds its answer.
    func claimIdempotencyKey(keyID: String, key: String, requestHash: String, now: Date) throws -> IdempotentAnswer? {
        let claimed = try db.run("""
            INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES ($1, $2, $3, 0, $4, $5)
            ON CONFLICT (key_id, idempotency_key) DO NOTHING
            """, [.text(keyID), .text(key), .text(requestHash), .blob([]), time(now)])
        if claimed > 0 { return nil }
        return try idempotentAnswer(keyID: keyID, key: key)
    }
}

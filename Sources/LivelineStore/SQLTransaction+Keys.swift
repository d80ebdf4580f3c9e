import Foundation
import LivelineSQL

/// API keys, their lifecycle (migration 5-key-lifecycle), installations and user-token secrets.
/// A change other instances must see at once (a key revoked or expired, an installation's secret
/// replaced) notifies `liveline_keys` on PostgreSQL.
extension SQLTransaction {
    func insertKey(_ key: APIKeyRecord) throws {
        try db.run("INSERT INTO api_keys (id, scope, hash, name, created_at, bundle_id, apps, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                   [.text(key.id), .text(key.scope.rawValue), .text(key.hash), .from(key.name), time(key.createdAt),
                    .from(key.bundleID), .from(key.apps?.joined(separator: ",")), key.expiresAt.map(time) ?? .null, key.revokedAt.map(time) ?? .null])
    }

    func key(hash: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE hash = $1", [.text(hash)]).map(keyRecord)
    }

    func keyCount() throws -> Int { try count("SELECT count(*) AS n FROM api_keys", []) }

    func key(id: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE id = $1", [.text(id)]).map(keyRecord)
    }

    func keys(after: String?, limit: Int) throws -> [APIKeyRecord] {
        try db.query("SELECT * FROM api_keys WHERE id > $1 ORDER BY id LIMIT $2", [.text(after ?? ""), .integer(Int64(limit))]).map(keyRecord)
    }

    func revokeKey(id: String, at: Date) throws -> Bool {
        let changed = try db.run("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [time(at), .text(id)]) > 0
        if changed { try notify(PostgresStore.keysChannel) }
        return changed
    }

    func expireKey(id: String, at: Date) throws -> Bool {
        let changed = try db.run("UPDATE api_keys SET expires_at = $1 WHERE id = $2 AND (expires_at IS NULL OR expires_at > $1)", [time(at), .text(id)]) > 0
        if changed { try notify(PostgresStore.keysChannel) }
        return changed
    }

    /// PostgreSQL: a transaction-scoped advisory lock, so an instance starting at the same time
    /// waits here until this transaction commits, then sees its key. SQLite: the file's exclusive
    /// lock already makes this instance the only writer.
    func lockForBootstrap() throws {
        guard dialect.isShared else { return }
        try db.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresStore.bootstrapLock)])
    }

    // MARK: Installations and user-token secrets

    /// A replaced installation (a claim gave it a new secret) notifies other instances, which drop
    /// their cached installations.
    func insertInstallation(_ installation: InstallationRecord) throws {
        if dialect.isShared, try db.queryOne("SELECT 1 AS n FROM installations WHERE installation_id = $1", [.text(installation.installationID)]) != nil {
            try notify(PostgresStore.keysChannel)
        }
        try db.run("""
            INSERT INTO installations (installation_id, bundle_id, secret_hash, created_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (installation_id) DO UPDATE SET bundle_id = excluded.bundle_id, secret_hash = excluded.secret_hash, created_at = excluded.created_at
            """, [.text(installation.installationID), .text(installation.bundleID), .text(installation.secretHash), time(installation.createdAt)])
    }

    func installation(secretHash: String) throws -> InstallationRecord? {
        try db.queryOne("SELECT * FROM installations WHERE secret_hash = $1", [.text(secretHash)]).map { row in
            InstallationRecord(installationID: row.string("installation_id") ?? "", bundleID: row.string("bundle_id") ?? "",
                               secretHash: row.string("secret_hash") ?? "", createdAt: date(row, "created_at"))
        }
    }

    func setUserTokenSecret(bundleID: String, secret: String, now: Date) throws {
        try db.run("""
            INSERT INTO user_token_secrets (bundle_id, secret, previous_secret, updated_at) VALUES ($1, $2, NULL, $3)
            ON CONFLICT (bundle_id) DO UPDATE SET previous_secret = CASE WHEN user_token_secrets.secret = excluded.secret
                THEN user_token_secrets.previous_secret ELSE user_token_secrets.secret END, secret = excluded.secret, updated_at = excluded.updated_at
            """, [.text(bundleID), .text(secret), time(now)])
    }

    func userTokenSecrets(bundleID: String) throws -> [String] {
        guard let row = try db.queryOne("SELECT secret, previous_secret FROM user_token_secrets WHERE bundle_id = $1", [.text(bundleID)]) else { return [] }
        return [row.string("secret"), row.string("previous_secret")].compactMap { $0 }
    }
}

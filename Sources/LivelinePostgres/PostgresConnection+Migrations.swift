import LivelineSQL

extension PostgresConnection {
    /// The session advisory lock `migrate` holds (`pg_advisory_lock`): "LLMIGRAT" in ASCII.
    public static let migrationLockKey: Int64 = 0x4C4C_4D49_4752_4154

    /// Applies, in order, the migrations not yet recorded in table
    /// `schema_migrations(version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    /// each in its own transaction: LivelineSQL's one migrator (`applyMigrations`), with
    /// PostgreSQL's column types, clock and lock.
    ///
    /// Safe against other processes migrating the same database at once: the whole run holds the
    /// session advisory lock `migrationLockKey`, so a second instance waits, then finds the
    /// migrations recorded and applies nothing. The server releases the lock if this process dies.
    ///
    /// - Parameter migrations: every migration the code knows, oldest first; names must be unique.
    /// - Returns: the names applied now (empty when the database was up to date).
    /// - Throws: `PostgresError` naming both names if a recorded version has a different name than
    ///   the code's; naming the versions if the database has more than the code knows or a gap in
    ///   its record; and the migration's name and statement if its SQL fails (that migration is
    ///   rolled back, earlier ones stay applied).
    @discardableResult
    public func migrate(_ migrations: [PostgresMigration]) throws(PostgresError) -> [String] {
        do {
            return try applyMigrations(migrations)
        } catch let error as PostgresError {
            throw error
        } catch {
            throw PostgresError(sqlState: nil, message: "migrating '\(location)' failed: \(error)")
        }
    }

    public var migrationTableSQL: String {
        """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """
    }

    public var currentTimeSQL: String { #"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"# }

    /// The session advisory lock `migrationLockKey`, released when `body` ends (or by the server when the process dies).
    public func withMigrationLock<T>(_ body: () throws -> T) throws -> T {
        try run("SELECT pg_advisory_lock($1)", [.integer(Self.migrationLockKey)])
        defer { _ = try? run("SELECT pg_advisory_unlock($1)", [.integer(Self.migrationLockKey)]) }
        return try body()
    }

    public func migrationError(_ message: String, cause: (any Error)?) -> any Error {
        let cause = cause as? PostgresError
        return PostgresError(sqlState: cause?.sqlState, message: message, isConnectionLost: cause?.isConnectionLost ?? false)
    }
}

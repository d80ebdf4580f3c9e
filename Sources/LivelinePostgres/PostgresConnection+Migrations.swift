extension PostgresConnection {
    /// The session advisory lock `migrate` holds (`pg_advisory_lock`): "LLMIGRAT" in ASCII.
    public static let migrationLockKey: Int64 = 0x4C4C_4D49_4752_4154

    /// Applies, in order, the migrations not yet recorded in table
    /// `schema_migrations(version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    /// each in its own transaction. Version n is `migrations[n - 1]`; `applied_at` is UTC ISO 8601.
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
        var seen = Set<String>()
        for (i, migration) in migrations.enumerated() where !seen.insert(migration.name).inserted {
            throw PostgresError.misuse("migration \(i + 1) repeats the name '\(migration.name)'; every migration needs a unique name")
        }
        try run("SELECT pg_advisory_lock($1)", [.integer(Self.migrationLockKey)])
        defer { _ = try? run("SELECT pg_advisory_unlock($1)", [.integer(Self.migrationLockKey)]) }
        try execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version BIGINT PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL
            )
            """)
        let recorded = try query("SELECT version, name FROM schema_migrations ORDER BY version")
        for (i, row) in recorded.enumerated() {
            let version = row.int64("version") ?? 0
            let name = row.string("name") ?? ""
            guard version == Int64(i + 1) else {
                throw migrationError("the database at '\(location)' records migration \(version) '\(name)' but not version \(i + 1) before it; schema_migrations was edited by hand")
            }
            try checkRecorded(version: i + 1, name: name, against: migrations)
        }
        var applied: [String] = []
        for index in recorded.count ..< migrations.count {
            let migration = migrations[index]
            let version = index + 1
            do {
                try transaction {
                    do throws(PostgresError) {
                        try execute(migration.sql)
                    } catch {
                        throw PostgresError(sqlState: error.sqlState, message: "migration \(version) '\(migration.name)' failed: \(error.message)",
                                            isConnectionLost: error.isConnectionLost)
                    }
                    try run("""
                        INSERT INTO schema_migrations (version, name, applied_at)
                        VALUES ($1, $2, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                        """, [.integer(Int64(version)), .text(migration.name)])
                }
            } catch let error as PostgresError {
                throw error
            } catch {
                throw migrationError("migration \(version) '\(migration.name)' failed: \(error)")
            }
            applied.append(migration.name)
        }
        return applied
    }

    /// Checks one recorded version against the code's list.
    private func checkRecorded(version: Int, name: String, against migrations: [PostgresMigration]) throws(PostgresError) {
        guard version <= migrations.count else {
            throw migrationError("the database at '\(location)' has migration \(version) '\(name)', but this program knows only \(migrations.count) migration(s): a newer Liveline wrote it; run that version or use another database")
        }
        let expected = migrations[version - 1].name
        guard name == expected else {
            throw migrationError("migration \(version) is recorded in '\(location)' as '\(name)' but the code names it '\(expected)': a migration was edited or reordered after release; restore it and add a new migration instead")
        }
    }

    private func migrationError(_ message: String) -> PostgresError {
        PostgresError(sqlState: nil, message: message)
    }
}

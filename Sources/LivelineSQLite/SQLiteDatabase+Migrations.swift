import CSQLite

extension SQLiteDatabase {
    /// Applies, in order, the migrations not yet recorded in table
    /// `schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    /// each in its own transaction. Version n is `migrations[n - 1]`; `applied_at` is UTC ISO 8601.
    ///
    /// Safe against another process migrating the same file at once: each step re-checks its
    /// version inside its `BEGIN IMMEDIATE` transaction and skips a step the other one recorded.
    ///
    /// - Parameter migrations: every migration the code knows, oldest first; names must be unique.
    /// - Returns: the names applied now (empty when the database was up to date).
    /// - Throws: `SQLiteError` (`SQLITE_ERROR`), naming both names, if a recorded version has a
    ///   different name than the code's (a migration edited or reordered after release); naming
    ///   the versions if the database has more than the code knows (a newer Liveline wrote it) or
    ///   a gap in its record; and the migration's name and statement if its SQL fails (that
    ///   migration is rolled back, earlier ones stay applied).
    @discardableResult
    public func migrate(_ migrations: [SQLiteMigration]) throws(SQLiteError) -> [String] {
        var seen = Set<String>()
        for (i, migration) in migrations.enumerated() where !seen.insert(migration.name).inserted {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message:
                "migration \(i + 1) repeats the name '\(migration.name)'; every migration needs a unique name")
        }
        try execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations(
                version INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                applied_at TEXT NOT NULL
            )
            """)
        let recorded = try query("SELECT version, name FROM schema_migrations ORDER BY version")
        for (i, row) in recorded.enumerated() {
            let version = row.int64("version") ?? 0
            let name = row.string("name") ?? ""
            guard version == Int64(i + 1) else {
                throw migrationError("the database at '\(path)' records migration \(version) '\(name)' but not version \(i + 1) before it; schema_migrations was edited by hand")
            }
            try checkRecorded(version: i + 1, name: name, against: migrations)
        }

        var applied: [String] = []
        for index in recorded.count ..< migrations.count {
            let migration = migrations[index]
            let version = index + 1
            do {
                let didApply = try transaction { () throws(SQLiteError) -> Bool in
                    // Another connection may have applied it since the list above was read.
                    if let row = try queryOne("SELECT name FROM schema_migrations WHERE version = ?", [.integer(Int64(version))]) {
                        try checkRecorded(version: version, name: row.string("name") ?? "", against: migrations)
                        return false
                    }
                    do throws(SQLiteError) {
                        try execute(migration.sql)
                    } catch {
                        throw SQLiteError(code: error.code, extendedCode: error.extendedCode,
                                          message: "migration \(version) '\(migration.name)' failed: \(error.message)")
                    }
                    try run("INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                            [.integer(Int64(version)), .text(migration.name)])
                    return true
                }
                if didApply { applied.append(migration.name) }
            } catch let error as SQLiteError {
                throw error
            } catch {
                throw migrationError("migration \(version) '\(migration.name)' failed: \(error)")
            }
        }
        return applied
    }

    /// Checks one recorded version against the code's list.
    private func checkRecorded(version: Int, name: String, against migrations: [SQLiteMigration]) throws(SQLiteError) {
        guard version <= migrations.count else {
            throw migrationError("the database at '\(path)' has migration \(version) '\(name)', but this program knows only \(migrations.count) migration(s): a newer Liveline wrote it; run that version or use another database")
        }
        let expected = migrations[version - 1].name
        guard name == expected else {
            throw migrationError("migration \(version) is recorded in '\(path)' as '\(name)' but the code names it '\(expected)': a migration was edited or reordered after release; restore it and add a new migration instead")
        }
    }

    private func migrationError(_ message: String) -> SQLiteError {
        SQLiteError(extendedCode: SQLITE_ERROR, message: message)
    }
}

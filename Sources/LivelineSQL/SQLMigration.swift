/// One step of a database schema: a name and the SQL that makes it.
///
/// Migrations are numbered by their position in the list given to `migrate(_:)` (the first is
/// version 1).
///
/// - Important: never edit, rename, reorder or remove a migration once released; add a new one.
///   `migrate` refuses a database whose recorded names differ from the code's.
public struct SQLMigration: Sendable {
    /// A unique, stable name, such as `"1-registry"`.
    public var name: String
    /// One or more statements, run with `execute(_:)` inside the migration's transaction.
    /// Statements that cannot run in a transaction (SQLite's `VACUUM`) do not belong here.
    public var sql: String

    /// Makes a migration from its name and SQL.
    public init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

extension SQLConnection {
    /// Applies, in order, the migrations not yet recorded in table
    /// `schema_migrations(version, name, applied_at)`, each in its own transaction. Version n is
    /// `migrations[n - 1]`; `applied_at` is UTC ISO 8601.
    ///
    /// Safe against another process migrating the same database at once: the run holds the
    /// driver's migration lock (`withMigrationLock`), and each step re-checks its version inside its
    /// transaction and skips a step another process recorded.
    ///
    /// - Parameter migrations: every migration the code knows, oldest first; names must be unique.
    /// - Returns: the names applied now (empty when the database was up to date).
    /// - Throws: the driver's error (`migrationError`), naming both names, if a recorded version has
    ///   a different name than the code's (a migration edited or reordered after release); naming
    ///   the versions if the database has more than the code knows (a newer Liveline wrote it) or
    ///   a gap in its record; and the migration's name and statement if its SQL fails (that
    ///   migration is rolled back, earlier ones stay applied).
    @discardableResult
    public func applyMigrations(_ migrations: [SQLMigration]) throws -> [String] {
        var seen = Set<String>()
        for (i, migration) in migrations.enumerated() where !seen.insert(migration.name).inserted {
            throw migrationError("migration \(i + 1) repeats the name '\(migration.name)'; every migration needs a unique name", cause: nil)
        }
        return try withMigrationLock {
            try execute(migrationTableSQL)
            let recorded = try query("SELECT version, name FROM schema_migrations ORDER BY version", [])
            for (i, row) in recorded.enumerated() {
                let version = row.int64("version") ?? 0
                let name = row.string("name") ?? ""
                guard version == Int64(i + 1) else {
                    throw migrationError("the database at '\(location)' records migration \(version) '\(name)' but not version \(i + 1) before it; schema_migrations was edited by hand", cause: nil)
                }
                try checkRecorded(version: i + 1, name: name, against: migrations)
            }
            var applied: [String] = []
            for index in recorded.count ..< migrations.count {
                let migration = migrations[index]
                let version = index + 1
                let didApply = try transaction { () throws -> Bool in
                    // Another process may have applied it since the list above was read.
                    if let row = try queryOne("SELECT name FROM schema_migrations WHERE version = $1", [.integer(Int64(version))]) {
                        try checkRecorded(version: version, name: row.string("name") ?? "", against: migrations)
                        return false
                    }
                    do {
                        try execute(migration.sql)
                    } catch {
                        let reason = (error as? any SQLError)?.message ?? "\(error)"
                        throw migrationError("migration \(version) '\(migration.name)' failed: \(reason)", cause: error)
                    }
                    try run("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, \(currentTimeSQL))",
                            [.integer(Int64(version)), .text(migration.name)])
                    return true
                }
                if didApply { applied.append(migration.name) }
            }
            return applied
        }
    }

    /// Checks one recorded version against the code's list.
    private func checkRecorded(version: Int, name: String, against migrations: [SQLMigration]) throws {
        guard version <= migrations.count else {
            throw migrationError("the database at '\(location)' has migration \(version) '\(name)', but this program knows only \(migrations.count) migration(s): a newer Liveline wrote it; run that version or use another database", cause: nil)
        }
        let expected = migrations[version - 1].name
        guard name == expected else {
            throw migrationError("migration \(version) is recorded in '\(location)' as '\(name)' but the code names it '\(expected)': a migration was edited or reordered after release; restore it and add a new migration instead", cause: nil)
        }
    }
}

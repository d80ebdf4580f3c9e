import CSQLite
import LivelineSQL

extension SQLiteDatabase {
    /// Applies, in order, the migrations not yet recorded in table
    /// `schema_migrations(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
    /// each in its own transaction: LivelineSQL's one migrator (`applyMigrations`), with SQLite's
    /// column types and clock.
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
        do {
            return try applyMigrations(migrations)
        } catch let error as SQLiteError {
            throw error
        } catch {
            throw SQLiteError(extendedCode: SQLITE_ERROR, message: "migrating '\(path)' failed: \(error)")
        }
    }

    public var migrationTableSQL: String {
        """
        CREATE TABLE IF NOT EXISTS schema_migrations(
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """
    }

    public var currentTimeSQL: String { "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" }

    /// Nothing: each step's `BEGIN IMMEDIATE` takes the file's write lock, and the step re-checks its version under it.
    public func withMigrationLock<T>(_ body: () throws -> T) throws -> T { try body() }

    public func migrationError(_ message: String, cause: (any Error)?) -> any Error {
        let code = (cause as? SQLiteError)?.extendedCode ?? SQLITE_ERROR
        return SQLiteError(extendedCode: code, message: message)
    }
}

/// One step of a database schema: a name and the SQL that makes it.
///
/// Migrations are numbered by their position in the list given to `SQLiteDatabase.migrate(_:)`
/// (the first is version 1).
///
/// - Important: never edit, rename, reorder or remove a migration once released; add a new one.
///   `migrate` refuses a database whose recorded names differ from the code's.
public struct SQLiteMigration: Sendable {
    /// A unique, stable name, such as `"create_tokens"`.
    public var name: String
    /// One or more statements, run with `execute(_:)` inside the migration's transaction.
    /// Statements that cannot run in a transaction (`VACUUM`, `PRAGMA journal_mode`) do not belong here.
    public var sql: String

    /// Makes a migration from its name and SQL.
    public init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

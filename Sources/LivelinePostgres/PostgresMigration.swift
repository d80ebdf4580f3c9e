/// One step of a database schema: a name and the SQL that makes it.
///
/// Migrations are numbered by their position in the list given to `PostgresConnection.migrate(_:)`
/// (the first is version 1).
///
/// - Important: never edit, rename, reorder or remove a migration once released; add a new one.
///   `migrate` refuses a database whose recorded names differ from the code's.
public struct PostgresMigration: Sendable {
    /// A unique, stable name, such as `"1-registry"`.
    public var name: String
    /// One or more statements, run with `execute(_:)` inside the migration's transaction.
    public var sql: String

    /// Makes a migration from its name and SQL.
    public init(_ name: String, _ sql: String) {
        self.name = name
        self.sql = sql
    }
}

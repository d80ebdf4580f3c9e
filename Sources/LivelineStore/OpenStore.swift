import LivelinePostgres

/// Opens the store a `database` setting names: a PostgreSQL URL (`postgres://…` or
/// `postgresql://…`, shared by several instances) or else an SQLite file path (one instance).
///
/// - Throws: `StoreError` naming the path or the redacted URL (never its password).
public func openStore(database: String) throws(StoreError) -> any Store {
    if PostgresConnectionString.isURL(database) { return try PostgresStore(url: database) }
    return try SQLiteStore(path: database)
}

/// One database connection, whichever the driver: what the store and the migrator need of it.
///
/// Module: LivelineSQL is what the SQL drivers share, Foundation-free and C-free: one value type
/// (`SQLValue`), one row type (`SQLRow`), this protocol, one migrator (`SQLMigration`,
/// `migrate(_:)`) and one error vocabulary (`SQLError`). LivelineSQLite and LivelinePostgres import
/// it and adopt `SQLConnection`; it imports no other Liveline module and no C library. What only
/// one driver has (PostgreSQL's LISTEN, SQLite's pragmas and group commit) stays in that driver.
///
/// One placeholder style: `$1`, `$2`, … numbered from 1, in every statement for every driver.
/// PostgreSQL reads them natively. SQLite reads `$1` as a *named* parameter: `SQLiteDatabase` asks
/// `sqlite3_bind_parameter_name` for each parameter once, when it prepares (and caches) the
/// statement, and binds `bindings[n - 1]` to the parameter named `$n`; so a number may repeat or
/// come out of order (`… $2 … $1 … $2`) as in PostgreSQL, and the SQL text is never rewritten.
/// (SQLite's own `?` and `?NNN` still bind by position.)
///
/// - Important: a connection is used by one thread at a time; its owner serializes every call.
public protocol SQLConnection: AnyObject {
    /// Where the database is, for people (a path, or a connection string without its password).
    var location: String { get }

    /// Runs one or more statements separated by `;`, with no bound values (schema changes).
    func execute(_ sql: String) throws

    /// Runs one statement with `bindings` for its `$1`, `$2`, … parameters.
    /// - Returns: the rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ bindings: [SQLValue]) throws -> Int

    /// Runs one statement and returns all its rows.
    func query(_ sql: String, _ bindings: [SQLValue]) throws -> [SQLRow]

    /// Runs one statement and returns its first row, or nil when it returns none.
    func queryOne(_ sql: String, _ bindings: [SQLValue]) throws -> SQLRow?

    /// Runs one statement and calls `body` with each row (a driver that can streams them).
    func forEachRow(_ sql: String, _ bindings: [SQLValue], _ body: (SQLRow) throws -> Void) throws

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    @discardableResult
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// Runs `body` in a savepoint of the open transaction: an error rolls back only what `body`
    /// did, and the transaction goes on if the caller catches it. Outside a transaction it throws.
    @discardableResult
    func savepoint<T>(_ body: () throws -> T) throws -> T

    // MARK: What the migrator needs of the driver

    /// The `CREATE TABLE IF NOT EXISTS schema_migrations (version, name, applied_at)` statement, in
    /// the driver's own column types (a database made by an earlier release must open unchanged).
    var migrationTableSQL: String { get }
    /// An SQL expression for the current UTC time as ISO 8601 with milliseconds (`applied_at`).
    var currentTimeSQL: String { get }
    /// Runs `body` holding whatever keeps two processes from migrating at once around the whole run
    /// (PostgreSQL: a session advisory lock; SQLite: nothing, each step's `BEGIN IMMEDIATE` does it).
    func withMigrationLock<T>(_ body: () throws -> T) throws -> T
    /// The driver's error for a migration problem (`cause`: the statement's own failure, whose codes it keeps).
    func migrationError(_ message: String, cause: (any Error)?) -> any Error
}

extension SQLConnection {
    /// Collects the rows, then calls `body` with each (drivers that cannot stream).
    public func forEachRow(_ sql: String, _ bindings: [SQLValue], _ body: (SQLRow) throws -> Void) throws {
        for row in try query(sql, bindings) { try body(row) }
    }
}

/// What every driver's error tells, so callers can judge an error without knowing the driver.
public protocol SQLError: Error, CustomStringConvertible {
    /// What went wrong, for people, naming the statement (never its values) or the database.
    var message: String { get }
    /// A constraint failed (UNIQUE, PRIMARY KEY, NOT NULL, CHECK, FOREIGN KEY).
    var isConstraintViolation: Bool { get }
    /// The connection is gone (PostgreSQL's server, network); never true of SQLite.
    var isConnectionLost: Bool { get }
}

/// SQL text as error messages show it.
public enum SQLText {
    /// The statement's first 200 characters, whitespace collapsed, "…" when cut.
    public static func excerpt(_ sql: String) -> String {
        var out = ""
        var count = 0
        var lastWasSpace = true
        for c in sql {
            let isSpace = c.isWhitespace
            if isSpace && lastWasSpace { continue }
            if count == 200 {
                while out.last?.isWhitespace == true { out.removeLast() }
                return out + "…"
            }
            out.append(isSpace ? " " : c)
            lastWasSpace = isSpace
            count += 1
        }
        while out.last?.isWhitespace == true { out.removeLast() }
        return out
    }
}

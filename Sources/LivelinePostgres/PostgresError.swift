import LivelineSQL

/// A failed PostgreSQL call: the SQLSTATE, and a message that names the statement (its first 200
/// characters) or the server (its redacted connection string), never the values bound to it nor a
/// password.
public struct PostgresError: SQLError, Sendable {
    /// The five-character SQLSTATE, such as `23505` (unique violation) or `57P01` (the server
    /// terminated the connection); nil when the failure happened in the client (connection lost,
    /// bad connection string). https://www.postgresql.org/docs/15/errcodes-appendix.html
    public var sqlState: String?
    /// What went wrong, for people.
    public var message: String
    /// The connection is gone or could not be made: the server stopped, the network failed, or the
    /// backend was terminated. The next call reconnects by itself.
    public var isConnectionLost: Bool

    public init(sqlState: String?, message: String, isConnectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.isConnectionLost = isConnectionLost
    }

    /// `23505`: a UNIQUE or PRIMARY KEY constraint failed.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// Class 23: a constraint failed (NOT NULL, FOREIGN KEY, UNIQUE, CHECK, EXCLUSION).
    public var isConstraintViolation: Bool { sqlState?.hasPrefix("23") ?? false }

    public var description: String {
        "PostgreSQL error\(sqlState.map { " \($0)" } ?? ""): \(message)"
    }

    /// Whether a server's SQLSTATE means the connection is gone: class 08 (connection exception),
    /// 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now), 53300 (too many connections).
    static func meansConnectionLost(_ sqlState: String?) -> Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(sqlState)
    }

    /// The statement as error messages show it: its first 200 characters, whitespace collapsed.
    static func excerpt(_ sql: String) -> String { SQLText.excerpt(sql) }

    static func misuse(_ message: String) -> PostgresError { PostgresError(sqlState: nil, message: message) }
}

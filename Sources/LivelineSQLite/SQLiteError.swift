import CSQLite
import LivelineSQL

/// A failed SQLite call: the result codes and a message that names the database file or the
/// SQL statement (its first 200 characters), never the values bound to it.
public struct SQLiteError: SQLError, Sendable {
    /// The primary result code, such as `SQLITE_CONSTRAINT` (19) or `SQLITE_BUSY` (5).
    /// https://www.sqlite.org/rescode.html
    public var code: Int32
    /// The extended result code, such as `SQLITE_CONSTRAINT_UNIQUE` (2067); equal to `code` when
    /// SQLite gives no detail.
    public var extendedCode: Int32
    /// What went wrong, for people: SQLite's message and the statement or file it concerns.
    public var message: String

    /// Makes an error from result codes and a message.
    public init(code: Int32, extendedCode: Int32, message: String) {
        self.code = code
        self.extendedCode = extendedCode
        self.message = message
    }

    /// Makes an error from an extended result code, taking the primary code from its low byte.
    init(extendedCode: Int32, message: String) {
        self.init(code: extendedCode & 0xff, extendedCode: extendedCode, message: message)
    }

    /// A constraint failed: UNIQUE, PRIMARY KEY, NOT NULL, CHECK or FOREIGN KEY.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// Never: an SQLite file does not go away like a server (`SQLError`).
    public var isConnectionLost: Bool { false }

    /// Another connection held a lock for longer than `Options.busyTimeout`.
    public var isBusy: Bool { code == SQLITE_BUSY }

    public var description: String {
        let name = String(cString: sqlite3_errstr(extendedCode))
        return "SQLite error \(extendedCode) (\(name)): \(message)"
    }
}

extension SQLiteError {
    /// `SQLITE_MISUSE`: the API was used wrongly (a closed database, wrong binding count).
    static func misuse(_ message: String) -> SQLiteError { SQLiteError(extendedCode: SQLITE_MISUSE, message: message) }

    /// The statement as error messages show it: its first 200 characters, whitespace collapsed.
    static func excerpt(_ sql: String) -> String { SQLText.excerpt(sql) }
}

import CSQLite
import LivelineSQL

/// One SQLite connection (`sqlite3 *`) with a cache of prepared statements.
///
/// ```swift
/// let db = try SQLiteDatabase(path: "/var/lib/liveline/liveline.db")
/// defer { db.close() }
/// try db.migrate(migrations)
/// try db.transaction {
///     try db.run("INSERT INTO tokens(id, token) VALUES ($1, $2) ON CONFLICT(id) DO UPDATE SET token = excluded.token",
///                ["a1", "f00d"])
/// }
/// let rows = try db.query("SELECT id, token FROM tokens WHERE id = $1", ["a1"])
/// ```
///
/// - Important: thread confinement. A connection is used by one thread at a time: its owner
///   serializes every call (an actor, a `Mutex`, or a serial queue holding the connection), and
///   rows never escape as pointers, only as `SQLiteRow` values. SQLite is opened in multi-thread
///   mode (`SQLITE_OPEN_NOMUTEX`), so it does not lock the connection itself; two threads calling
///   one connection at once is undefined behaviour. That rule, not the compiler, is why the class
///   is `@unchecked Sendable`. Give each concurrent reader its own connection: in WAL mode readers
///   never block the writer and see every committed transaction.
///
/// - Important: call `close()` when done; `deinit` closes a connection that was not closed, but
///   at an unpredictable moment.
///
/// Double-quoted string literals are turned off (`SQLITE_DBCONFIG_DQS_DML`/`DDL`): write strings
/// in single quotes; `"name"` is always an identifier.
///
/// Parameters: `$1`, `$2`, … (LivelineSQL's one placeholder style, bound by name: a number may
/// repeat or come out of order), or SQLite's own `?` and `?NNN` (bound by position).
///
/// Module: LivelineSQLite owns one SQLite connection: statements, rows, transactions, its pragmas,
/// and LivelineSQL's `SQLConnection` (values, rows and the migrator are LivelineSQL's). It imports
/// SQLite's C library and LivelineSQL only: what the tables mean is LivelineStore's business.
public final class SQLiteDatabase: SQLConnection, @unchecked Sendable {
    /// How a connection is set up when it opens.
    public struct Options: Sendable {
        /// `PRAGMA synchronous` values. https://www.sqlite.org/pragma.html#pragma_synchronous
        public enum Synchronous: String, Sendable {
            /// No fsync; a power loss can corrupt the database.
            case off = "OFF"
            /// In WAL mode: fsync at checkpoints only. A power loss can undo the last commits, never corrupt.
            case normal = "NORMAL"
            /// fsync on every commit.
            case full = "FULL"
        }

        /// Switch to WAL journal mode (persistent in the file), so readers and the writer do not
        /// block each other. Opening fails if SQLite cannot switch (a file system without shared
        /// memory). Ignored for `readOnly` connections and in-memory databases.
        public var journalModeWAL = true
        /// `PRAGMA synchronous`.
        public var synchronous: Synchronous = .normal
        /// How long a statement waits for another connection's lock before failing with
        /// `SQLiteError.isBusy` (`sqlite3_busy_timeout`; millisecond resolution).
        public var busyTimeout: Duration = .seconds(5)
        /// `PRAGMA foreign_keys`: enforce `REFERENCES` constraints.
        public var foreignKeys = true
        /// Open with `SQLITE_OPEN_READONLY`; the file must exist.
        public var readOnly = false
        /// `PRAGMA locking_mode=EXCLUSIVE`, set before WAL: the connection holds the file's lock from
        /// its first access until it closes, so no other connection or process can use the file, and
        /// SQLite skips the shared-memory index and most file locking on each commit.
        /// https://www.sqlite.org/pragma.html#pragma_locking_mode
        public var exclusive = false
        /// `PRAGMA cache_size` in KiB: the most memory the connection's page cache holds (SQLite's
        /// default is 2,000 KiB). A transaction that dirties more pages than fit spills them to the
        /// journal early and reads them back. nil keeps SQLite's default.
        public var cacheSizeKiB: Int?

        public init() {}
    }

    /// The path the connection was opened with.
    public let path: String
    /// The path, for people (`SQLConnection`).
    public var location: String { path }

    /// The connection; nil once closed.
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text.
    private var statements: [String: SQLiteStatement] = [:]
    /// How deep `transaction` calls are nested inside the outermost one (savepoint names).
    private var savepointDepth = 0

    /// More distinct statements than this evict one cached statement (SQL built at run time, such
    /// as `IN (?, ?, …)` lists of varying length, must not grow the cache without bound).
    static let statementCacheLimit = 256

    /// Opens (and creates, unless `readOnly`) the database at `path` and applies `options`.
    ///
    /// - Parameters:
    ///   - path: a file path, or `":memory:"` for a private in-memory database.
    ///   - options: journal mode, synchronous, busy timeout, foreign keys, read-only.
    /// - Throws: `SQLiteError` naming `path` when the file cannot be opened or created (a missing
    ///   directory, permissions, not a database) or a PRAGMA fails; the handle is closed first.
    public init(path: String, options: Options = Options()) throws(SQLiteError) {
        self.path = path
        var flags = options.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        // https://www.sqlite.org/c3ref/open.html: multi-thread mode (see the confinement rule) and
        // extended result codes.
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            // sqlite3_open_v2 usually returns a handle even on failure; it holds the message.
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(db)
            let hint = code & 0xff == SQLITE_CANTOPEN
                ? (options.readOnly ? " (does the file exist and is it readable?)" : " (does the directory exist and is it writable?)")
                : ""
            throw SQLiteError(extendedCode: code, message: "cannot open the SQLite database '\(path)': \(reason)\(hint)")
        }
        handle = db
        do {
            try configure(db, options)
        } catch {
            close()
            throw SQLiteError(code: error.code, extendedCode: error.extendedCode,
                              message: "cannot open the SQLite database '\(path)': \(error.message)")
        }
    }

    deinit {
        close()
    }

    private func configure(_ db: OpaquePointer, _ options: Options) throws(SQLiteError) {
        let (seconds, attoseconds) = options.busyTimeout.components
        let milliseconds = seconds >= Int64(Int32.max) / 1000 ? Int64(Int32.max) : max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        try check(sqlite3_busy_timeout(db, Int32(milliseconds)), db, "setting the busy timeout")
        try check(liveline_sqlite3_disable_double_quoted_strings(db), db, "turning off double-quoted strings")
        if options.exclusive {
            _ = try pragma("PRAGMA locking_mode=EXCLUSIVE", db)
        }
        if let kib = options.cacheSizeKiB {
            guard kib > 0 else { throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "cacheSizeKiB must be positive, got \(kib)") }
            _ = try pragma("PRAGMA cache_size=-\(kib)", db)
        }
        if options.journalModeWAL && !options.readOnly {
            let mode = try pragma("PRAGMA journal_mode=WAL", db)?.lowercasedASCII
            let inMemory = path == ":memory:" || path.isEmpty
            if !inMemory && mode != "wal" {
                throw SQLiteError(extendedCode: SQLITE_ERROR, message:
                    "SQLite kept journal mode '\(mode ?? "none")' instead of switching to WAL (WAL needs a local file system with shared memory; or set Options.journalModeWAL = false)")
            }
        }
        _ = try pragma("PRAGMA synchronous=\(options.synchronous.rawValue)", db)
        _ = try pragma("PRAGMA foreign_keys=\(options.foreignKeys ? "ON" : "OFF")", db)
    }

    /// Runs a PRAGMA without caching it and returns the first column of its first row as text.
    private func pragma(_ sql: String, _ db: OpaquePointer) throws(SQLiteError) -> String? {
        let statement = try prepare(sql, db, cached: false)
        defer { statement.finalize() }
        let rc = sqlite3_step(statement.handle)
        switch rc {
        case SQLITE_ROW: return statement.row()[0].textValue
        case SQLITE_DONE: return nil
        default: throw failure(db, statement.sql)
        }
    }

    // MARK: - Running SQL

    /// Runs one or more statements separated by `;`, with no bound values (schema, PRAGMAs).
    /// Rows they return are discarded. Statements are not cached.
    ///
    /// - Throws: `SQLiteError` naming the statement that failed; the ones before it stay run.
    public func execute(_ sql: String) throws(SQLiteError) {
        let db = try connection()
        let failure: SQLiteError? = sql.withCString { start -> SQLiteError? in
            var rest = start
            while rest.pointee != 0 {
                var statement: OpaquePointer?
                var next: UnsafePointer<CChar>?
                let rc = sqlite3_prepare_v2(db, rest, -1, &statement, &next)
                guard rc == SQLITE_OK else {
                    // The tail points where parsing stopped; name the text up to the next `;` after it.
                    var end = max(next ?? rest, rest)
                    while end.pointee != 0 && end.pointee != 0x3b { end += 1 }
                    if end.pointee == 0x3b { end += 1 }
                    return self.failure(db, String(decoding: UnsafeRawBufferPointer(start: rest, count: end - rest), as: UTF8.self))
                }
                let text = next.map { String(decoding: UnsafeRawBufferPointer(start: rest, count: $0 - rest), as: UTF8.self) }
                    ?? String(cString: rest)
                if let statement {
                    var step = sqlite3_step(statement)
                    while step == SQLITE_ROW { step = sqlite3_step(statement) }
                    let error = step == SQLITE_DONE ? nil : self.failure(db, text)
                    sqlite3_finalize(statement)
                    if let error { return error }
                }
                guard let next, next != rest else { break }
                rest = next
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Runs one statement with `bindings` for its `$n` (or `?`) parameters, stepping it to the end.
    ///
    /// - Returns: the rows it inserted, updated or deleted (`sqlite3_changes`; triggers not
    ///   counted); 0 for statements that change nothing, such as `CREATE TABLE` or `SELECT`.
    /// - Throws: `SQLiteError` naming the statement (not the values): constraint violations
    ///   (`isConstraintViolation`), a wrong number of bindings, a lock held past the busy timeout.
    @discardableResult
    public func run(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        let db = try connection()
        let statement = try checkOut(sql, db)
        defer { checkIn(statement) }
        try statement.bind(bindings, db: db)
        let before = sqlite3_total_changes64(db)
        var rc = sqlite3_step(statement.handle)
        while rc == SQLITE_ROW { rc = sqlite3_step(statement.handle) }
        guard rc == SQLITE_DONE else { throw failure(db, sql) }
        return sqlite3_total_changes64(db) == before ? 0 : Int(sqlite3_changes64(db))
    }

    /// Runs one statement and returns all its rows.
    ///
    /// - Throws: `SQLiteError` naming the statement.
    public func query(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        let db = try connection()
        let statement = try checkOut(sql, db)
        defer { checkIn(statement) }
        try statement.bind(bindings, db: db)
        var rows: [SQLiteRow] = []
        while true {
            let rc = sqlite3_step(statement.handle)
            if rc == SQLITE_ROW { rows.append(statement.row()) } else if rc == SQLITE_DONE { return rows } else { throw failure(db, sql) }
        }
    }

    /// Runs one statement and returns its first row, or nil if it returns none. The statement
    /// is not stepped further.
    ///
    /// - Throws: `SQLiteError` naming the statement.
    public func queryOne(_ sql: String, _ bindings: [SQLiteValue] = []) throws(SQLiteError) -> SQLiteRow? {
        let db = try connection()
        let statement = try checkOut(sql, db)
        defer { checkIn(statement) }
        try statement.bind(bindings, db: db)
        switch sqlite3_step(statement.handle) {
        case SQLITE_ROW: return statement.row()
        case SQLITE_DONE: return nil
        default: throw failure(db, sql)
        }
    }

    /// Runs one statement and calls `body` with each row as SQLite produces it, without holding
    /// the whole result in memory.
    ///
    /// - Important: in WAL mode the scan reads one snapshot and keeps its read transaction open
    ///   until it ends, which holds back checkpoints; keep `body` short.
    /// - Throws: `SQLiteError` naming the statement, or whatever `body` throws (the scan stops).
    public func forEachRow(_ sql: String, _ bindings: [SQLiteValue], _ body: (SQLiteRow) throws -> Void) throws {
        let db = try connection()
        let statement = try checkOut(sql, db)
        defer { checkIn(statement) }
        try statement.bind(bindings, db: db)
        while true {
            guard !statement.isFinalized else {
                throw SQLiteError.misuse("the SQLite database '\(path)' was closed during forEachRow over: \(SQLiteError.excerpt(sql))")
            }
            let rc = sqlite3_step(statement.handle)
            if rc == SQLITE_ROW { try body(statement.row()) } else if rc == SQLITE_DONE { return } else { throw failure(db, sql) }
        }
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (the write lock is taken up front, so the
    /// transaction cannot fail later with a busy upgrade), then `COMMIT`; any error thrown by
    /// `body` or by `COMMIT` rolls back and is rethrown.
    ///
    /// Called inside another transaction (or after a manual `BEGIN`), it uses a SAVEPOINT:
    /// an error rolls back only what the inner `body` did, and the outer transaction continues
    /// if the caller catches the error.
    ///
    /// - Returns: what `body` returns (discardable: a body ending in `run` returns its change count).
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let db = try connection()
        if sqlite3_get_autocommit(db) != 0 {
            try run("BEGIN IMMEDIATE")
            let result: T
            do {
                result = try body()
                try run("COMMIT")
            } catch {
                rollback(db, to: nil)
                throw error
            }
            return result
        }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "liveline_savepoint_\(savepointDepth)"
        try run("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
            try run("RELEASE \(name)")
        } catch {
            rollback(db, to: name)
            throw error
        }
        return result
    }

    /// Runs `body` in a savepoint of the open transaction (`transaction(_:)` nested inside another).
    ///
    /// - Throws: `SQLiteError` (`SQLITE_MISUSE`) outside a transaction, or what `body` throws (rolled back to the savepoint).
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        guard isInTransaction else { throw SQLiteError.misuse("savepoint(_:) outside a transaction on '\(path)'") }
        return try transaction(body)
    }

    /// Rolls back the transaction or to a savepoint, ignoring errors: SQLite may already have
    /// rolled back by itself (after `SQLITE_FULL`, `SQLITE_IOERR`, …), and the first error is
    /// the one worth reporting.
    private func rollback(_ db: OpaquePointer, to savepoint: String?) {
        guard sqlite3_get_autocommit(db) == 0 else { return }
        if let savepoint {
            _ = try? run("ROLLBACK TO \(savepoint)")
            _ = try? run("RELEASE \(savepoint)")
        } else {
            _ = try? run("ROLLBACK")
        }
    }

    // MARK: - State

    /// The rowid of the most recent successful INSERT on this connection (0 if none or closed).
    public var lastInsertRowID: Int64 {
        handle.map { sqlite3_last_insert_rowid($0) } ?? 0
    }

    /// The rows inserted, updated or deleted since the connection opened, triggers included (0 once closed).
    public var totalChanges: Int {
        handle.map { Int(sqlite3_total_changes64($0)) } ?? 0
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// Whether a transaction is open (SQLite rolls one back by itself after some errors, such as
    /// `SQLITE_FULL` or `SQLITE_IOERR`; this tells).
    public var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// Finalizes the cached statements and closes the connection (`sqlite3_close_v2`).
    /// Calling it again does nothing; any later call on the connection throws `SQLITE_MISUSE`.
    public func close() {
        guard let db = handle else { return }
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        handle = nil
        // close_v2 never fails: with a statement still stepping (close inside forEachRow), the
        // connection stays alive as a zombie until that statement is finalized.
        sqlite3_close_v2(db)
    }

    /// The SQLite library's version, such as "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    // MARK: - Statements

    private func connection() throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError.misuse("the SQLite database '\(path)' is closed") }
        return handle
    }

    /// A statement for `sql` to step: the cached one, or a fresh one if the cached one is
    /// stepping already. Give it back with `checkIn`.
    private func checkOut(_ sql: String, _ db: OpaquePointer) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            if !cached.inUse {
                cached.inUse = true
                return cached
            }
            let temporary = try prepare(sql, db, cached: false)
            temporary.inUse = true
            return temporary
        }
        let statement = try prepare(sql, db, cached: true)
        if statements.count >= Self.statementCacheLimit,
           let victim = statements.first(where: { !$0.value.inUse }) {
            victim.value.finalize()
            statements.removeValue(forKey: victim.key)
        }
        statements[sql] = statement
        statement.inUse = true
        return statement
    }

    private func checkIn(_ statement: SQLiteStatement) {
        statement.inUse = false
        if statement.isCached && statements[statement.sql] === statement {
            statement.reset()
        } else {
            statement.finalize()
        }
    }

    /// Prepares exactly one statement.
    ///
    /// - Throws: `SQLiteError` naming the statement if it does not compile, is empty, or is
    ///   followed by another statement (`execute` runs several).
    private func prepare(_ sql: String, _ db: OpaquePointer, cached: Bool) throws(SQLiteError) -> SQLiteStatement {
        // https://www.sqlite.org/c3ref/prepare.html: PERSISTENT hints that the statement is kept.
        let flags = cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        var extra = false
        var handle: OpaquePointer?
        let rc = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v3(db, start, -1, flags, &handle, &tail)
            if rc == SQLITE_OK, let tail, tail.pointee != 0 {
                // Only whitespace and comments may follow; preparing them yields no statement.
                var next: OpaquePointer?
                let tailRC = sqlite3_prepare_v2(db, tail, -1, &next, nil)
                extra = tailRC != SQLITE_OK || next != nil
                sqlite3_finalize(next)
            }
            return rc
        }
        guard rc == SQLITE_OK else { throw failure(db, sql) }
        guard let handle else {
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message: "the SQL text holds no statement: '\(SQLiteError.excerpt(sql))'")
        }
        guard !extra else {
            sqlite3_finalize(handle)
            throw SQLiteError(extendedCode: SQLITE_MISUSE, message:
                "run, query, queryOne and forEachRow take one statement; use execute(_:) for several, in: \(SQLiteError.excerpt(sql))")
        }
        return SQLiteStatement(handle: handle, sql: sql, isCached: cached)
    }

    /// The connection's latest error, naming the statement but none of its bound values.
    private func failure(_ db: OpaquePointer, _ sql: String) -> SQLiteError {
        SQLiteError(extendedCode: sqlite3_extended_errcode(db),
                    message: "\(String(cString: sqlite3_errmsg(db))), in statement: \(SQLiteError.excerpt(sql))")
    }

    private func check(_ rc: Int32, _ db: OpaquePointer, _ what: String) throws(SQLiteError) {
        guard rc == SQLITE_OK else {
            throw SQLiteError(extendedCode: rc, message: "\(what) failed: \(String(cString: sqlite3_errstr(rc)))")
        }
    }
}

extension SQLiteValue {
    /// The text of a `.text` value (PRAGMA answers).
    var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }
}

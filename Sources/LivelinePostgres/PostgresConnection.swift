#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ
import LivelineSQL

/// One PostgreSQL connection (`PGconn *`, libpq) running parameterized statements.
///
/// ```swift
/// let db = try PostgresConnection("postgres://liveline:secret@db.internal/liveline")
/// defer { db.close() }
/// try db.transaction {
///     try db.run("INSERT INTO tokens (id, token) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET token = excluded.token",
///                ["a1", "f00d"])
/// }
/// let rows = try db.query("SELECT id, token FROM tokens WHERE id = $1", ["a1"])
/// print(db.location)  // postgres://liveline:***@db.internal/liveline
/// ```
///
/// Statements are sent with `PQexecParams`: values travel apart from the SQL text, never spliced
/// into it. Errors carry the SQLSTATE and the statement, never the bound values (the server's
/// DETAIL line, which quotes key values, is left out) and never the password.
///
/// - Important: thread confinement. A connection is used by one thread at a time: its owner
///   serializes every call (a lock, an actor or a serial queue holding the connection), and rows
///   never escape as pointers, only as `PostgresRow` values. libpq does not lock a `PGconn`;
///   two threads calling one connection at once is undefined behaviour. That rule, not the
///   compiler, is why the class is `@unchecked Sendable`.
///
/// - Important: a lost connection (the server restarted, the network failed, the backend was
///   terminated) fails the call in progress with `PostgresError.isConnectionLost`; the next call
///   outside a transaction reconnects by itself (`PQreset`). A transaction whose connection was
///   lost fails to its end: nothing it did is kept, and nothing after it runs outside it.
///
/// Module: LivelinePostgres owns one PostgreSQL connection through libpq: statements, typed rows,
/// errors, reconnection, listeners, and LivelineSQL's `SQLConnection` (values, rows and the
/// migrator are LivelineSQL's). It imports libpq and LivelineSQL only: what the tables mean is
/// LivelineStore's business.
public final class PostgresConnection: SQLConnection, @unchecked Sendable {
    /// How a connection is made.
    public struct Options: Sendable {
        /// How long connecting (and reconnecting) may take before it fails (libpq's
        /// `connect_timeout`, whole seconds, at least 2). A `connect_timeout` in the connection string wins.
        public var connectTimeout: Duration = .seconds(10)
        /// `application_name` shown in `pg_stat_activity`, unless the connection string sets one.
        public var applicationName = "liveline"
        public init() {}
    }

    /// The connection string as given; print only `location`.
    public let connectionString: PostgresConnectionString
    /// Where the connection goes, for people: the connection string with its password as `***`.
    public var location: String { connectionString.redacted }

    private let options: Options
    /// The connection; nil once closed.
    private var handle: OpaquePointer?
    /// Inside `transaction`: a lost connection must not be replaced by a fresh one mid-way.
    private var inTransaction = false
    /// How deep `savepoint` calls are nested (savepoint names).
    private var savepointDepth = 0

    /// Connects.
    ///
    /// - Parameter connectionString: a `postgres://` or `postgresql://` URL, or libpq's
    ///   `keyword=value` form. https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNSTRING
    /// - Throws: `PostgresError` with `isConnectionLost`, naming the redacted connection string and
    ///   libpq's reason (the server is down, the database does not exist, authentication failed).
    public init(_ connectionString: String, options: Options = Options()) throws(PostgresError) {
        self.connectionString = PostgresConnectionString(connectionString)
        self.options = options
        handle = try connect()
    }

    deinit {
        close()
    }

    private func connect() throws(PostgresError) -> OpaquePointer {
        let seconds = max(2, options.connectTimeout.components.seconds)
        // Later entries win, and dbname expands the whole connection string: what it sets overrides the defaults before it.
        let conn = Self.withCStrings(["connect_timeout", "fallback_application_name", "dbname"]) { keywords in
            Self.withCStrings([String(seconds), options.applicationName, connectionString.raw]) { values in
                PQconnectdbParams(keywords, values, 1)
            }
        }
        guard let conn else { throw PostgresError(sqlState: nil, message: "cannot connect to PostgreSQL at '\(location)': out of memory", isConnectionLost: true) }
        guard PQstatus(conn) == CONNECTION_OK else {
            let reason = clientMessage(conn)
            PQfinish(conn)
            throw PostgresError(sqlState: nil, message: "cannot connect to PostgreSQL at '\(location)': \(reason)", isConnectionLost: true)
        }
        liveline_PQsilenceNotices(conn)
        return conn
    }

    /// NUL-terminated copies of `strings` in one buffer, and a NULL-terminated array of pointers to them.
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        var arena: [CChar] = []
        var offsets: [Int] = []
        for s in strings {
            offsets.append(arena.count)
            arena += s.utf8.map { CChar(bitPattern: $0) }
            arena.append(0)
        }
        return arena.withUnsafeBufferPointer { buffer in
            var pointers: [UnsafePointer<CChar>?] = offsets.map { buffer.baseAddress! + $0 }
            pointers.append(nil)
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }

    // MARK: - Running SQL

    /// Runs one or more statements separated by `;` with no bound values (schema changes), through
    /// the simple query protocol. Rows they return are discarded.
    ///
    /// - Throws: `PostgresError` naming the script (its first 200 characters).
    public func execute(_ sql: String) throws(PostgresError) {
        let conn = try connection()
        let result = PQexec(conn, sql)
        try check(result, conn, sql)
        PQclear(result)
    }

    /// Runs one statement with `bindings` for its `$1`, `$2`, … parameters.
    ///
    /// - Returns: the rows it inserted, updated, deleted or returned (`PQcmdTuples`); 0 for
    ///   statements that count nothing, such as `CREATE TABLE`.
    /// - Throws: `PostgresError` naming the statement (not the values): constraint violations
    ///   (`isUniqueViolation`, `isConstraintViolation`), syntax errors, a lost connection.
    @discardableResult
    public func run(_ sql: String, _ bindings: [PostgresValue] = []) throws(PostgresError) -> Int {
        let result = try exec(sql, bindings)
        defer { PQclear(result) }
        return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    /// Runs one statement and returns all its rows.
    ///
    /// - Throws: `PostgresError` naming the statement.
    public func query(_ sql: String, _ bindings: [PostgresValue] = []) throws(PostgresError) -> [PostgresRow] {
        let result = try exec(sql, bindings)
        defer { PQclear(result) }
        return Self.rows(result)
    }

    /// Runs one statement and returns its first row, or nil if it returns none.
    ///
    /// - Throws: `PostgresError` naming the statement.
    public func queryOne(_ sql: String, _ bindings: [PostgresValue] = []) throws(PostgresError) -> PostgresRow? {
        try query(sql, bindings).first
    }

    // MARK: - Transactions

    /// Runs `body` in a transaction (`BEGIN` … `COMMIT`, READ COMMITTED); any error thrown by
    /// `body` or by `COMMIT` rolls back and is rethrown. A transaction the server aborted (a
    /// statement in it failed and `body` caught the error) is rolled back and reported, not committed.
    ///
    /// - Throws: what `body` throws, or `PostgresError`; a transaction inside a transaction is refused.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        guard !inTransaction else { throw PostgresError.misuse("transaction(_:) inside a transaction on '\(location)'; PostgresConnection does not nest them") }
        try run("BEGIN")
        inTransaction = true
        defer { inTransaction = false }
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw error
        }
        let commit = try exec("COMMIT", [])
        defer { PQclear(commit) }
        if let status = PQcmdStatus(commit), String(cString: status) == "ROLLBACK" {
            throw PostgresError(sqlState: "25P02", message: "the transaction was rolled back: a statement in it failed and its error was caught")
        }
        return result
    }

    /// Runs `body` in a savepoint of the open transaction (`SAVEPOINT` … `RELEASE`): an error rolls
    /// back only what `body` did (`ROLLBACK TO`), and the transaction goes on if the caller catches it.
    ///
    /// - Throws: `PostgresError` outside a transaction, or what `body` throws.
    @discardableResult
    public func savepoint<T>(_ body: () throws -> T) throws -> T {
        guard inTransaction else { throw PostgresError.misuse("savepoint(_:) outside a transaction on '\(location)'") }
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "liveline_savepoint_\(savepointDepth)"
        try run("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body()
        } catch {
            if let conn = handle, PQstatus(conn) == CONNECTION_OK {
                PQclear(PQexec(conn, "ROLLBACK TO SAVEPOINT \(name)"))
                PQclear(PQexec(conn, "RELEASE SAVEPOINT \(name)"))
            }
            throw error
        }
        try run("RELEASE SAVEPOINT \(name)")
        return result
    }

    /// Rolls back, ignoring errors: the server may already have ended the transaction, and the
    /// first error is the one worth reporting.
    private func rollback() {
        guard let conn = handle, PQstatus(conn) == CONNECTION_OK, PQtransactionStatus(conn) != PQTRANS_IDLE else { return }
        PQclear(PQexec(conn, "ROLLBACK"))
    }

    // MARK: - State

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// Whether the connection is up, as far as libpq knows (a server gone quietly shows at the next call).
    public var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The server process serving this connection (`pg_backend_pid()`), 0 when closed or lost.
    public var backendPID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// The server's version number, such as 150018 for 15.18; 0 when closed or lost.
    public var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// libpq's version, such as "15.18".
    public static var libraryVersion: String {
        let v = Int(PQlibVersion())
        return "\(v / 10000).\(v % 10000)"
    }

    /// Reconnects if the connection was lost (outside a transaction; `run`, `query` and
    /// `transaction` call it themselves).
    ///
    /// - Throws: `PostgresError` with `isConnectionLost` when the server still cannot be reached.
    public func reconnectIfNeeded() throws(PostgresError) {
        _ = try connection()
    }

    /// Closes the connection (`PQfinish`). Calling it again does nothing; later calls throw.
    public func close() {
        guard let conn = handle else { return }
        handle = nil
        PQfinish(conn)
    }

    // MARK: - Notifications

    /// What `waitForNotifications` saw.
    public enum NotificationWait: Sendable {
        /// One or more notifications arrived (on a channel this connection `LISTEN`s to).
        case notified
        /// Nothing within the timeout.
        case timedOut
        /// The connection is gone (or closed); `reconnectIfNeeded()` makes it again.
        case lost
    }

    /// Waits up to `timeoutMilliseconds` for notifications on the connection's socket (`poll`,
    /// `PQconsumeInput`, `PQnotifies`) and consumes all that arrived.
    public func waitForNotifications(timeoutMilliseconds: Int32) -> NotificationWait {
        guard let conn = handle, PQstatus(conn) == CONNECTION_OK else { return .lost }
        if Self.drainNotifications(conn) { return .notified }
        var descriptor = pollfd(fd: PQsocket(conn), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) > 0 else { return .timedOut }
        guard PQconsumeInput(conn) != 0, PQstatus(conn) == CONNECTION_OK else { return .lost }
        return Self.drainNotifications(conn) ? .notified : .timedOut
    }

    private static func drainNotifications(_ conn: OpaquePointer) -> Bool {
        var any = false
        while let notification = PQnotifies(conn) {
            any = true
            PQfreemem(notification)
        }
        return any
    }

    // MARK: - Internals

    /// The open connection, reconnected first if it was lost outside a transaction.
    private func connection() throws(PostgresError) -> OpaquePointer {
        guard let conn = handle else { throw PostgresError.misuse("the PostgreSQL connection to '\(location)' is closed") }
        if PQstatus(conn) == CONNECTION_OK { return conn }
        guard !inTransaction else {
            throw PostgresError(sqlState: nil, message: "the connection to PostgreSQL at '\(location)' was lost during the transaction; it was rolled back", isConnectionLost: true)
        }
        PQreset(conn)
        guard PQstatus(conn) == CONNECTION_OK else {
            throw PostgresError(sqlState: nil, message: "cannot reconnect to PostgreSQL at '\(location)': \(clientMessage(conn))", isConnectionLost: true)
        }
        return conn
    }

    /// Sends one statement with its parameters (text format; bytea binary) and checks the answer.
    private func exec(_ sql: String, _ bindings: [PostgresValue]) throws(PostgresError) -> OpaquePointer {
        let conn = try connection()
        var arena: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var types: [UInt32] = []
        for value in bindings {
            let (oid, binary) = value.parameterType
            types.append(oid)
            formats.append(binary ? 1 : 0)
            if let bytes = value.parameterBytes {
                offsets.append(arena.count)
                arena += bytes
                if !binary { arena.append(0) }
                lengths.append(Int32(clamping: bytes.count))
            } else {
                offsets.append(nil)
                lengths.append(0)
            }
        }
        arena.append(0)  // a base address even with no parameters
        let result = arena.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return PQexecParams(conn, sql, Int32(bindings.count), types, values, lengths, formats, 0)
        }
        try check(result, conn, sql)
        return result!
    }

    /// Throws unless `result` reports success (it is cleared first).
    private func check(_ result: OpaquePointer?, _ conn: OpaquePointer, _ sql: String) throws(PostgresError) {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        }
        let error = failure(conn, result, sql)
        PQclear(result)
        throw error
    }

    /// The error of a failed statement: the SQLSTATE and the primary message with the statement.
    private func failure(_ conn: OpaquePointer, _ result: OpaquePointer?, _ sql: String) -> PostgresError {
        let state = result.flatMap { liveline_PQresultSQLState($0) }.map { String(cString: $0) }
        var text = result.flatMap { liveline_PQresultPrimaryMessage($0) }.map { String(cString: $0) } ?? clientMessage(conn)
        // A data exception (class 22) quotes the offending value after the colon: leave it out.
        if state?.hasPrefix("22") == true, let colon = text.firstRange(of: ": ") { text = String(text[..<colon.lowerBound]) }
        let lost = PQstatus(conn) != CONNECTION_OK || PostgresError.meansConnectionLost(state)
        let prefix = lost ? "the connection to PostgreSQL at '\(location)' was lost: " : ""
        return PostgresError(sqlState: state, message: prefix + connectionString.scrub(text) + ", in statement: \(PostgresError.excerpt(sql))",
                             isConnectionLost: lost)
    }

    /// libpq's message for the connection, on one line, with any password scrubbed.
    private func clientMessage(_ conn: OpaquePointer) -> String {
        let text = PQerrorMessage(conn).map { String(cString: $0) } ?? ""
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingSpaces }.filter { !$0.isEmpty }
        return connectionString.scrub(lines.isEmpty ? "unknown error" : lines.joined(separator: "; "))
    }

    private static func rows(_ result: OpaquePointer) -> [PostgresRow] {
        let count = PQntuples(result)
        let fields = PQnfields(result)
        guard count > 0 else { return [] }
        let names = (0..<fields).map { String(cString: PQfname(result, $0)) }
        let types = (0..<fields).map { PQftype(result, $0) }
        let layout = SQLColumns(names: names)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(count))
        for r in 0..<count {
            var values: [PostgresValue] = []
            values.reserveCapacity(Int(fields))
            for c in 0..<fields {
                if PQgetisnull(result, r, c) != 0 {
                    values.append(.null)
                } else {
                    values.append(PostgresValue.decode(text: UnsafePointer(PQgetvalue(result, r, c)), length: Int(PQgetlength(result, r, c)), type: types[Int(c)]))
                }
            }
            rows.append(PostgresRow(layout: layout, values: values))
        }
        return rows
    }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}

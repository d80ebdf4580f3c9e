import Dispatch
import LivelinePostgres
import LivelineTesting
import Testing

@Suite("PostgreSQL connection on a real server", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct PostgresConnectionTests {
    /// Runs `body` on a connection to a new, empty database.
    func withDatabase(_ body: (PostgresConnection, TestDatabase) throws -> Void) throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let db = try PostgresConnection(database.url())
        defer { db.close() }
        try body(db, database)
    }

    @Test("values round-trip exactly: integers, doubles, text, bytes with zeros, booleans, NULL")
    func roundTrip() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE v (i BIGINT, d DOUBLE PRECISION, t TEXT, b BYTEA, f BOOLEAN)")
            let doubles: [Double] = [1_800_000_000.123456, 0.1, -0.0, 1e-300, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
            let bytes: [UInt8] = (0...255).map { UInt8($0) } + [0]
            for (n, d) in doubles.enumerated() {
                try db.run("INSERT INTO v VALUES ($1, $2, $3, $4, $5)", [.integer(Int64.min + Int64(n)), .real(d), .text("flight ✈︎ \(n) 'quoted' $1"), .bytea(n == 0 ? [] : bytes), .bool(n % 2 == 0)])
            }
            try db.run("INSERT INTO v VALUES ($1, $2, $3, $4, $5)", [nil, nil, nil, nil, nil])
            let rows = try db.query("SELECT * FROM v ORDER BY i NULLS LAST")
            #expect(rows.count == doubles.count + 1)
            for (n, d) in doubles.enumerated() {
                #expect(rows[n].int64("i") == Int64.min + Int64(n))
                #expect(rows[n].double("d")?.bitPattern == d.bitPattern)
                #expect(rows[n].string("t") == "flight ✈︎ \(n) 'quoted' $1")
                #expect(rows[n].bytes("b") == (n == 0 ? [] : bytes))
                #expect(rows[n].bool("f") == (n % 2 == 0))
            }
            #expect(rows.last?["i"] == .null && rows.last?["b"] == .null && rows.last?["t"] == .null)
            #expect(rows[0].columns == ["i", "d", "t", "b", "f"])
        }
    }

    @Test("a unique violation carries SQLSTATE 23505 and the statement, not the values")
    func uniqueViolation() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE k (id TEXT PRIMARY KEY)")
            try db.run("INSERT INTO k (id) VALUES ($1)", ["value-that-is-secret"])
            do {
                try db.run("INSERT INTO k (id) VALUES ($1)", ["value-that-is-secret"])
                Issue.record("a duplicate key was inserted")
            } catch let error as PostgresError {
                #expect(error.sqlState == "23505")
                #expect(error.isUniqueViolation && error.isConstraintViolation && !error.isConnectionLost)
                #expect(error.message.contains("duplicate key value violates unique constraint"))
                #expect(error.message.contains("INSERT INTO k (id) VALUES ($1)"))
                #expect(!error.message.contains("value-that-is-secret"))
            }
            // A bad value for a type: the SQLSTATE, without the value.
            do {
                _ = try db.query("SELECT $1::bigint AS n", ["not-a-number-secret"])
                Issue.record("text became a bigint")
            } catch let error as PostgresError {
                #expect(error.sqlState == "22P02")
                #expect(!error.message.contains("not-a-number-secret"))
                #expect(error.message.contains("invalid input syntax for type bigint"))
            }
            // The connection is still usable.
            #expect(try db.queryOne("SELECT count(*) AS n FROM k")?.int("n") == 1)
        }
    }

    @Test("a transaction commits, rolls back on a thrown error, and never commits after a failed statement")
    func transactions() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)")
            try db.transaction { try db.run("INSERT INTO t VALUES (1)") }
            struct Refused: Error {}
            #expect(throws: Refused.self) {
                try db.transaction {
                    try db.run("INSERT INTO t VALUES (2)")
                    throw Refused()
                }
            }
            // The failed statement's error is caught inside: the server aborted the transaction, so COMMIT must not pretend.
            #expect(throws: PostgresError.self) {
                try db.transaction {
                    try db.run("INSERT INTO t VALUES (3)")
                    _ = try? db.run("INSERT INTO t VALUES (1)")
                }
            }
            #expect(try db.query("SELECT id FROM t ORDER BY id").map { $0.int("id") } == [1])
            #expect(throws: PostgresError.self) { try db.transaction { try db.transaction { } } }
        }
    }

    @Test("a savepoint rolls back only its part, keeps the transaction going, and needs a transaction")
    func savepoints() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE t (x BIGINT PRIMARY KEY)")
            #expect(throws: PostgresError.self) { try db.savepoint { try db.run("INSERT INTO t VALUES (0)") } }
            try db.transaction {
                try db.run("INSERT INTO t VALUES ($1)", [1])
                // A failed statement inside the savepoint: the server aborts only the savepoint.
                _ = try? db.savepoint { try db.run("INSERT INTO t VALUES ($1)", [1]) }
                try db.savepoint { try db.run("INSERT INTO t VALUES ($1)", [3]) }
            }
            #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 3])
        }
    }

    @Test("migrations apply once, in order; an edited name is refused")
    func migrations() throws {
        try withDatabase { db, database in
            let steps = [PostgresMigration("1-a", "CREATE TABLE a (x BIGINT)"), PostgresMigration("2-b", "CREATE TABLE b (y BIGINT); INSERT INTO b VALUES (7)")]
            #expect(try db.migrate(steps) == ["1-a", "2-b"])
            #expect(try db.migrate(steps) == [])
            #expect(try db.queryOne("SELECT y FROM b")?.int("y") == 7)
            do {
                try db.migrate([PostgresMigration("1-renamed", "SELECT 1"), steps[1]])
                Issue.record("a renamed migration was accepted")
            } catch let error as PostgresError {
                #expect(error.message.contains("migration 1 is recorded in '\(database.url())' as '1-a' but the code names it '1-renamed'"))
            }
            do {
                try db.migrate(steps + [PostgresMigration("3-bad", "CREATE TABLE a (x BIGINT)")])
                Issue.record("a failing migration was recorded")
            } catch let error as PostgresError {
                #expect(error.sqlState == "42P07")
                #expect(error.message.contains("migration 3 '3-bad' failed"))
            }
            #expect(try db.queryOne("SELECT count(*) AS n FROM schema_migrations")?.int("n") == 2)
            // The advisory lock was released each time: another session can take it at once.
            let other = try PostgresConnection(database.url())
            defer { other.close() }
            #expect(try other.queryOne("SELECT pg_try_advisory_lock($1) AS ok", [.integer(PostgresConnection.migrationLockKey)])?.bool("ok") == true)
        }
    }

    @Test("a terminated backend fails the next call as a lost connection; the call after reconnects")
    func reconnects() throws {
        try withDatabase { db, database in
            let before = db.backendPID
            try database.terminateConnections()
            do {
                _ = try db.query("SELECT 1 AS one")
                Issue.record("a query on a terminated backend succeeded")
            } catch let error as PostgresError {
                #expect(error.isConnectionLost)
                #expect(error.message.contains(database.name))
            }
            #expect(try db.queryOne("SELECT 1 AS one")?.int("one") == 1)
            #expect(db.backendPID != before)
        }
    }

    @Test("a server that cannot be reached is a lost connection naming the redacted URL")
    func unreachable() {
        do {
            _ = try PostgresConnection("postgresql://liveline:hunter2-secret@/postgres?host=/nonexistent-liveline-socket-dir&port=5432")
            Issue.record("connected")
        } catch {
            #expect(error.isConnectionLost)
            #expect(error.message.contains("cannot connect to PostgreSQL at 'postgresql://liveline:***@/postgres?host=/nonexistent-liveline-socket-dir&port=5432'"))
            #expect(!error.message.contains("hunter2-secret"))
        }
    }
}

@Suite("PostgreSQL notifications", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct PostgresListenerTests {
    @Test("a listener is called for a NOTIFY committed by another connection, and again after its connection was lost")
    func notifies() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let calls = DispatchSemaphore(value: 0)
        let listener = try PostgresListener(database.url(), channel: "liveline_test") { calls.signal() }
        defer { listener.stop() }
        let sender = try PostgresConnection(database.url())
        defer { sender.close() }
        // Uncommitted, nothing arrives; at commit it does.
        try sender.transaction {
            try sender.run("SELECT pg_notify($1, $2)", ["liveline_test", "x"])
            #expect(calls.wait(timeout: .now() + 0.5) == .timedOut)
        }
        #expect(calls.wait(timeout: .now() + 20) == .success)
        // The server drops the listener's connection: it connects again and says so.
        try database.terminateConnections()
        #expect(calls.wait(timeout: .now() + 20) == .success)
        let again = try PostgresConnection(database.url())  // the sender's connection was terminated too
        defer { again.close() }
        try again.run("SELECT pg_notify($1, $2)", ["liveline_test", "y"])
        #expect(calls.wait(timeout: .now() + 20) == .success)
    }

    @Test("a channel name that is not plain is refused")
    func badChannel() {
        #expect(throws: PostgresError.self) { _ = try PostgresListener("postgresql:///x", channel: "drop table; --") {} }
    }
}

import Foundation
import LivelineSQLite
import Testing

@Suite struct SQLiteDatabaseTests {
    struct Boom: Error, Equatable {}

    @Test func fileDatabaseUsesWALAndTheConfiguredPragmas() throws {
        let dir = try TemporaryDirectory()
        let db = try SQLiteDatabase(path: dir.path("wal.db"))
        defer { db.close() }
        #expect(dir.exists("wal.db"), "the file is created")
        #expect(try db.queryOne("PRAGMA journal_mode")?.string("journal_mode") == "wal")
        #expect(try db.queryOne("PRAGMA synchronous")?.int("synchronous") == 1, "NORMAL")
        #expect(try db.queryOne("PRAGMA foreign_keys")?.int("foreign_keys") == 1)
        #expect(try db.queryOne("PRAGMA busy_timeout")?[0] == .integer(5000))
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.run("INSERT INTO t(x) VALUES (?)", [1])
        #expect(dir.exists("wal.db-wal"), "a write goes to the -wal file")
        #expect(dir.exists("wal.db-shm"))
    }

    @Test func optionsAreApplied() throws {
        let dir = try TemporaryDirectory()
        var options = SQLiteDatabase.Options()
        options.journalModeWAL = false
        options.synchronous = .full
        options.foreignKeys = false
        options.busyTimeout = .milliseconds(250)
        let db = try SQLiteDatabase(path: dir.path("plain.db"), options: options)
        defer { db.close() }
        #expect(try db.queryOne("PRAGMA journal_mode")?.string("journal_mode") == "delete")
        #expect(try db.queryOne("PRAGMA synchronous")?.int("synchronous") == 2)
        #expect(try db.queryOne("PRAGMA foreign_keys")?.int("foreign_keys") == 0)
        #expect(try db.queryOne("PRAGMA busy_timeout")?[0] == .integer(250))
    }

    @Test func memoryDatabaseOpens() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        #expect(try db.queryOne("PRAGMA journal_mode")?.string("journal_mode") == "memory")
        #expect(try db.queryOne("SELECT 1 + 1 AS two")?.int("two") == 2)
        #expect(SQLiteDatabase.libraryVersion.hasPrefix("3."))
    }

    @Test func everyValueTypeRoundTrips() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE v(id INTEGER PRIMARY KEY, value)")
        let unicode = "Grüße, 日本語, emoji 🚀👩‍👩‍👧, combining e\u{301}, RTL שלום"
        let values: [SQLiteValue] = [
            .null, .integer(0), .integer(Int64.max), .integer(Int64.min), .integer(-1),
            .real(3.5), .real(-0.25), .real(1e300), .real(Double.leastNonzeroMagnitude),
            .text(""), .text(unicode), .text("a\u{0}b"),
            .blob([]), .blob([0, 1, 0, 255, 0]), .blob([UInt8](repeating: 0, count: 100_000)),
        ]
        for (i, value) in values.enumerated() {
            try db.run("INSERT INTO v(id, value) VALUES (?, ?)", [.integer(Int64(i)), value])
        }
        let rows = try db.query("SELECT id, value, typeof(value) AS type FROM v ORDER BY id")
        #expect(rows.count == values.count)
        for (row, value) in zip(rows, values) {
            #expect(row["value"] == value, "value \(row.int("id") ?? -1)")
        }
        #expect(rows.map { $0.string("type") } == [
            "null", "integer", "integer", "integer", "integer", "real", "real", "real", "real",
            "text", "text", "text", "blob", "blob", "blob",
        ])
        // Typed accessors.
        #expect(rows[0].int("value") == nil && rows[0].string("value") == nil && rows[0].blob("value") == nil)
        #expect(rows[0]["value"] == .null)
        #expect(rows[2].int64("value") == Int64.max)
        #expect(rows[3].int("value") == Int.min)
        #expect(rows[5].double("value") == 3.5)
        #expect(rows[5].int("value") == nil, "3.5 is not a whole number")
        #expect(rows[1].double("value") == 0, "an integer reads as a double")
        #expect(rows[9].string("value") == "")
        #expect(rows[10].string("value") == unicode)
        #expect(rows[11].string("value")?.utf8.count == 3)
        #expect(rows[12].blob("value") == [])
        #expect(rows[13].blob("value") == [0, 1, 0, 255, 0])
        #expect(rows[14].blob("value")?.count == 100_000)
        #expect(rows[0].columns == ["id", "value", "type"])
        #expect(rows[0]["no_such_column"] == .null)
        #expect(rows[0]["ID"] == .integer(0), "column names ignore ASCII case, as in SQL")
    }

    @Test func literalAndOptionalConveniences() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(a, b, c, d)")
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?)", ["text", 42, 2.5, nil])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?)", [.from(nil as String?), .from(nil as Int?), .from(nil as Double?), .from("x")])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?)", [.from(7), .from(0.5), .from("s"), .null])
        let rows = try db.query("SELECT a, b, c, d FROM t ORDER BY rowid")
        #expect(rows[0]["a"] == .text("text") && rows[0]["b"] == .integer(42) && rows[0]["c"] == .real(2.5) && rows[0]["d"] == .null)
        #expect(rows[1]["a"] == .null && rows[1]["b"] == .null && rows[1]["c"] == .null && rows[1]["d"] == .text("x"))
        #expect(rows[2].int("a") == 7 && rows[2].double("b") == 0.5 && rows[2].string("c") == "s")
        #expect(rows[2][0] == .integer(7) && rows[2][3].isNull && !rows[2][0].isNull)
    }

    @Test func moreDistinctStatementsThanTheCacheHoldsStayCorrect() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.transaction {
            for n in 1 ... 600 {
                // A distinct SQL text each time, as `IN (?, ?, …)` lists of varying length are.
                try db.run("INSERT INTO t(x) SELECT ? + \(n) - \(n)", [.integer(Int64(n))])
            }
        }
        #expect(try db.queryOne("SELECT count(*) AS n, sum(x) AS s FROM t").map { [$0.int("n"), $0.int("s")] } == [600, 180_300])
        for n in [1, 300, 600] {
            #expect(try db.queryOne("SELECT x FROM t WHERE x = ? + \(n) - \(n)", [.integer(Int64(n))])?.int("x") == n)
        }
    }

    @Test func constraintViolationNamesTheStatementButNotTheValues() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("""
            CREATE TABLE users(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
            CREATE TABLE sessions(user_id INTEGER NOT NULL REFERENCES users(id));
            """)
        let sql = "INSERT INTO users(id, email) VALUES (?, ?)"
        try db.run(sql, [1, "secret-address@example.com"])
        let unique = try #require(#expect(throws: SQLiteError.self) {
            try db.run(sql, [2, "secret-address@example.com"])
        })
        #expect(unique.isConstraintViolation)
        #expect(!unique.isBusy)
        #expect(unique.code == 19)
        #expect(unique.extendedCode == 2067, "SQLITE_CONSTRAINT_UNIQUE")
        #expect(unique.message.contains("UNIQUE constraint failed: users.email"), "\(unique.message)")
        #expect(unique.message.contains(sql), "\(unique.message)")
        #expect(!unique.message.contains("secret-address"), "bound values stay out of messages")
        #expect(!unique.description.contains("secret-address"))
        #expect(unique.description.contains("2067"))

        let notNull = try #require(#expect(throws: SQLiteError.self) { try db.run(sql, [3, nil]) })
        #expect(notNull.isConstraintViolation && notNull.extendedCode == 1299, "\(notNull)")

        let foreignKey = try #require(#expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO sessions(user_id) VALUES (?)", [99])
        })
        #expect(foreignKey.isConstraintViolation && foreignKey.extendedCode == 787, "\(foreignKey)")
        #expect(foreignKey.message.contains("INSERT INTO sessions(user_id)"))

        // The cached statement is usable after a failure.
        #expect(try db.run(sql, [4, "other@example.com"]) == 1)
    }

    @Test func errorsNameTheStatementFirst200Characters() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        let syntax = try #require(#expect(throws: SQLiteError.self) { try db.query("SELEKT 1") })
        #expect(syntax.message.contains("syntax error") && syntax.message.contains("SELEKT 1"), "\(syntax.message)")

        let longSQL = "SELECT * FROM missing_table WHERE " + (1 ... 100).map { "c\($0) = 1" }.joined(separator: " AND ")
        let missing = try #require(#expect(throws: SQLiteError.self) { try db.query(longSQL) })
        #expect(missing.message.contains("no such table: missing_table"))
        #expect(missing.message.contains(String(longSQL.prefix(200)) + "…"))
        #expect(!missing.message.contains(String(longSQL.prefix(201))))

        let quoted = try #require(#expect(throws: SQLiteError.self) { try db.query("SELECT \"not_a_column\"") },
                                  "double-quoted strings are identifiers only")
        #expect(quoted.message.contains("no such column: not_a_column"), "\(quoted.message)")

        let exec = try #require(#expect(throws: SQLiteError.self) {
            try db.execute("CREATE TABLE a(x); CREATE TABLE a(y); CREATE TABLE b(z)")
        })
        #expect(exec.message.contains("table a already exists") && exec.message.contains("CREATE TABLE a(y)"), "\(exec.message)")
        #expect(!exec.message.contains("CREATE TABLE b"), "names only the failing statement")
        #expect(try db.queryOne("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'b'")?.int("n") == 0)
    }

    @Test func misuseIsReported() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.execute("CREATE TABLE t(a, b)")
        let count = try #require(#expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?, ?)", [1]) })
        #expect(count.message.contains("2 parameter(s) but 1 value(s)") && count.message.contains("INSERT INTO t VALUES (?, ?)"), "\(count.message)")
        let two = try #require(#expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (1, 2); INSERT INTO t VALUES (3, 4)") })
        #expect(two.message.contains("use execute(_:) for several"), "\(two.message)")
        #expect(try db.query("SELECT * FROM t").isEmpty, "nothing of the refused text ran")
        #expect(try db.run("INSERT INTO t VALUES (1, 2); -- a trailing comment is fine\n") == 1)
        db.close()
        db.close()
        #expect(db.isClosed)
        let closed = try #require(#expect(throws: SQLiteError.self) { try db.query("SELECT 1") })
        #expect(closed.message.contains("':memory:' is closed"), "\(closed.message)")
        #expect(db.lastInsertRowID == 0 && db.totalChanges == 0)
    }

    @Test func runReportsChangesAndRowIDs() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        #expect(try db.run("CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER)") == 0)
        #expect(try db.run("INSERT INTO t(n) VALUES (?), (?), (?)", [1, 2, 3]) == 3)
        #expect(db.lastInsertRowID == 3)
        #expect(try db.run("UPDATE t SET n = n + 1 WHERE n >= ?", [2]) == 2)
        #expect(try db.run("SELECT * FROM t") == 0, "a query changes nothing")
        #expect(try db.run("DELETE FROM t WHERE n = ?", [99]) == 0)
        #expect(db.totalChanges == 5)
        #expect(try db.queryOne("SELECT n FROM t WHERE id = ?", [42]) == nil)
    }

    @Test func transactionCommitsAndRollsBackOnAThrownError() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(x INTEGER)")
        let value = try db.transaction { () throws -> Int in
            try db.run("INSERT INTO t VALUES (1)")
            return 7
        }
        #expect(value == 7)
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(try db.query("SELECT x FROM t").map { $0.int("x") } == [1], "the row of the failed transaction is gone")
        // An SQL error inside the body rolls back too and is rethrown as is.
        let error = try #require(#expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (3)")
                try db.run("INSERT INTO nowhere VALUES (4)")
            }
        })
        #expect(error.message.contains("no such table: nowhere"))
        #expect(try db.query("SELECT x FROM t").map { $0.int("x") } == [1])
        // Nothing is left open.
        try db.transaction { try db.run("INSERT INTO t VALUES (5)") }
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 5])
    }

    @Test func nestedTransactionRollsBackOnlyTheInnerPart() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            #expect(throws: Boom.self) {
                try db.transaction {
                    try db.run("INSERT INTO t VALUES (2)")
                    try db.transaction { try db.run("INSERT INTO t VALUES (3)") }
                    throw Boom()
                }
            }
            try db.transaction { try db.run("INSERT INTO t VALUES (4)") }
            #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 4])
        }
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 4])

        // An inner error the outer body does not catch rolls back everything.
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (5)")
                try db.transaction {
                    try db.run("INSERT INTO t VALUES (6)")
                    throw Boom()
                }
            }
        }
        #expect(try db.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 4])
    }

    @Test func tenThousandInsertsOfOneStatementInATransaction() throws {
        let dir = try TemporaryDirectory()
        let db = try SQLiteDatabase(path: dir.path("bulk.db"))
        defer { db.close() }
        try db.execute("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, payload BLOB)")
        let sql = "INSERT INTO items(id, name, score, payload) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name"
        try db.transaction {
            for i in 0 ..< 10_000 {
                try db.run(sql, [.integer(Int64(i)), .text("item-\(i)"), .real(Double(i) / 2), .blob([UInt8(i & 0xff), 0, UInt8(i >> 8)])])
            }
        }
        #expect(try db.queryOne("SELECT count(*) AS n, sum(id) AS s, sum(score) AS h FROM items").map { [$0.int("n"), $0.int("s"), $0.int("h")] }
            == [10_000, 49_995_000, 24_997_500])
        for i in [0, 1, 255, 256, 4_999, 9_999] {
            let row = try #require(try db.queryOne("SELECT name, score, payload FROM items WHERE id = ?", [.integer(Int64(i))]))
            #expect(row.string("name") == "item-\(i)")
            #expect(row.double("score") == Double(i) / 2)
            #expect(row.blob("payload") == [UInt8(i & 0xff), 0, UInt8(i >> 8)])
        }
        // Upserts through the same cached statement.
        try db.transaction {
            for i in 0 ..< 100 { try db.run(sql, [.integer(Int64(i)), .text("renamed"), nil, nil]) }
        }
        #expect(try db.queryOne("SELECT count(*) AS n FROM items WHERE name = 'renamed'")?.int("n") == 100)
        #expect(try db.queryOne("SELECT count(*) AS n FROM items")?.int("n") == 10_000)
    }

    @Test func dataSurvivesCloseAndReopen() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("reopen.db")
        do {
            let db = try SQLiteDatabase(path: path)
            try db.execute("CREATE TABLE t(k TEXT PRIMARY KEY, v BLOB)")
            try db.run("INSERT INTO t VALUES (?, ?)", ["key", .blob([1, 0, 2])])
            db.close()
        }
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        #expect(try db.queryOne("SELECT v FROM t WHERE k = ?", ["key"])?.blob("v") == [1, 0, 2])
    }

    @Test func openingInAMissingDirectoryNamesThePath() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("no/such/dir/liveline.db")
        let error = try #require(#expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path) })
        #expect(error.code == 14, "SQLITE_CANTOPEN")
        #expect(error.message.contains("'\(path)'"), "\(error.message)")
        #expect(error.message.contains("does the directory exist"), "\(error.message)")

        var readOnly = SQLiteDatabase.Options()
        readOnly.readOnly = true
        let missing = try #require(#expect(throws: SQLiteError.self) { try SQLiteDatabase(path: dir.path("absent.db"), options: readOnly) })
        #expect(missing.message.contains(dir.path("absent.db")), "\(missing.message)")
        #expect(!dir.exists("absent.db"), "a read-only open creates nothing")
    }

    @Test func openingAFileThatIsNotADatabaseNamesThePath() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("garbage.db")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = try #require(#expect(throws: SQLiteError.self) { try SQLiteDatabase(path: path) })
        #expect(error.code == 26, "SQLITE_NOTADB: \(error)")
        #expect(error.message.contains("'\(path)'") && error.message.contains("not a database"), "\(error.message)")
    }

    @Test func aSecondConnectionSeesCommittedData() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("shared.db")
        let writer = try SQLiteDatabase(path: path)
        defer { writer.close() }
        try writer.execute("CREATE TABLE t(x INTEGER)")
        try writer.run("INSERT INTO t VALUES (1)")

        var options = SQLiteDatabase.Options()
        options.readOnly = true
        let reader = try SQLiteDatabase(path: path, options: options)
        defer { reader.close() }
        #expect(try reader.query("SELECT x FROM t").map { $0.int("x") } == [1])

        try writer.transaction {
            try writer.run("INSERT INTO t VALUES (2)")
            // WAL: the reader is not blocked by the open write transaction and sees the last commit.
            #expect(try reader.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1])
        }
        #expect(try reader.query("SELECT x FROM t ORDER BY x").map { $0.int("x") } == [1, 2])
        let refused = try #require(#expect(throws: SQLiteError.self) { try reader.run("INSERT INTO t VALUES (3)") })
        #expect(refused.code == 8, "SQLITE_READONLY: \(refused)")

        // A second writer waits for the lock and fails as busy after its timeout.
        var impatient = SQLiteDatabase.Options()
        impatient.busyTimeout = .milliseconds(50)
        let other = try SQLiteDatabase(path: path, options: impatient)
        defer { other.close() }
        try writer.transaction {
            let busy = try #require(#expect(throws: SQLiteError.self) { try other.transaction { try other.run("INSERT INTO t VALUES (4)") } })
            #expect(busy.isBusy, "\(busy)")
            #expect(busy.message.contains("BEGIN IMMEDIATE"), "\(busy.message)")
        }
        try other.transaction { try other.run("INSERT INTO t VALUES (4)") }
        #expect(try writer.queryOne("SELECT count(*) AS n FROM t")?.int("n") == 3)
    }

    @Test func forEachRowStreamsRows() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(x INTEGER)")
        try db.transaction { for i in 1 ... 5_000 { try db.run("INSERT INTO t VALUES (?)", [.integer(Int64(i))]) } }
        let scan = "SELECT x FROM t WHERE x > ? ORDER BY x"

        var seen: [Int] = []
        try db.forEachRow(scan, [4_990]) { row in seen.append(row.int("x") ?? -1) }
        #expect(seen == Array(4_991 ... 5_000))

        // Rows arrive one by one: the body runs before the scan ends, and a thrown error stops it.
        var count = 0
        #expect(throws: Boom.self) {
            try db.forEachRow(scan, [0]) { _ in
                count += 1
                if count == 10 { throw Boom() }
            }
        }
        #expect(count == 10)

        // The same SQL inside the body gets its own statement; the outer scan is not reset.
        var pairs = 0
        try db.forEachRow(scan, [4_997]) { outer in
            let inner = try db.query(scan, [.integer(Int64(outer.int("x") ?? 0) - 1)])
            pairs += inner.count
        }
        #expect(pairs == 3 + 2 + 1)
        #expect(try db.query(scan, [4_998]).count == 2, "the cached statement still works")
    }
}

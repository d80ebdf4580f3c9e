import LivelineSQL
import LivelineSQLite
import Testing

/// LivelineSQL's one placeholder style on SQLite: `$n` binds value n - 1 by name.
@Suite struct SQLiteNumberedParameterTests {
    @Test func dollarParametersBindByNumberNotByPosition() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(a TEXT, b TEXT, c TEXT)")
        // $2 appears first and $1 twice: SQLite numbers them by first appearance; the binding must not.
        try db.run("INSERT INTO t VALUES ($2, $1, $1 || $3)", ["one", "two", "three"])
        let row = try #require(try db.queryOne("SELECT a, b, c FROM t WHERE a = $1", ["two"]))
        #expect(row.string("a") == "two" && row.string("b") == "one" && row.string("c") == "onethree")
        // The count is the largest number, not SQLite's count of distinct names.
        let error = try #require(#expect(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES ($2, $1, $1)", ["x"]) })
        #expect(error.message.contains("2 parameter(s) but 1 value(s)"), "\(error.message)")
        // Positional `?` still binds in order.
        try db.run("INSERT INTO t VALUES (?, ?, ?)", ["p", "q", "r"])
        #expect(try db.queryOne("SELECT b FROM t WHERE a = ?", ["p"])?.string("b") == "q")
    }

    @Test func booleansBindAsZeroAndOne() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        let row = try #require(try db.queryOne("SELECT $1 AS yes, $2 AS no", [true, false]))
        #expect(row["yes"] == .integer(1) && row["no"] == .integer(0))
        #expect(row.bool("yes") == true && row.bool("no") == false)
    }

    @Test func savepointRollsBackOnlyItsPartAndNeedsATransaction() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.execute("CREATE TABLE t(x INTEGER)")
        #expect(throws: SQLiteError.self) { try db.savepoint { try db.run("INSERT INTO t VALUES (0)", []) } }
        try db.transaction {
            try db.run("INSERT INTO t VALUES ($1)", [1])
            _ = try? db.savepoint { () throws -> Void in
                try db.run("INSERT INTO t VALUES ($1)", [2])
                throw SQLiteError(code: 1, extendedCode: 1, message: "inner")
            }
            try db.savepoint { try db.run("INSERT INTO t VALUES ($1)", [3]) }
        }
        #expect(try db.query("SELECT x FROM t ORDER BY x", []).map { $0.int("x") } == [1, 3])
    }

    @Test func theConnectionIsAnSQLConnectionForTheSharedMigrator() throws {
        let db: any SQLConnection = try SQLiteDatabase(path: ":memory:")
        let applied = try db.applyMigrations([SQLMigration("1-a", "CREATE TABLE a(x INTEGER)"), SQLMigration("2-b", "INSERT INTO a VALUES (7)")])
        #expect(applied == ["1-a", "2-b"])
        let newer = try #require(#expect(throws: SQLiteError.self) { try db.applyMigrations([SQLMigration("1-a", "CREATE TABLE a(x INTEGER)")]) })
        #expect(newer.message.contains("knows only 1 migration(s)"), "\(newer.message)")
        #expect(try db.queryOne("SELECT applied_at FROM schema_migrations WHERE version = $1", [2])?.string("applied_at")?.hasSuffix("Z") == true)
    }
}

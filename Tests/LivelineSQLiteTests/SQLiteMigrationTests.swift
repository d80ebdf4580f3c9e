import LivelineSQLite
import Testing

@Suite struct SQLiteMigrationTests {
    static let v1 = SQLiteMigration("create_tokens", "CREATE TABLE tokens(id TEXT PRIMARY KEY, token BLOB NOT NULL)")
    static let v2 = SQLiteMigration("create_outbox", """
        CREATE TABLE outbox(id INTEGER PRIMARY KEY, token_id TEXT NOT NULL REFERENCES tokens(id));
        CREATE INDEX outbox_token ON outbox(token_id);
        """)
    static let v3 = SQLiteMigration("add_outbox_state", "ALTER TABLE outbox ADD COLUMN state TEXT NOT NULL DEFAULT 'queued'")

    @Test func appliesOnceAndThenNothing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path("migrate.db")
        let db = try SQLiteDatabase(path: path)
        #expect(try db.migrate([Self.v1, Self.v2]) == ["create_tokens", "create_outbox"])
        #expect(try db.migrate([Self.v1, Self.v2]) == [])
        #expect(try db.migrate([Self.v1, Self.v2, Self.v3]) == ["add_outbox_state"])
        db.close()

        let reopened = try SQLiteDatabase(path: path)
        defer { reopened.close() }
        #expect(try reopened.migrate([Self.v1, Self.v2, Self.v3]) == [])
        let rows = try reopened.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        #expect(rows.map { $0.int("version") } == [1, 2, 3])
        #expect(rows.map { $0.string("name") } == ["create_tokens", "create_outbox", "add_outbox_state"])
        let appliedAt = try #require(rows[0].string("applied_at"))
        #expect(appliedAt.count == 24 && appliedAt.hasSuffix("Z") && appliedAt.dropFirst(10).first == "T", "\(appliedAt)")
        try reopened.run("INSERT INTO tokens VALUES ('a', x'00')")
        try reopened.run("INSERT INTO outbox(token_id) VALUES ('a')")
        #expect(try reopened.queryOne("SELECT state FROM outbox")?.string("state") == "queued")
    }

    @Test func anEditedNameIsRefusedNamingBoth() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.migrate([Self.v1, Self.v2])
        let renamed = SQLiteMigration("create_outbox_v2", Self.v2.sql)
        let error = try #require(#expect(throws: SQLiteError.self) { try db.migrate([Self.v1, renamed, Self.v3]) })
        #expect(error.message.contains("'create_outbox'") && error.message.contains("'create_outbox_v2'"), "\(error.message)")
        #expect(error.message.contains("migration 2"), "\(error.message)")
        #expect(try db.queryOne("SELECT count(*) AS n FROM schema_migrations")?.int("n") == 2, "nothing applied")

        // Reordering is the same mistake.
        let reordered = try #require(#expect(throws: SQLiteError.self) { try db.migrate([Self.v2, Self.v1]) })
        #expect(reordered.message.contains("'create_tokens'") && reordered.message.contains("'create_outbox'"), "\(reordered.message)")
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        try db.migrate([Self.v1, Self.v2, Self.v3])
        let error = try #require(#expect(throws: SQLiteError.self) { try db.migrate([Self.v1, Self.v2]) })
        #expect(error.message.contains("migration 3 'add_outbox_state'"), "\(error.message)")
        #expect(error.message.contains("knows only 2"), "\(error.message)")
        #expect(error.message.contains("newer"), "\(error.message)")
    }

    @Test func aFailingMigrationRollsBackOnlyItself() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        let broken = SQLiteMigration("broken", "CREATE TABLE half(x); INSERT INTO nowhere VALUES (1)")
        let error = try #require(#expect(throws: SQLiteError.self) { try db.migrate([Self.v1, broken]) })
        #expect(error.message.contains("migration 2 'broken'") && error.message.contains("no such table: nowhere"), "\(error.message)")
        #expect(try db.query("SELECT name FROM schema_migrations").map { $0.string("name") } == ["create_tokens"])
        #expect(try db.queryOne("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'half'")?.int("n") == 0, "rolled back")
        #expect(try db.migrate([Self.v1, Self.v2]) == ["create_outbox"])
    }

    @Test func duplicateNamesAreRefused() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        let error = try #require(#expect(throws: SQLiteError.self) { try db.migrate([Self.v1, Self.v1]) })
        #expect(error.message.contains("repeats the name 'create_tokens'"), "\(error.message)")
    }

    @Test func emptyListOnAFreshDatabaseCreatesOnlyTheTable() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        defer { db.close() }
        #expect(try db.migrate([]) == [])
        #expect(try db.query("SELECT * FROM schema_migrations").isEmpty)
    }
}

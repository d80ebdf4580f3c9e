import LivelinePostgres
import Testing

@Suite("Connection strings: the password is never shown")
struct PostgresConnectionStringTests {
    @Test("the redacted form hides the password and keeps the rest", arguments: [
        ("postgres://liveline:s3cret@db.internal:5432/liveline", "postgres://liveline:***@db.internal:5432/liveline"),
        ("postgresql://liveline:s3cret@db.internal/liveline?sslmode=require", "postgresql://liveline:***@db.internal/liveline?sslmode=require"),
        ("postgresql://liveline@/liveline?host=/tmp/pg&password=s3cret&port=5432", "postgresql://liveline@/liveline?host=/tmp/pg&password=***&port=5432"),
        ("postgres://liveline@db.internal/liveline", "postgres://liveline@db.internal/liveline"),
        ("POSTGRES://u:s3cret@h/d", "POSTGRES://u:***@h/d"),
        ("host=db.internal user=liveline password=s3cret dbname=liveline", "host=db.internal user=liveline password=*** dbname=liveline"),
        ("host=db.internal password = 's3 cr\\'et' dbname=liveline", "host=db.internal password = *** dbname=liveline"),
    ])
    func redacted(_ raw: String, _ shown: String) {
        let string = PostgresConnectionString(raw)
        #expect(string.redacted == shown)
        #expect("\(string)" == shown)
    }

    @Test("scrub removes the password as written and percent-decoded")
    func scrub() {
        let string = PostgresConnectionString("postgres://liveline:p%40ss-w0rd@db.internal/liveline")
        #expect(string.redacted == "postgres://liveline:***@db.internal/liveline")
        #expect(string.scrub("auth failed for p@ss-w0rd and p%40ss-w0rd") == "auth failed for *** and ***")
        #expect(PostgresConnectionString("postgres://liveline@db/x").scrub("nothing to hide") == "nothing to hide")
    }

    @Test("URLs are told apart from keyword strings and SQLite paths", arguments: [
        ("postgres://h/d", true), ("postgresql://h/d", true), ("PostgreSQL://h/d", true),
        ("liveline.db", false), ("/srv/liveline.db", false), ("host=h dbname=d", false), ("postgres.db", false),
    ])
    func isURL(_ text: String, _ expected: Bool) {
        #expect(PostgresConnectionString.isURL(text) == expected)
    }
}

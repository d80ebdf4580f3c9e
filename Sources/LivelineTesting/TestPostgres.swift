import Foundation
import LivelinePostgres

/// Throw-away PostgreSQL databases for tests, on the server that `scripts/with-postgres.sh` starts
/// for the command it runs (`make test` runs `swift test` through it). The script exports
/// `LIVELINE_TEST_POSTGRES_URL`, a URL to the server's `postgres` database.
///
/// Without it a PostgreSQL suite is skipped, and says so: its `.enabled(if: TestPostgres.runs, …)`
/// comment is printed as the skip's reason. When `LIVELINE_REQUIRE_SERVERS=1` (a full run:
/// `make test` sets it) a missing server is a failure instead: `runs` is true, and the first
/// `makeDatabase()` or `admin()` throws `missingServer`, which names the script to run.
public enum TestPostgres {
    /// The variable naming the test server.
    public static let environmentVariable = "LIVELINE_TEST_POSTGRES_URL"

    /// Whether the PostgreSQL suites run: there is a server, or one is required
    /// (`TestServers.required`; then they fail with `missingServer`). Use it in
    /// `.enabled(if: TestPostgres.runs, "<why skipped>")`.
    public static var runs: Bool { isAvailable || TestServers.required }

    /// The error of a PostgreSQL test run without a server.
    public static var missingServer: TestingError {
        TestingError("no PostgreSQL test server (\(environmentVariable) is not set)"
            + (TestServers.required ? " although \(TestServers.requireVariable)=1 requires one" : "")
            + ": run the tests through scripts/with-postgres.sh (make test does), which needs Debian's postgresql package (scripts/install-deps.sh test)")
    }

    /// The test server's URL (its `postgres` database), if one was started.
    public static var serverURL: String? {
        guard let url = ProcessInfo.processInfo.environment[environmentVariable], !url.isEmpty else { return nil }
        return url
    }

    /// Whether a test server is there.
    public static var isAvailable: Bool { serverURL != nil }

    /// A connection to the server's `postgres` database, to create, inspect and disturb test databases.
    public static func admin() throws -> PostgresConnection {
        guard let url = serverURL else { throw missingServer }
        return try PostgresConnection(url)
    }

    /// Creates an empty database with a fresh name.
    public static func makeDatabase() throws -> TestDatabase {
        guard let url = serverURL else { throw missingServer }
        let name = "liveline_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try PostgresConnection(url)
        defer { admin.close() }
        // A name cannot be a bound parameter; this one is made of [a-z0-9_] only.
        try admin.execute("CREATE DATABASE \(name)")
        return TestDatabase(name: name, serverURL: url)
    }
}

/// One database on the test server.
public struct TestDatabase: Sendable {
    /// Its name (`liveline_test_…`).
    public let name: String
    let serverURL: String

    /// The database's URL; with `password`, the URL carries it in its user info (the test
    /// server trusts local connections, so any password is accepted).
    public func url(password: String? = nil) -> String {
        // postgresql://user@/postgres?host=/tmp/… → the same with this database (and the password).
        guard let schemeEnd = serverURL.range(of: "://") else { return serverURL }
        let afterScheme = serverURL[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var authority = String(afterScheme[..<authorityEnd])
        let rest = afterScheme[authorityEnd...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        if let password {
            if let at = authority.firstIndex(of: "@") {
                authority = String(authority[..<at]) + ":" + password + String(authority[at...])
            } else {
                authority = ":" + password + "@" + authority
            }
        }
        return String(serverURL[..<schemeEnd.upperBound]) + authority + "/" + name + query
    }

    /// Drops the database, disconnecting whoever is still connected.
    public func drop() {
        guard let admin = try? PostgresConnection(serverURL) else { return }
        defer { admin.close() }
        try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// Terminates every server process connected to the database (`pg_terminate_backend`) and
    /// returns once they are gone, as when the server restarts under a running service.
    public func terminateConnections() throws {
        let admin = try PostgresConnection(serverURL)
        defer { admin.close() }
        let pids = try admin.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text(name)]).compactMap { $0.int64("pid") }
        for pid in pids { try admin.run("SELECT pg_terminate_backend($1::int)", [.integer(pid)]) }
        let deadline = Date().addingTimeInterval(30)
        while try admin.queryOne("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])", [.text("{" + pids.map(String.init).joined(separator: ",") + "}")])?.int("n") ?? 0 > 0 {
            guard Date() < deadline else { throw TestingError("the server processes \(pids) of database \(name) did not end within 30 s of pg_terminate_backend") }
        }
    }
}

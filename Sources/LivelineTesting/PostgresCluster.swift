import Foundation
import LivelineProcess
import LivelinePostgres

/// A throw-away PostgreSQL server of one's own, as `scripts/with-postgres.sh` makes it: `initdb` in
/// a temporary directory, `pg_ctl -w` on a Unix socket only (no TCP port), durability off, run as
/// user `postgres` when this process is root (initdb refuses root). Unlike the shared test server,
/// it can be stopped and started again under a running service: the database going away.
public final class PostgresCluster: Sendable {
    /// The directory holding the cluster (`data/`), its log and its socket.
    public let directory: String
    let bindir: String
    let runAs: String?
    static let port = 5432  // with no TCP listener it only names the socket file, so it cannot collide

    /// A URL to the server's `postgres` database (user `liveline`, trusted local connections).
    public var url: String { url(database: "postgres") }

    /// A URL to `database` on the server.
    public func url(database: String) -> String { "postgresql://liveline@/\(database)?host=\(directory)&port=\(Self.port)" }

    /// Makes the cluster and starts the server; returns once it accepts connections (`pg_ctl -w`).
    /// - Throws: `TestingError` with initdb's or the server's log when either fails, or when
    ///   PostgreSQL's server programs are not installed.
    public static func start() throws -> PostgresCluster {
        let cluster = try PostgresCluster()
        do {
            try cluster.run("initdb", ["-D", cluster.directory + "/data", "-A", "trust", "-U", "liveline", "-E", "UTF8", "--no-sync"])
            try cluster.start()
        } catch {
            cluster.remove()
            throw error
        }
        return cluster
    }

    private init() throws {
        var bindir = ProcessInfo.processInfo.environment["POSTGRES_BINDIR"] ?? ""
        if bindir.isEmpty {
            let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            for v in versions.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) where FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(v)/bin/pg_ctl") {
                bindir = "/usr/lib/postgresql/\(v)/bin"
            }
        }
        guard !bindir.isEmpty, FileManager.default.isExecutableFile(atPath: bindir + "/initdb") else {
            throw TestingError("PostgreSQL's server programs (initdb, pg_ctl) were not found: apt-get install postgresql (scripts/install-deps.sh test), or set POSTGRES_BINDIR")
        }
        self.bindir = bindir
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-pg-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        directory = dir
        if getuid() == 0 {
            let user = ProcessInfo.processInfo.environment["POSTGRES_RUN_AS"] ?? "postgres"
            guard let entry = getpwnam(user) else {
                try? FileManager.default.removeItem(atPath: dir)
                throw TestingError("as root, PostgreSQL needs a non-root user to run as; '\(user)' does not exist (set POSTGRES_RUN_AS)")
            }
            guard chown(dir, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                try? FileManager.default.removeItem(atPath: dir)
                throw TestingError("cannot hand \(dir) to user '\(user)': errno \(errno)")
            }
            runAs = user
        } else {
            runAs = nil
        }
    }

    /// Runs one of the server's programs (as the server's user), throwing with its output when it fails.
    private func run(_ program: String, _ arguments: [String]) throws {
        let path = bindir + "/" + program
        let output = runAs.map { try? ProcessRunner.runBlocking("/usr/sbin/runuser", ["-u", $0, "--", path] + arguments) }
            ?? (try? ProcessRunner.runBlocking(path, arguments))
        guard let output else { throw TestingError("cannot run \(path)") }
        guard output.status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw TestingError("\(program) \(arguments.last ?? "") exited with status \(output.status): \(output.stderrText) \(output.stdoutText) \(log.suffix(2000))")
        }
    }

    /// Starts the server (again); returns once it accepts connections.
    public func start() throws {
        try run("pg_ctl", ["-D", directory + "/data", "-l", directory + "/server.log", "-w", "-t", "60",
                           "-o", "-k \(directory) -p \(Self.port) -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
                           "start"])
    }

    /// Stops the server (`pg_ctl stop -m fast`: connections are closed, committed work is kept);
    /// returns once it is down.
    public func stop() throws {
        try run("pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// A new empty database on the server; returns its URL.
    public func makeDatabase(_ name: String) throws -> String {
        let admin = try PostgresConnection(url)
        defer { admin.close() }
        // A name cannot be a bound parameter: only [a-z0-9_] is accepted here.
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw TestingError("database name '\(name)' must be [a-z0-9_]")
        }
        try admin.execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Stops the server if it runs (immediately) and deletes the cluster.
    public func remove() {
        if FileManager.default.fileExists(atPath: directory + "/data/postmaster.pid") {
            try? run("pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

import Foundation
import LivelineCommandLine
import LivelineCore
import LivelinePostgres
import LivelineStore
import LivelineTesting

/// `liveline-bench small-sends`: the delivery-app load, N activities with one token each and one
/// update POST for each from a concurrent client, until every row is final; and the CPU a push of
/// the whole path (the service's process and PostgreSQL's) for it and for one update fanned out to
/// N tokens. The reference for both is the raw client (`liveline-client-probe`, its own process)
/// sending the same N pushes to the same simulator in the same run.
enum BenchSmallSendsCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench small-sends", abstract: "N one-token activities, N update POSTs, until every row is final; CPU a push of the whole path; against the raw client.",
        usage: "[--activities N] [--parallel N] [--database sqlite,postgres] [--rounds N]",
        options: [
            .init(name: "activities", valueName: "n", help: "Activities, one token each, one update POST each (default 10000)."),
            .init(name: "parallel", valueName: "n", help: "POSTs in flight at once (curl --parallel-max; default 50)."),
            .init(name: "database", valueName: "list", help: "sqlite, postgres or both (default sqlite,postgres)."),
            .init(name: "rounds", valueName: "n", help: "Measure each shape this many times, alternating with the raw client (default 2)."),
        ],
        discussion: """
            An in-process simulator with N phones, each running a flight activity, serves as APNs. One
            `liveline serve` (the `liveline` beside this executable) on SQLite or on a throw-away PostgreSQL
            holds activities a0…a<N-1>, one token each, and one activity holding all N tokens.
            small sends  curl -Z --parallel-max P POSTs /v1/activities/a<i>/update for every i (HTTP/1.1
                         keep-alive); the clock stops when /metrics shows no row not final and N more rows sent.
            fan-out      one POST /v1/activities/fan/update, until every row is final.
            raw          liveline-client-probe sends N updates to the same N tokens with APNSClient.sendAll.
            CPU a push is read from /proc: the `liveline serve` process (utime + stime), and every child of
            PostgreSQL's postmaster (its backends, WAL writer, checkpointer...); the raw client's from its own
            getrusage. The simulator's CPU (in this process) is in neither. On PostgreSQL it also prints, per
            push, the transactions, rows written, and rows read by index and by sequential scan (by table),
            from pg_stat_database and pg_stat_user_tables; every table holding rows is ANALYZEd before each measurement.
            Needs curl, PostgreSQL's server programs (Debian: postgresql) for postgres, and liveline-client-probe
            (swift build -c release --product liveline-client-probe).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let count = try arguments.int("activities") ?? 10_000
        let parallel = try arguments.int("parallel") ?? 50
        let rounds = try arguments.int("rounds") ?? 2
        let databases = (arguments.value("database") ?? "sqlite,postgres").split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }
        guard count > 0, parallel > 0, rounds > 0 else { throw arguments.usageError("'--activities', '--parallel' and '--rounds' must be positive") }
        for d in databases where d != "sqlite" && d != "postgres" {
            throw arguments.usageError("'--database' takes sqlite, postgres or both separated by a comma, got '\(d)'")
        }
        let probe = try SiblingExecutable.path("liveline-client-probe", neededBy: "liveline-bench small-sends")
        _ = try BenchWorkspace.liveline()
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }

        let setupStart = Date()
        let rig = try FanOutRig(workspace: workspace, phones: count, logCapacity: 0, seed: 1)
        defer { Task { await rig.stop() } }
        Console.err("small-sends: \(count) simulated phones with a running activity in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s")
        let keyFile = workspace.directory.appendingPathComponent("AuthKey_\(rig.keyID).p8").path
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(rig.keyPEM.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError(message: "cannot write \(keyFile)")
        }
        let tokensFile = workspace.directory.appendingPathComponent("tokens.txt").path
        try Data(rig.tokens.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: tokensFile))
        let bodyFile = workspace.directory.appendingPathComponent("update.json").path
        try Data(FanOutRig.updateBody(gate: "K9").serialized()).write(to: URL(fileURLWithPath: bodyFile))

        /// The raw client in its own process: pushes a second and CPU µs a push.
        func raw() throws -> (rate: Double, cpuMicros: Double) {
            let figures = try BenchClientMemoryCommand.runProbe(probe, [
                "--port", String(rig.server.port), "--ca", rig.server.caFile, "--key", keyFile, "--key-id", rig.keyID, "--team-id", rig.teamID,
                "--count", String(count), "--tokens", tokensFile,
            ], environment: [:])
            return (Double(count) / (figures["seconds"] ?? .nan), (figures["cpu"] ?? .nan) * 1e6 / Double(count))
        }

        Console.out("simulator in process with \(count) phones; \(ProcessInfo.processInfo.activeProcessorCount) cores; load \(BenchClientMemoryCommand.loadAverage()); "
            + "\(parallel) POSTs in flight")
        Console.out("\ndatabase  shape        round  pushes/s  raw/s   vs raw  CPU µs/push: service  PostgreSQL  whole path  raw client  whole/raw  POSTs s")
        var cluster: PostgresCluster?
        defer { cluster?.remove() }
        for database in databases {
            var url: String
            if database == "postgres" {
                if cluster == nil { cluster = try PostgresCluster.start() }
                url = try cluster!.makeDatabase("liveline_small_sends")
            } else {
                url = workspace.directory.appendingPathComponent("small-sends.db").path
            }
            let adminKey = try rig.seed(database: url, activityIDs: ["fan"])
            try seedActivities(database: url, tokens: rig.tokens)
            let instance = try await FanOutRig.serve(rig.environment(database: url))
            let api = try CurlClient(baseURL: instance.url, key: adminKey, workspace: workspace)
            let postmaster = database == "postgres" ? cluster.flatMap { Self.postmasterPID($0.directory) } : nil
            for round in 1...rounds {
                for shape in ["small sends", "fan-out"] {
                    let reference = try raw()
                    if database == "postgres" {
                        // What autovacuum does within a minute of a bulk load (this run is shorter than its
                        // naptime): on stale statistics the planner reads whole tables (devices) by
                        // sequential scan for each push. Only tables that hold rows, as autovacuum would:
                        // an empty `sends` analyzed as empty made every outbox insert's foreign-key check
                        // (a plan cached by the backend) read all of `sends` until the next ANALYZE.
                        let connection = try PostgresConnection(url)
                        defer { connection.close() }
                        for table in try connection.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").compactMap({ $0.string("tablename") })
                        where try !connection.query("SELECT 1 AS one FROM \"\(table)\" LIMIT 1").isEmpty {
                            try connection.execute("ANALYZE \"\(table)\"")
                        }
                    }
                    let before = try Self.sentRows(api)
                    let serviceCPU = Self.processCPU(instance.process.processIdentifier)
                    let postgresCPU = postmaster.map { Self.childrenCPU(of: $0) } ?? 0
                    let statsBefore = database == "postgres" ? try Self.postgresStatistics(url) : [:]
                    let start = Date()
                    if shape == "small sends" {
                        try Self.postAll(api: api, count: count, parallel: parallel, bodyFile: bodyFile, workspace: workspace)
                    } else {
                        _ = try api.expect("POST", "/v1/activities/fan/update", FanOutRig.updateBody(gate: "F\(round)"))
                    }
                    let answered = Date().timeIntervalSince(start)
                    try Self.waitSent(api, count: before + count)
                    let seconds = Date().timeIntervalSince(start)
                    let service = (Self.processCPU(instance.process.processIdentifier) - serviceCPU) * 1e6 / Double(count)
                    let postgres = postmaster.map { (Self.childrenCPU(of: $0) - postgresCPU) * 1e6 / Double(count) } ?? 0
                    let rate = Double(count) / seconds
                    Console.out(BenchClientMemoryCommand.pad(database, 8) + "  " + BenchClientMemoryCommand.pad(shape, 11) + String(format: "  %5d  %8.0f  %6.0f  %6.2fx  %18.1f  %10@  %10.1f  %10.1f  %8.2fx", round,
                                       rate, reference.rate, rate / reference.rate, service, postmaster == nil ? "-" as NSString : String(format: "%.1f", postgres) as NSString,
                                       service + postgres, reference.cpuMicros, (service + postgres) / reference.cpuMicros)
                                + String(format: "  %9.2f", answered))
                    if database == "postgres" {
                        // Each backend flushes its counters at most once a second, when it goes idle.
                        usleep(2_000_000)
                        let after = try Self.postgresStatistics(url)
                        func per(_ key: String) -> Double { Double((after[key] ?? 0) - (statsBefore[key] ?? 0)) / Double(count) }
                        var tables: [(name: String, rows: Double)] = []
                        for key in after.keys where key.hasPrefix("seq_tup_read ") {
                            let rows = per(key)
                            if rows >= 0.5 { tables.append((String(key.dropFirst("seq_tup_read ".count)), rows)) }
                        }
                        tables.sort { $0.rows > $1.rows }
                        let scans = tables.prefix(3).map { "\($0.name) \(Int($0.rows))" }
                        Console.out(String(format: "          PostgreSQL a push: %.1f transactions, %.1f rows inserted, %.1f updated, %.1f deleted, %.0f rows read by index, %.0f by sequential scan",
                                           per("xact_commit"), per("tup_inserted"), per("tup_updated"), per("tup_deleted"), per("idx_tup_fetch"), per("seq_tup_read"))
                                    + (scans.isEmpty ? "" : " (\(scans.joined(separator: ", ")))"))
                    }
                }
            }
            _ = await instance.stop()
        }
        Console.out("\n(the clock runs from the first POST to every row final; POSTs s: when the last POST was answered; the raw client's clock from its first push to its last answer)")
        return 0
    }

    /// The database's cumulative counters: pg_stat_database's transactions and rows, and rows read
    /// by sequential and index scans in all and per table ("seq_tup_read <table>").
    static func postgresStatistics(_ url: String) throws -> [String: Int] {
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        // The statistics collector reports at most every PGSTAT_MIN_INTERVAL; a snapshot taken in a
        // transaction is stable, and pg_stat_clear_snapshot makes this one fresh.
        _ = try connection.query("SELECT pg_stat_clear_snapshot()")
        var values: [String: Int] = [:]
        if let row = try connection.queryOne("""
            SELECT xact_commit, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()
            """) {
            for column in ["xact_commit", "tup_inserted", "tup_updated", "tup_deleted"] { values[column] = row.int(column) ?? 0 }
        }
        for row in try connection.query("SELECT relname, coalesce(seq_tup_read, 0) AS seq, coalesce(idx_tup_fetch, 0) AS idx FROM pg_stat_user_tables") {
            let table = row.string("relname") ?? "?"
            values["seq_tup_read \(table)"] = row.int("seq") ?? 0
            values["seq_tup_read", default: 0] += row.int("seq") ?? 0
            values["idx_tup_fetch", default: 0] += row.int("idx") ?? 0
        }
        return values
    }

    /// Activities a0…a<N-1>, one token each (phone i's), as a delivery app registers them.
    static func seedActivities(database: String, tokens: [String]) throws {
        let store = try openStore(database: database)
        defer { store.close() }
        let now = Date()
        var start = 0
        while start < tokens.count {
            let end = min(tokens.count, start + 5000)
            try store.write { tx in
                for i in start..<end {
                    try tx.upsertActivity(ActivityRecord(activityID: "a\(i)", bundleID: FanOutRig.bundle, attributesType: "FlightAttributes", channelID: nil, startedAt: now))
                    try tx.setActivityToken(TokenRecord(scope: "a\(i)", deviceID: "p\(i)", token: tokens[i], registeredAt: now))
                }
            }
            start = end
        }
    }

    /// POSTs the update to every a<i> with one curl process, `parallel` at a time; every answer must be 2xx.
    static func postAll(api: CurlClient, count: Int, parallel: Int, bodyFile: String, workspace: BenchWorkspace) throws {
        let out = try BenchWorkspace.tool("/usr/bin/curl", [
            "-sS", "-Z", "--parallel-max", String(parallel), "-X", "POST", "-H", "@\(api.headerFile)", "--data-binary", "@\(bodyFile)",
            "-w", "\n@@%{http_code}\n", api.baseURL + "/v1/activities/a[0-\(count - 1)]/update",
        ])
        let statuses = out.split(separator: "\n").filter { $0.hasPrefix("@@") }
        let good = statuses.filter { $0.hasPrefix("@@2") }.count
        guard good == count else {
            let bad = statuses.first { !$0.hasPrefix("@@2") } ?? "none"
            throw CLIError(message: "\(good) of \(count) update POSTs answered 2xx (first other status: \(bad.dropFirst(2)))")
        }
    }

    /// Rows `sent` in all, from /metrics.
    static func sentRows(_ api: CurlClient) throws -> Int {
        try metrics(api)["liveline_outbox_rows{state=\"sent\"}"] ?? 0
    }

    /// Polls /metrics until `sent` rows reach `count` and none is not final (10 minutes at most).
    static func waitSent(_ api: CurlClient, count: Int) throws {
        let deadline = Date().addingTimeInterval(600)
        while true {
            let m = try metrics(api)
            let sent = m["liveline_outbox_rows{state=\"sent\"}"] ?? 0
            if sent >= count, m["liveline_outbox_depth"] == 0 { return }
            guard Date() < deadline else { throw CLIError(message: "rows not final within 600 s: \(sent) of \(count) sent, depth \(m["liveline_outbox_depth"] ?? -1)") }
            usleep(50_000)  // polling interval of a bench measured in seconds, bounded by the deadline
        }
    }

    static func metrics(_ api: CurlClient) throws -> [String: Int] {
        let (status, text) = try api.exchange("GET", "/metrics")
        guard status == 200 else { throw CLIError(message: "GET /metrics answered \(status)") }
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { values[String(parts[0])] = Int(v) }
        }
        return values
    }

    /// User + system CPU seconds of process `pid` (from /proc/<pid>/stat).
    static func processCPU(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return 0 }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The sum of `processCPU` over every process whose parent is `parent`.
    static func childrenCPU(of parent: Int32) -> Double {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return 0 }
        var total = 0.0
        for entry in entries {
            guard let pid = Int32(entry), let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 2, Int32(fields[1]) == parent { total += processCPU(pid) }
        }
        return total
    }

    /// The postmaster's process id, the first line of the data directory's postmaster.pid.
    static func postmasterPID(_ directory: String) -> Int32? {
        guard let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }
}

import Foundation
import LivelineCommandLine
import LivelineCore
import LivelinePostgres
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting

/// `liveline-bench faults`: the fault suite. Real `liveline serve` processes deliver a fan-out to the
/// simulator under seeded APNs faults, under SIGKILL and restarts of instances sharing PostgreSQL,
/// and while PostgreSQL is stopped; every row is then checked against the simulator's log. Each part
/// prints its figures and `ok`, or what went wrong and exits 1. `make test` runs `--short`.
enum BenchFaultsCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench faults", abstract: "The fault suite: APNs faults, SIGKILL of instances on PostgreSQL, PostgreSQL stopped and killed; nothing lost.",
        usage: "[--short] [--pushes N] [--tokens N] [--goaway-every N] [--drop-every N] [--outage-seconds S] [--in-flight N] [--seed N] [--only apns|instances|outage|crash]",
        options: [
            .init(name: "short", valueName: nil, help: "The form `make test` runs: 3000 pushes, 1500 tokens, fault periods scaled down, an outage of three 503s."),
            .init(name: "pushes", valueName: "n", help: "Tokens in the APNs-faults fan-out (default 100000)."),
            .init(name: "tokens", valueName: "n", help: "Tokens in the instances and outage fan-outs (default 50000)."),
            .init(name: "goaway-every", valueName: "n", help: "A GOAWAY every n streams (default 10000)."),
            .init(name: "drop-every", valueName: "n", help: "A dropped connection every n streams (default 20000)."),
            .init(name: "outage-seconds", valueName: "s", help: "How long PostgreSQL stays stopped (default 10)."),
            .init(name: "in-flight", valueName: "n", help: "maxInFlight of each instance (default 1000)."),
            .init(name: "seed", valueName: "n", help: "The simulator's seed: the same seed, the same faults (default 10)."),
            .init(name: "only", valueName: "part", help: "Run one part: apns, instances, outage or crash."),
        ],
        discussion: """
            apns       one update fanned out to N tokens by one `liveline serve` (SQLite) while the simulator
                       answers 5 % 503 and 1 % 429, sends a GOAWAY every 10,000 streams, drops the connection
                       every 20,000 and adds 50 ms to 1 %.
            instances  three `liveline serve` on one PostgreSQL during a fan-out; one is killed with SIGKILL,
                       another stopped and started again.
            outage     PostgreSQL stopped during a fan-out and started again: the API answers 503
                       store-unavailable meanwhile, then recovers by itself.
            crash      the same with PostgreSQL killed instead (SIGKILL to the postmaster and every
                       backend: no shutdown checkpoint), so its next start runs crash recovery from the
                       WAL; the database commits durably here (synchronous_commit on), as a production
                       one does, and every answer the service gave before the kill must survive it.
            Each part checks: one final row per token, `sent` with an apns-id the simulator gave for that
            phone, every phone answered 200 (nothing lost); duplicates counted and bounded by what was
            in flight at each fault. PostgreSQL's server programs are needed (Debian: postgresql).
            """)

    struct Settings {
        var short = false
        var pushes = 100_000
        var tokens = 50_000
        var goAwayEvery = 10_000
        var dropEvery = 20_000
        var outageSeconds = 10.0
        var inFlight = 1000
        var seed: UInt64 = 10
        /// Extra settings for every instance (shorter retries and leases in the short form).
        var serveEnvironment: [String: String] = [:]
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        var s = Settings()
        s.short = arguments.flag("short")
        if s.short {
            s.pushes = 3000
            s.tokens = 1500
            s.goAwayEvery = 400
            s.dropEvery = 800
            s.inFlight = 100
            s.outageSeconds = 0
            s.serveEnvironment = ["LIVELINE_RETRY_BASE_SECONDS": "0.05", "LIVELINE_RETRY_MAX_SECONDS": "0.5", "LIVELINE_LEASE_SECONDS": "2"]
        } else {
            s.serveEnvironment = ["LIVELINE_RETRY_BASE_SECONDS": "0.2", "LIVELINE_RETRY_MAX_SECONDS": "2", "LIVELINE_LEASE_SECONDS": "5"]
        }
        s.pushes = try arguments.int("pushes") ?? s.pushes
        s.tokens = try arguments.int("tokens") ?? s.tokens
        s.goAwayEvery = try arguments.int("goaway-every") ?? s.goAwayEvery
        s.dropEvery = try arguments.int("drop-every") ?? s.dropEvery
        s.outageSeconds = try arguments.double("outage-seconds") ?? s.outageSeconds
        s.inFlight = try arguments.int("in-flight") ?? s.inFlight
        s.seed = UInt64(try arguments.int("seed") ?? 10)
        s.serveEnvironment["LIVELINE_MAX_IN_FLIGHT"] = String(s.inFlight)
        guard s.pushes > 0, s.tokens >= 8, s.goAwayEvery > 1, s.dropEvery > 1, s.outageSeconds >= 0, (1...100_000).contains(s.inFlight) else {
            throw arguments.usageError("'--pushes', '--goaway-every', '--drop-every' and '--in-flight' must be positive, '--tokens' at least 8")
        }
        let only = try arguments.choice("only", among: ["apns", "instances", "outage", "crash"])
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        Console.out("liveline bench faults\(s.short ? " --short" : ""): \(ProcessInfo.processInfo.activeProcessorCount) cores, seed \(s.seed), maxInFlight \(s.inFlight)")
        var failures: [String] = []
        if only == nil || only == "apns" { failures += try await apnsFaults(workspace, s) }
        if only == nil || only == "instances" { failures += try await instances(workspace, s) }
        if only == nil || only == "outage" { failures += try await outage(workspace, s, .stop) }
        if only == nil || only == "crash" { failures += try await outage(workspace, s, .crash) }
        if failures.isEmpty {
            Console.out("faults: ok")
            return 0
        }
        for f in failures { Console.out("FAILED: \(f)") }
        return 1
    }

    // MARK: - APNs faults

    static func apnsFaults(_ workspace: BenchWorkspace, _ s: Settings) async throws -> [String] {
        // GOAWAY on every goAwayEvery-th stream; dropped connections half a GOAWAY period off them,
        // so the two never fall on the same stream.
        let rules = [
            FaultRule(.goAway(.shutdown), every: s.goAwayEvery),
            FaultRule(.dropConnection, skipFirst: s.goAwayEvery / 2, every: s.dropEvery),
            FaultRule(.respond(.serviceUnavailable), probability: 0.05),
            FaultRule(.respond(.tooManyRequests), probability: 0.01),
            FaultRule(.latency(0.05), probability: 0.01),
        ]
        let names = ["GOAWAY", "dropped connection", "503", "429", "50 ms latency"]
        let setupStart = Date()
        let rig = try FanOutRig(workspace: workspace, phones: s.pushes, logCapacity: s.pushes * 2 + 10_000, seed: s.seed, faults: rules)
        let database = workspace.directory.appendingPathComponent("apns-faults.db").path
        let admin = try rig.seed(database: database, activityIDs: ["faults"])
        Console.err("apns: \(s.pushes) phones and tokens ready in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s")
        let instance = try await FanOutRig.serve(rig.environment(database: database, s.serveEnvironment))
        let api = try CurlClient(baseURL: instance.url, key: admin, workspace: workspace)
        let start = Date()
        let accepted = try api.expect("POST", "/v1/activities/faults/update", FanOutRig.updateBody(gate: "F5"))
        _ = try FanOutRig.waitFinal(api, "faults")
        let seconds = Date().timeIntervalSince(start)
        let status = await instance.stop()
        await rig.stop()
        let outcome = try rig.check(database: database, activityID: "faults")
        let fired = rig.simulator.faultCounts
        // A GOAWAY or a dropped connection can cost what was on the wire: answered, but the answer lost.
        let connectionFaults = fired[0] + fired[1]
        let bound = connectionFaults * s.inFlight
        Console.out("apns           \(s.pushes) pushes in \(String(format: "%.1f", seconds)) s (\(Int(Double(s.pushes) / seconds))/s) under faults: "
                    + zip(names, fired).map { "\($0) \($1)" }.joined(separator: ", "))
        Console.out("               \(outcome)")
        Console.out("               duplicates \(outcome.duplicates), at most \(bound) (\(connectionFaults) connection faults × \(s.inFlight) in flight)")
        var failures: [String] = []
        if accepted["queued"]?.numberValue != Double(s.pushes) { failures.append("apns: the update queued \(accepted["queued"]?.jsonString ?? "?"), not \(s.pushes)") }
        if !outcome.clean { failures.append("apns: \(outcome)") }
        if outcome.duplicates > bound { failures.append("apns: \(outcome.duplicates) duplicates, more than \(bound)") }
        for (name, n) in zip(names, fired) where n == 0 { failures.append("apns: the \(name) fault never fired") }
        if status != 0 { failures.append("apns: serve exited with \(status) on SIGTERM") }
        return failures
    }

    // MARK: - Instances on PostgreSQL

    static func instances(_ workspace: BenchWorkspace, _ s: Settings) async throws -> [String] {
        let cluster = try PostgresCluster.start()
        defer { cluster.remove() }
        let url = try cluster.makeDatabase("liveline_instances")
        // In the short form each push waits 20 ms at the simulator, so the fan-out lasts long enough to be interrupted.
        let window = s.short ? 20 : s.inFlight
        // 5 % 503: retries, too, are claimed by whichever instance is free, and run once.
        let rig = try FanOutRig(workspace: workspace, phones: s.tokens, logCapacity: s.tokens * 4 + 10_000, seed: s.seed,
                                faults: [FaultRule(.respond(.serviceUnavailable), probability: 0.05)] + (s.short ? [FaultRule(.latency(0.02))] : []))
        let admin = try rig.seed(database: url, activityIDs: ["instances"])
        var environment = rig.environment(database: url, s.serveEnvironment)
        environment["LIVELINE_MAX_IN_FLIGHT"] = String(window)
        // The instance to kill claims under a longer lease, so its rows are told from the others'
        // (lease_until - updated_at) once it is dead: what it left on the wire.
        let lease = Double(environment["LIVELINE_LEASE_SECONDS"] ?? "") ?? 60
        let a = try await FanOutRig.serve(environment)
        let killed = try await FanOutRig.serve(environment.merging(["LIVELINE_LEASE_SECONDS": String(Int(lease) + 2)]) { $1 })
        var restarted = try await FanOutRig.serve(environment)
        var failures: [String] = []
        let api = try CurlClient(baseURL: a.url, key: admin, workspace: workspace)
        let start = Date()
        let accepted = try api.expect("POST", "/v1/activities/instances/update", FanOutRig.updateBody(gate: "I3"))
        // SIGKILL one instance once a quarter of the fan-out is answered, restart another at half
        // (watching the simulator's own count).
        try await waitAccepted(rig, s.tokens / 4)
        killed.process.send(SIGKILL)
        let killStatus = await killed.process.exitStatus()
        let atKill = rig.simulator.counts.accepted
        let orphans = try leftOnTheWire(url, activityID: "instances", longerThan: lease + 1)
        try await waitAccepted(rig, s.tokens / 2)
        let stopStatus = await restarted.stop()
        let atRestart = rig.simulator.counts.accepted
        restarted = try await FanOutRig.serve(environment)
        _ = try FanOutRig.waitFinal(api, "instances")
        let seconds = Date().timeIntervalSince(start)
        // Scheduled work: an end due in two seconds, with two instances waiting for it; each phone gets it once.
        let endAt = Date().addingTimeInterval(2)
        _ = try api.expect("POST", "/v1/activities/instances/end", ["at": .string(ISO8601DateFormatter().string(from: endAt))])
        _ = try FanOutRig.waitFinal(api, "instances")
        let statuses = [await a.stop(), await restarted.stop()]
        await rig.stop()
        let outcome = try rig.check(database: url, activityID: "instances")
        let ends = try rig.check(database: url, activityID: "instances", event: "end")
        let early = rig.simulator.log().filter { $0.event == "end" && $0.status == 200 && $0.time < endAt.addingTimeInterval(-1) }.count
        Console.out("instances      \(s.tokens) tokens, 3 instances on PostgreSQL, in \(String(format: "%.1f", seconds)) s: SIGKILL at \(atKill) answered, SIGTERM and restart of another at \(atRestart)")
        Console.out("               \(outcome)")
        Console.out("               duplicates \(outcome.duplicates), at most the \(orphans) rows the killed instance left on the wire (its in-flight window: \(window))")
        Console.out("               scheduled end, two instances waiting: \(ends)\(early > 0 ? "; \(early) sent early" : "")")
        if accepted["queued"]?.numberValue != Double(s.tokens) { failures.append("instances: the update queued \(accepted["queued"]?.jsonString ?? "?"), not \(s.tokens)") }
        if killStatus != 128 + SIGKILL { failures.append("instances: the killed instance exited with \(killStatus)") }
        if atKill >= s.tokens { failures.append("instances: the fan-out finished before the kill; nothing was proved") }
        if !outcome.clean { failures.append("instances: \(outcome)") }
        if outcome.duplicates > orphans || orphans > window {
            failures.append("instances: \(outcome.duplicates) duplicates, \(orphans) rows left on the wire by the killed instance, window \(window)")
        }
        if !ends.clean || ends.duplicates > 0 || early > 0 { failures.append("instances: the scheduled end did not run once per phone: \(ends), \(early) early") }
        if stopStatus != 0 || statuses.contains(where: { $0 != 0 }) { failures.append("instances: SIGTERM exit statuses \(stopStatus), \(statuses)") }
        return failures
    }

    /// Rows of `activityID` still `sending` under a lease longer than `seconds`: the killed instance's.
    static func leftOnTheWire(_ url: String, activityID: String, longerThan seconds: Double) throws -> Int {
        let db = try PostgresConnection(url)
        defer { db.close() }
        return try db.queryOne("SELECT count(*) AS n FROM outbox WHERE activity_id = $1 AND state = 'sending' AND lease_until - updated_at > $2",
                               [.text(activityID), .real(seconds)])?.int("n") ?? 0
    }

    /// Returns once the simulator has answered `count` pushes with 200 (it polls a counter).
    static func waitAccepted(_ rig: FanOutRig, _ count: Int, timeout: TimeInterval = 300) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while rig.simulator.counts.accepted < count {
            guard Date() < deadline else { throw CLIError(message: "the simulator answered \(rig.simulator.counts.accepted) pushes, not \(count), within \(Int(timeout)) s") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    // MARK: - The database going away

    /// How the database goes away mid-fan-out.
    enum Outage: String {
        /// `pg_ctl stop -m fast`: connections closed, a shutdown checkpoint.
        case stop = "outage"
        /// SIGKILL to the server and its backends: no checkpoint, crash recovery at the next start.
        case crash
    }

    static func outage(_ workspace: BenchWorkspace, _ s: Settings, _ kind: Outage) async throws -> [String] {
        let part = kind.rawValue
        let cluster = try PostgresCluster.start()
        defer { cluster.remove() }
        let url = try cluster.makeDatabase("liveline_\(part)")
        if kind == .crash {
            // The throw-away cluster commits asynchronously (synchronous_commit=off on its command
            // line): a killed server would lose what it had acknowledged in its last few hundred
            // milliseconds, which no production database does. A database setting outranks the
            // command line for the connections made after it.
            let admin = try PostgresConnection(cluster.url)
            defer { admin.close() }
            try admin.execute("ALTER DATABASE liveline_crash SET synchronous_commit = on")
        }
        let window = s.short ? 20 : s.inFlight
        let rig = try FanOutRig(workspace: workspace, phones: s.tokens, logCapacity: s.tokens * 3 + 10_000, seed: s.seed,
                                faults: s.short ? [FaultRule(.latency(0.02))] : [])
        let admin = try rig.seed(database: url, activityIDs: [part])
        var environment = rig.environment(database: url, s.serveEnvironment)
        environment["LIVELINE_MAX_IN_FLIGHT"] = String(window)
        let instance = try await FanOutRig.serve(environment)
        let api = try CurlClient(baseURL: instance.url, key: admin, workspace: workspace)
        var failures: [String] = []
        let start = Date()
        let accepted = try api.expect("POST", "/v1/activities/\(part)/update", FanOutRig.updateBody(gate: "O1"))
        let registered = try api.call("PUT", "/v1/devices/before-outage", ["bundleID": .string(FanOutRig.bundle), "iosVersion": "18.2"])
        try await waitAccepted(rig, s.tokens / 4)

        switch kind {
        case .stop: try cluster.stop()
        case .crash: try await crash(cluster)
        }
        let stopped = Date()
        let atStop = rig.simulator.counts.accepted
        // While the database is down: every answer is 503 store-unavailable (or the request was not
        // accepted at all); the short form waits for three such answers, the full one for the outage's length.
        var during: [Int: Int] = [:]
        var message = ""
        var unexpected: [String] = []
        var probe = 0
        while true {
            probe += 1
            let path = probe % 2 == 0 ? "/v1/devices/during-\(probe)" : "/v1/activities/\(part)/update"
            let body: JSONValue = probe % 2 == 0 ? ["bundleID": .string(FanOutRig.bundle), "iosVersion": "18.2"] : FanOutRig.updateBody(gate: "X\(probe)")
            let (status, json) = try api.call(probe % 2 == 0 ? "PUT" : "POST", path, body)
            during[status, default: 0] += 1
            if status == 503 {
                if json["error"]?["code"]?.stringValue != "store-unavailable" { unexpected.append("503 \(json.jsonString)") }
                message = json["error"]?["message"]?.stringValue ?? ""
            } else {
                unexpected.append("\(status) \(json.jsonString.prefix(200))")
            }
            if s.short ? during[503, default: 0] >= 3 : Date().timeIntervalSince(stopped) >= s.outageSeconds { break }
            if !s.short { try await Task.sleep(for: .milliseconds(100)) }  // pacing the probes, not waiting for anything
            if probe > 100_000 { break }
        }
        try cluster.start()
        let restartedAt = Date()
        // Recovery by itself: the same request works again, with nothing done to the service.
        var after503 = 0
        var recovered = false
        while Date().timeIntervalSince(restartedAt) < 60 {
            let (status, _) = try api.call("PUT", "/v1/devices/after-outage", ["bundleID": .string(FanOutRig.bundle), "iosVersion": "18.2"])
            if status == 201 || status == 200 { recovered = true; break }
            if status == 503 { after503 += 1 } else { unexpected.append("after the restart: \(status)"); break }
        }
        let recoverySeconds = Date().timeIntervalSince(restartedAt)
        _ = try FanOutRig.waitFinal(api, part)
        let seconds = Date().timeIntervalSince(start)
        let status = await instance.stop()
        await rig.stop()
        let outcome = try rig.check(database: url, activityID: part)
        let recoveredFromCrash = kind == .crash ? try cluster.ranCrashRecovery() : false
        let store = try openStore(database: url)
        let devicesKept = try store.write { tx in [try tx.device("before-outage"), try tx.device("after-outage")].compactMap { $0 }.count }
        let sendsAfter = try store.write { try $0.deliveryCounts(activityID: part) }.values.reduce(0, +)
        store.close()
        Console.out("\(part.padding(toLength: 15, withPad: " ", startingAt: 0))\(s.tokens) tokens, PostgreSQL \(kind == .crash ? "killed (SIGKILL)" : "stopped") at \(atStop) answered for \(String(format: "%.1f", restartedAt.timeIntervalSince(stopped))) s: "
                    + "\(during.sorted { $0.key < $1.key }.map { "\($1)× \($0)" }.joined(separator: ", ")) meanwhile (\"\(message)\"); "
                    + "recovered \(String(format: "%.2f", recoverySeconds)) s after the start (\(after503) more 503s); run \(String(format: "%.1f", seconds)) s")
        Console.out("               \(outcome)")
        Console.out("               duplicates \(outcome.duplicates), at most \(window) (the pushes on the wire when the database went)")
        if accepted["queued"]?.numberValue != Double(s.tokens) { failures.append("\(part): the update queued \(accepted["queued"]?.jsonString ?? "?"), not \(s.tokens)") }
        if registered.status != 201 { failures.append("\(part): registration before the outage answered \(registered.status)") }
        if during[503, default: 0] == 0 { failures.append("\(part): no 503 while the database was down") }
        if !unexpected.isEmpty { failures.append("\(part): unexpected answers: \(unexpected.prefix(5))") }
        if !recovered { failures.append("\(part): the service did not recover within 60 s of the restart") }
        if atStop >= s.tokens { failures.append("\(part): the fan-out finished before the database stopped; nothing was proved") }
        if !outcome.clean { failures.append("\(part): \(outcome)") }
        if sendsAfter != s.tokens { failures.append("\(part): \(sendsAfter) rows, not \(s.tokens): a send refused during the outage was queued") }
        if devicesKept != 2 { failures.append("\(part): \(2 - devicesKept) accepted registrations lost") }
        if outcome.duplicates > window { failures.append("\(part): \(outcome.duplicates) duplicates, more than the window \(window)") }
        if status != 0 { failures.append("\(part): serve exited with \(status) on SIGTERM") }
        if kind == .crash, !recoveredFromCrash { failures.append("crash: PostgreSQL's log shows no crash recovery after the restart: the kill did not crash it") }
        return failures
    }

    /// SIGKILL to the cluster's postmaster and every process it started, as a crash or the OOM
    /// killer would; returns once none of them runs (10 s at most).
    static func crash(_ cluster: PostgresCluster) async throws {
        let pidFile = cluster.directory + "/data/postmaster.pid"
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0.trimmingCharacters(in: .whitespaces)) }) else {
            throw CLIError(message: "crash: cannot read the postmaster's pid from \(pidFile)")
        }
        // Its children, read before the kill: once it is dead they are re-parented and no longer tell.
        var victims = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // "pid (comm) state ppid …": the fields after the command's closing parenthesis.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { victims.append(pid) }
        }
        for pid in victims { _ = kill(pid, SIGKILL) }
        let deadline = ContinuousClock.now + .seconds(10)
        // Gone from the process table, or a zombie its new parent has not reaped yet.
        func running(_ pid: Int32) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
        }
        while let alive = victims.first(where: running) {
            guard ContinuousClock.now < deadline else { throw CLIError(message: "crash: PostgreSQL process \(alive) still runs 10 s after SIGKILL") }
            try await Task.sleep(for: .milliseconds(5))  // polling the process table, bounded by the deadline
        }
        // The postmaster's new parent is init. An init that does not reap (a container's or a
        // micro-VM's) leaves it a zombie, which PostgreSQL's lock-file checks (the data directory's
        // and the socket's) take for a running server: remove the lock files as the server does
        // for a dead pid. With a reaping init the server removes them itself.
        if FileManager.default.fileExists(atPath: "/proc/\(postmaster)/stat") {
            let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: cluster.directory)) ?? [])
                .filter { $0.hasPrefix(".s.PGSQL.") && $0.hasSuffix(".lock") }.map { cluster.directory + "/" + $0 }
            for file in [pidFile] + sockets where FileManager.default.fileExists(atPath: file) {
                try FileManager.default.removeItem(atPath: file)
            }
        }
    }
}

extension PostgresCluster {
    /// Whether the server's log shows it recovered from a crash (WAL replay at start).
    func ranCrashRecovery() throws -> Bool {
        let log = try String(contentsOfFile: directory + "/server.log", encoding: .utf8)
        return log.contains("not properly shut down; automatic recovery in progress")
    }
}

extension CurlClient {
    /// The status and JSON answer of `method path` with `body`, whatever the status.
    func call(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> (status: Int, json: JSONValue) {
        let (status, text) = try exchange(method, path, body)
        return (status, (try? JSONValue.parse(Array(text.utf8))) ?? .string(String(text)))
    }
}

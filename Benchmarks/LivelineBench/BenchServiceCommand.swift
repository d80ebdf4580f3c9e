import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineProcess
import LivelineTesting
import LivelineToolSupport

/// `liveline-bench service`: the service's registrations, fan-out and memory, each beside a
/// reference measured in the same run.
enum BenchServiceCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench service", abstract: "Benchmark the service: registrations (wrk), fan-out against the raw client, RSS with 1M tokens.",
        usage: "[--fanout N] [--tokens N] [--seconds S] [--threads N] [--only registrations|fanout|memory]",
        options: [
            .init(name: "fanout", valueName: "n", help: "Activity tokens in the fan-out (default 100000)."),
            .init(name: "tokens", valueName: "n", help: "Registered tokens for the memory figure (default 1000000)."),
            .init(name: "seconds", valueName: "s", help: "wrk duration per run (default 5)."),
            .init(name: "threads", valueName: "n", help: "The service's HTTP threads (default: the service's default, \(ServiceConfiguration().threads))."),
            .init(name: "only", valueName: "part", help: "Run one part: registrations, fanout or memory."),
            .init(name: "as", valueName: "credential", help: "Registrations with each device's installation credential (default) or the admin key (the checks before installations: no ownership check)."),
        ],
        discussion: """
            registrations  wrk -t2 -c50 PUTs update tokens (one SQLite upsert each) against the service,
                           each by the installation holding the activity, beside wrk on the same
                           server's /healthz (the HTTP layer alone). Each of the 10,000 installations'
                           first request (its credential read from the store) is measured apart
                           first; the main figure is the steady state, every credential cached.
            fanout         one update to N activity tokens, from POST to every row final, through the
                           service to an in-process simulator; beside APNSClient.sendAll of the same pushes
                           (run before and after the service; the mean is the reference).
            memory         a `liveline serve` process on a database of N tokens, after a wrk run of
                           registrations and a fan-out: its peak RSS (VmHWM).
            Needs wrk (Debian: wrk).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let fanout = try arguments.int("fanout") ?? 100_000
        let tokens = try arguments.int("tokens") ?? 1_000_000
        let seconds = try arguments.int("seconds") ?? 5
        let threads = try arguments.int("threads") ?? ServiceConfiguration().threads
        guard fanout > 0, tokens > 0, seconds > 0, (1...64).contains(threads) else {
            throw arguments.usageError("'--fanout', '--tokens' and '--seconds' must be positive, '--threads' from 1 to 64")
        }
        let only = try arguments.choice("only", among: ["registrations", "fanout", "memory"])
        let asAdmin = try arguments.choice("as", among: ["installation", "admin"]) == "admin"
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        Console.out("liveline bench service: \(ProcessInfo.processInfo.activeProcessorCount) cores, SQLite \(SQLiteStore.libraryVersion)")
        if only == nil || only == "registrations" { try await registrations(workspace, seconds: seconds, threads: threads, asAdmin: asAdmin) }
        if only == nil || only == "fanout" { try await fanOut(workspace, count: fanout) }
        if only == nil || only == "memory" { try await memory(workspace, tokens: tokens, seconds: seconds) }
        return 0
    }

    // MARK: - Registrations

    static let devices = 10_000

    /// A service on a fresh database with `devices` devices and an admin key; returns it and the key.
    /// Each device `d<n>` is an installation (its secret in `installationSecrets`), and activities
    /// `bench-0` to `bench-99` exist with a token of each of their devices, so the registrations the
    /// bench sends are token rotations by the installation that holds the activity (the app's hot path).
    static func service(_ workspace: BenchWorkspace, name: String, apnsHost: String? = nil, caFile: String? = nil, maxInFlight: Int = 1000,
                        threads: Int = ServiceConfiguration().threads) throws -> (ServiceServer, String) {
        var config = ServiceConfiguration()
        config.port = 0
        config.database = workspace.directory.appendingPathComponent("\(name).db").path
        config.rateLimit = 10_000_000
        config.rateBurst = 10_000_000
        config.installationRateLimit = 10_000_000
        config.installationRateBurst = 10_000_000
        config.addressRateLimit = 10_000_000
        config.addressRateBurst = 10_000_000
        config.threads = threads
        config.apnsHost = apnsHost
        config.caFile = caFile
        config.maxInFlight = maxInFlight
        config.kek = SecretBox.generateKeyText()  // as a deployment runs: the .p8 keys encrypted at rest
        let server = try ServiceServer.start(config) { Console.err($0) }
        try server.store.write { tx in
            for k in 0..<100 {
                try tx.upsertActivity(ActivityRecord(activityID: "bench-\(k)", bundleID: "com.example.flights", attributesType: "", channelID: nil, startedAt: Date()))
            }
            for i in 0..<devices {
                try tx.upsertDevice(DeviceRecord(deviceID: "d\(i)", bundleID: "com.example.flights", iosVersion: "17.5", userID: nil, frequentUpdates: false, updatedAt: Date()))
                try tx.insertInstallation(InstallationRecord(installationID: "d\(i)", bundleID: "com.example.flights", secretHash: KeyAuthority.hash(installationSecrets[i]), createdAt: Date()))
                try tx.setActivityToken(TokenRecord(scope: "bench-\(i % 100)", deviceID: "d\(i)", token: String(format: "%064x", i + 10_000_000), registeredAt: Date()))
            }
        }
        return (server, server.firstAdminKey ?? "")
    }

    /// The installation secrets of `d0` … `d<devices - 1>` (made for this run).
    static let installationSecrets: [String] = (0..<devices).map { _ in "ll_inst_" + Digest.hex(Digest.randomBytes(20)) }

    /// A wrk script that PUTs a fresh update token for device `d<n>` of activity `bench-<n % 100>`,
    /// with `d<n>`'s installation credential. With `firstOnly`, each wrk thread stops once it has
    /// had an answer for each of its half of the devices: every installation's first request.
    static func registrationScript(adminKey: String? = nil, firstOnly: Bool = false) -> String {
        let secrets = installationSecrets.map { "\"\(adminKey ?? $0)\"" }.joined(separator: ",")
        return """
        local secrets = {\(secrets)}
        local n = 0
        local answered = 0
        local limit = \(firstOnly ? devices / 2 : 0)
        local thread_id = 0
        setup = function(thread) thread:set("tid", thread_id); thread_id = thread_id + 1 end
        request = function()
          n = n + 1
          local i = (n * 2 + tid) % \(devices)
          local token = string.format("%064x", n * 2 + tid)
          return wrk.format("PUT", "/v1/activities/bench-" .. (i % 100) .. "/tokens/d" .. i,
            {["Authorization"] = "Bearer " .. secrets[i + 1], ["Content-Type"] = "application/json"}, '{"token":"' .. token .. '"}')
        end
        response = function(status, headers, body)
          answered = answered + 1
          if limit > 0 and answered >= limit then wrk.thread:stop() end
        end
        done = function(summary, latency, requests) io.write(string.format("non2xx=%d\\n", summary.errors.status)) end
        """
    }

    /// `wrk` against `url`; also the service's CPU microseconds per request over the run, a
    /// figure that other load on the machine does not change much.
    static func wrk(_ url: String, seconds: Int, script: String?, workspace: BenchWorkspace) throws -> (rate: Double, non2xx: Int, cpuMicros: Double, requests: Int) {
        var args = ["-t2", "-c50", "-d\(seconds)s", "--latency"]
        if let script {
            let file = workspace.directory.appendingPathComponent("wrk-\(UUID().uuidString.prefix(6)).lua")
            try Data(script.utf8).write(to: file)
            args += ["-s", file.path]
        }
        let cpuBefore = BenchClientCommand.cpuSeconds()
        let out = try BenchWorkspace.tool("/usr/bin/wrk", args + [url])
        let cpu = BenchClientCommand.cpuSeconds() - cpuBefore
        let lines = out.split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("Requests/sec:") }),
              let rate = Double(line.split(separator: " ").last ?? "") else { throw CLIError(message: "wrk printed no rate:\n\(out)") }
        let non2xx = lines.first { $0.contains("Non-2xx") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        // "  123456 requests in 5.00s, 12.34MB read"
        let requests = lines.first { $0.contains(" requests in ") }.flatMap { Double($0.split(separator: " ").first ?? "") } ?? 0
        return (rate, non2xx, requests > 0 ? cpu * 1e6 / requests : 0, Int(requests))
    }

    static func registrations(_ workspace: BenchWorkspace, seconds: Int, threads: Int, asAdmin: Bool = false) async throws {
        let (server, adminKey) = try service(workspace, name: "registrations", threads: threads)
        defer { Task { await server.stop() } }
        let health = try wrk(server.url + "/healthz", seconds: seconds, script: nil, workspace: workspace)
        // Each installation's first request reads its credential from the store (then it is
        // cached): measured apart, so the figure below is the steady state, every credential
        // cached, as the previous version's one API key was.
        // wrk waits out its duration after its threads stop, so this pass has no rate; the idle
        // rest of it adds about 0.1 % of a core, under 1 µs a request.
        let first = asAdmin ? nil : try wrk(server.url, seconds: 6, script: registrationScript(firstOnly: true), workspace: workspace)
        let before = (server.store as? SQLiteStore)?.groupCommitCounts
        let registrations = try wrk(server.url, seconds: seconds, script: registrationScript(adminKey: asAdmin ? adminKey : nil), workspace: workspace)
        // Commits during the wrk run only: the set-up before and the store-alone run after are one a commit.
        let after = (server.store as? SQLiteStore)?.groupCommitCounts
        let held = try server.store.write { try $0.tokenCount() }
        // The same writes straight to the store, one transaction each, on this thread: SQLite's share.
        let storeOnly = try storeRegistrations(server.store, count: 20_000)
        var grouping = ""
        if let before, let after {
            grouping = String(format: ", %.2f transactions a commit", Double(after.transactions - before.transactions) / Double(max(1, after.batches - before.batches)))
        }
        Console.out("registrations  \(Int(registrations.rate)) token PUTs/s (\(asAdmin ? "admin key" : "installation credentials"), SQLite upsert each, \(threads) HTTP threads\(grouping), \(registrations.non2xx) non-2xx, \(held) tokens held) vs \(Int(health.rate)) GET /healthz/s: \(ratio(registrations.rate, health.rate))× the HTTP layer alone; target 10000/s")
        if let first {
            Console.out("               each installation's first registration (its credential read from the store, then cached), measured before: \(String(format: "%.1f", first.cpuMicros)) µs of CPU each (\(first.requests) requests, \(first.non2xx) non-2xx)")
        }
        Console.out("               the store alone: \(Int(1e6 / storeOnly)) registrations/s on one thread, \(String(format: "%.1f", storeOnly)) µs each (device, activity and token read, token upsert, commit)")
        Console.out("               service CPU a request: \(String(format: "%.1f", registrations.cpuMicros)) µs a registration, \(String(format: "%.1f", health.cpuMicros)) µs a /healthz: \(ratio(health.cpuMicros, registrations.cpuMicros))× (steadier than the rates on a busy machine)")
        await server.stop()
    }

    /// Microseconds of CPU per registration written straight to the store, as the API's handler does.
    static func storeRegistrations(_ store: any Store, count: Int) throws -> Double {
        let before = BenchClientCommand.cpuSeconds()
        for n in 0..<count {
            let i = n % devices
            try store.write { tx in
                _ = try tx.device("d\(i)")
                _ = try tx.activity("bench-\(i % 100)")
                _ = try tx.activityToken(activityID: "bench-\(i % 100)", deviceID: "d\(i)")
                try tx.setActivityToken(TokenRecord(scope: "bench-\(i % 100)", deviceID: "d\(i)", token: String(format: "%064x", n + 1_000_000), registeredAt: Date()))
            }
        }
        return (BenchClientCommand.cpuSeconds() - before) * 1e6 / Double(count)
    }

    // MARK: - Fan-out

    static func fanOut(_ workspace: BenchWorkspace, count: Int) async throws {
        // The simulator with one phone per token, each running the activity.
        let made = try SimulatorSetup.generated(in: workspace.directory.path + "/sim")
        var setup = made.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: "com.example.flights", teamID: made.teamID)]
        setup.configuration.logCapacity = 0
        let simulator = try setup.makeSimulator()
        let flight = FlightAttributes.example(departure: Date().addingTimeInterval(7200))
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: Date().addingTimeInterval(4800))
        var tokens: [String] = []
        tokens.reserveCapacity(count)
        let setupStart = Date()
        for i in 0..<count {
            let id = simulator.addDevice(name: "p\(i)", osVersion: "17.5", id: "p\(i)")
            _ = try simulator.install("com.example.flights", on: id, activityTypes: [.type(FlightAttributes.self)])
            tokens.append(try simulator.startActivity(on: id, bundleID: "com.example.flights", attributes: flight, contentState: state).pushToken!)
        }
        Console.err("fanout: \(count) simulated phones with a running activity in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s")
        let simServer = try SimulatorServer.start(simulator: simulator, certificates: workspace.certificates)
        defer { Task { await simServer.stop() } }
        let keyPEM = String(decoding: FileManager.default.contents(atPath: made.keyFile) ?? Data(), as: UTF8.self)

        // The reference: the raw client, the same pushes, once before the service and once after
        // (their mean is the reference, so a machine busier in one half skews the ratio less).
        let key = try P256PrivateKey(pem: keyPEM)
        func raw(gate: String) async throws -> (seconds: Double, accepted: Int, cpu: Double) {
            var update = state
            update.gate = gate
            let request = PushRequest.liveActivity(try .update(state: update), bundleID: "com.example.flights")
            let client = APNSClient(configuration: APNSConfiguration(
                authentication: .token(key: key, keyID: made.keyID, teamID: made.teamID),
                environment: .custom(host: "127.0.0.1", port: simServer.port, caFile: simServer.caFile)))
            let start = Date(), cpu = BenchClientCommand.cpuSeconds()
            var accepted = 0
            for await r in client.sendAll(tokens.map { (request, $0) }) where r.result.isAccepted { accepted += 1 }
            let seconds = Date().timeIntervalSince(start)
            let used = BenchClientCommand.cpuSeconds() - cpu
            await client.shutdown()
            return (seconds, accepted, used)
        }
        let rawBefore = try await raw(gate: "C7")

        // The service: register the tokens, then one POST update and wait until every row is final.
        let (server, adminKey) = try service(workspace, name: "fanout", apnsHost: "127.0.0.1:\(simServer.port)", caFile: simServer.caFile)
        try server.store.write { tx in
            try tx.upsertApp(AppRecord(bundleID: "com.example.flights", teamID: made.teamID, keyID: made.keyID, keyPEM: keyPEM, environment: "sandbox", createdAt: Date()))
            try tx.upsertActivity(ActivityRecord(activityID: "fanout", bundleID: "com.example.flights", attributesType: "FlightAttributes", channelID: nil, startedAt: Date()))
            for (i, t) in tokens.enumerated() {
                if i >= devices { try tx.upsertDevice(DeviceRecord(deviceID: "d\(i)", bundleID: "com.example.flights", iosVersion: "17.5", userID: nil, frequentUpdates: false, updatedAt: Date())) }
                try tx.setActivityToken(TokenRecord(scope: "fanout", deviceID: "d\(i)", token: t, registeredAt: Date()))
            }
        }
        // curl, not URLSession: on Linux URLSession's event loop keeps a core busy while a request
        // is outstanding, which would take CPU from the service it measures.
        let api = try CurlClient(baseURL: server.url, key: adminKey, workspace: workspace)
        let body: JSONValue = ["contentState": ["status": "scheduled", "gate": "D4", "boardingTime": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(4800))), "delayMinutes": 0, "isBoarding": false]]
        let serviceStart = Date(), serviceCPU = BenchClientCommand.cpuSeconds()
        let accepted = try api.expect("POST", "/v1/activities/fanout/update", body)
        let acceptSeconds = Date().timeIntervalSince(serviceStart)
        var snapshot: JSONValue = .null
        while snapshot["final"] != .bool(true) {
            snapshot = try api.expect("GET", "/v1/activities/fanout?wait=30&limit=1")
        }
        let serviceSeconds = Date().timeIntervalSince(serviceStart)
        let serviceMicros = (BenchClientCommand.cpuSeconds() - serviceCPU) * 1e6 / Double(count)
        let sent = snapshot["counts"]?["sent"]?.numberValue ?? 0
        await server.stop()
        let rawAfter = try await raw(gate: "E9")
        let rawSeconds = (rawBefore.seconds + rawAfter.seconds) / 2
        Console.out("fanout         \(count) tokens: service \(Int(Double(count) / serviceSeconds)) pushes/s accepted-to-final (POST answered in \(String(format: "%.2f", acceptSeconds)) s, \(accepted["queued"]?.jsonString ?? "?") queued, \(Int(sent)) sent) vs raw APNSClient.sendAll \(Int(Double(count) / rawSeconds))/s (before \(Int(Double(count) / rawBefore.seconds))/s and after \(Int(Double(count) / rawAfter.seconds))/s, \(rawBefore.accepted) and \(rawAfter.accepted) accepted): \(ratio(rawSeconds, serviceSeconds))× the raw client; target 0.5×")
        // This process holds the simulator, the client and the service: CPU a push, whole process.
        let rawMicros = (rawBefore.cpu + rawAfter.cpu) * 1e6 / Double(2 * count)
        Console.out("               CPU a push (this process: simulator, client, and the service's store and dispatcher): \(String(format: "%.1f", serviceMicros)) µs through the service, \(String(format: "%.1f", rawMicros)) µs raw: \(ratio(rawMicros, serviceMicros))× (steadier than the rates on a busy machine)")
    }

    // MARK: - Memory

    static func memory(_ workspace: BenchWorkspace, tokens: Int, seconds: Int) async throws {
        let database = workspace.directory.appendingPathComponent("memory.db").path
        let store = try SQLiteStore(path: database)
        let key = KeyAuthority.make(scope: .admin, name: "bench", now: Date())
        try store.write { tx in
            try tx.insertKey(key.record)
            try tx.upsertApp(AppRecord(bundleID: "com.example.flights", teamID: "BENCHTEAM1", keyID: "BENCHKEY01", keyPEM: try P256PrivateKey.generate().pkcs8PEM(), environment: "sandbox", createdAt: Date()))
            for i in 0..<devices {
                try tx.upsertDevice(DeviceRecord(deviceID: "d\(i)", bundleID: "com.example.flights", iosVersion: "17.5", userID: nil, frequentUpdates: false, updatedAt: Date()))
                try tx.insertInstallation(InstallationRecord(installationID: "d\(i)", bundleID: "com.example.flights", secretHash: KeyAuthority.hash(installationSecrets[i]), createdAt: Date()))
                try tx.setActivityToken(TokenRecord(scope: "bench-\(i % 100)", deviceID: "d\(i)", token: String(format: "%064x", i + 10_000_000), registeredAt: Date()))
            }
            for k in 0..<100 {
                try tx.upsertActivity(ActivityRecord(activityID: "bench-\(k)", bundleID: "com.example.flights", attributesType: "", channelID: nil, startedAt: Date()))
            }
        }
        var written = 0
        while written < tokens {
            let batch = min(100_000, tokens - written)
            try store.write { tx in
                for i in written..<(written + batch) {
                    try tx.setActivityToken(TokenRecord(scope: "mem-\(i / devices)", deviceID: "d\(i % devices)", token: String(format: "%064x", i), registeredAt: Date()))
                }
            }
            written += batch
        }
        store.close()
        let executable = try BenchWorkspace.liveline()
        let process = try RunningProcess.start(executable, ["serve", "--port", "0", "--database", database], environment: ProcessInfo.processInfo.environment.merging(["LIVELINE_RATE_LIMIT": "1000000", "LIVELINE_RATE_BURST": "1000000", "LIVELINE_INSTALLATION_RATE_LIMIT": "1000000", "LIVELINE_INSTALLATION_RATE_BURST": "1000000"]) { $1 }, keepStandardError: true)
        defer { process.send(SIGKILL) }
        let out = try await process.output(containing: "Ready.")
        guard let url = out.line(after: "listening on ") else { throw CLIError(message: "serve did not start:\n\(out)") }
        _ = try wrk(url, seconds: seconds, script: registrationScript(), workspace: workspace)
        let api = ServiceHTTPClient(baseURL: url, key: key.secret)
        _ = try await api.expect("GET", "/v1/activities/bench-5?limit=1000")
        _ = try await api.expect("GET", "/metrics")
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Double($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        process.send(SIGTERM)
        _ = await process.exitStatus()
        Console.out("memory         `liveline serve` holding \(tokens) tokens, after \(seconds) s of registrations: peak RSS \(String(format: "%.1f", hwm / 1024)) MB; target under 200 MB")
    }

    static func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "%.2f", a / b) : "-" }
}

/// The bench's calls to the service, made by curl (a separate process) with the key in a header
/// file readable by the owner only, so it appears in no process list.
struct CurlClient {
    let baseURL: String
    let headerFile: String
    let workspace: BenchWorkspace

    init(baseURL: String, key: String, workspace: BenchWorkspace) throws {
        self.baseURL = baseURL
        self.workspace = workspace
        headerFile = workspace.directory.appendingPathComponent("curl-headers-\(UUID().uuidString.prefix(6))").path
        guard FileManager.default.createFile(atPath: headerFile, contents: Data("Authorization: Bearer \(key)\nContent-Type: application/json\n".utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CLIError(message: "cannot write \(headerFile)")
        }
    }

    /// The JSON answer of `method path` with `body`; a status outside 200–299 is an error naming it.
    func expect(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        let (status, text) = try exchange(method, path, body)
        guard (200..<300).contains(status) else { throw CLIError(message: "\(method) \(path) answered \(status): \(text.prefix(300))") }
        return try JSONValue.parse(Array(text.utf8))
    }

    /// The status and body of `method path` with `body`, whatever the status.
    func exchange(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> (status: Int, body: Substring) {
        var arguments = ["-sS", "-X", method, "-H", "@\(headerFile)", "-w", "\n%{http_code}", baseURL + path]
        if let body { arguments += ["--data-binary", String(decoding: body.serialized(), as: UTF8.self)] }
        let out = try BenchWorkspace.tool("/usr/bin/curl", arguments)
        guard let split = out.lastIndex(of: "\n"), let status = Int(out[out.index(after: split)...]) else {
            throw CLIError(message: "curl printed no status for \(method) \(path): \(out.suffix(300))")
        }
        return (status, out[..<split])
    }
}

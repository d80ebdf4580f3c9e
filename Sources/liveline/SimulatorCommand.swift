import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineSimulatorDashboard
import LivelineSimulator

/// `liveline simulator`: runs the APNs simulator; `liveline simulator status|devices|activities|log`
/// queries a running one.
enum SimulatorCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline simulator", abstract: "Run the APNs simulator with simulated iPhones, or query a running one.",
        usage: "[status|devices|activities|log] [options]",
        options: [
            .init(name: "config", valueName: "file", help: "Simulator config (JSON: keys, apps, devices, rules, faults). Without it a key is generated."),
            .init(name: "host", valueName: "address", help: "Address to listen on (default 127.0.0.1; beyond loopback needs --allow-remote)."),
            .init(name: "allow-remote", valueName: nil, help: "Allow a non-loopback --host; the inspection API then needs the printed inspection token."),
            .init(name: "port", valueName: "n", help: "Port to listen on; 0 picks a free one (default 2197)."),
            .init(name: "environment", valueName: "env", help: "sandbox or production when no config sets it (default sandbox)."),
            .init(name: "other-environment-port", valueName: "n", help: "Also listen on this port as the other environment's host: each host answers the other's tokens with 400 BadDeviceToken (0 picks a free one)."),
            .init(name: "state-dir", valueName: "dir", help: "Where the CA, server certificate, generated key and endpoint file go (default .liveline-simulator)."),
            .init(name: "seed", valueName: "n", help: "Seed for ids, tokens and faults (overrides the config)."),
            .init(name: "url", valueName: "https://host:port", help: "Query: the simulator's address (default: from the state directory)."),
            .init(name: "ca-file", valueName: "file", help: "Query: the CA file to trust (default: from the state directory)."),
            .init(name: "limit", valueName: "n", help: "log: how many pushes to show (default 50)."),
            .init(name: "payloads", valueName: nil, help: "log: also print each push's apns- headers and its payload."),
            .init(name: "json", valueName: nil, help: "Query: print the API's JSON instead of text."),
            .init(name: "dashboard", valueName: nil, help: "Also serve the live dashboard of the simulated iPhones on loopback (HTTP/1.1); prints its URL. The clock follows real time until advanced."),
            .init(name: "dashboard-port", valueName: "n", help: "The dashboard's port on 127.0.0.1; 0 picks a free one (default 2198)."),
            .init(name: "forward-interactions", valueName: "url", help: "With --dashboard: POST taps to <url>/v1/activities/{id}/interactions, as the service expects them."),
            .init(name: "forward-key", valueName: "key", help: "With --forward-interactions: the key sent as 'Authorization: Bearer' (never printed): an admin key, since the service takes taps from an app key no longer (docs/security.md)."),
        ],
        positionals: 0...1,
        discussion: """
        With no subcommand the simulator runs until interrupted. It prints its address and the CA file
        clients must trust, then answers like APNs: POST /3/device/<token>, POST /4/broadcasts/apps/<bundle>,
        and the channel API under /1/apps/<bundle>/, all on one HTTP/2 + TLS port. Inspection:
        GET /simulator/v1/status, /devices, /activities, /log (JSON), or the subcommands below.
        The inspection API shows full device tokens, so the simulator listens on loopback unless
        --allow-remote is given; then it asks for 'authorization: Bearer <inspection token>', a token
        printed at start and kept in <state dir>/simulator.json (mode 0600), where the subcommands read it.

          status      environment, keys, apps, push counts
          devices     devices, apps and their tokens
          activities  every Live Activity with its state and content
          log         the latest pushes with their verdicts (accepted, rejected, dropped and why), priority,
                      apns-id and alert; --payloads adds the apns- headers and the payload as sent

        --dashboard serves a page (docs/dashboard.md) with each device's Lock Screen and Dynamic Island,
        its delivery log, its tokens and controls, updated over server-sent events; the same control
        routes (POST /simulator/v1/...) answer scripts on the dashboard's port.
        """)

    static let queries = ["status", "devices", "activities", "log"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let stateDir = arguments.value("state-dir") ?? ".liveline-simulator"
        if let query = arguments.positionals.first {
            guard queries.contains(query) else {
                throw arguments.usageError("unknown subcommand '\(query)' (expected \(queries.joined(separator: ", ")), or none to run the simulator)")
            }
            return try await runQuery(query, arguments: arguments, stateDir: stateDir)
        }
        return try await serve(arguments: arguments, stateDir: stateDir)
    }

    // MARK: - Query

    static func runQuery(_ query: String, arguments: Arguments, stateDir: String) async throws -> Int32 {
        var endpoint: SimulatorInspectionClient.Endpoint
        if let url = arguments.value("url") {
            guard let parsed = URLComponents(string: url), parsed.scheme == "https", let host = parsed.host, let port = parsed.port else {
                throw arguments.usageError("'--url' must look like https://127.0.0.1:2197, got '\(url)'")
            }
            guard let ca = arguments.value("ca-file") ?? (try? SimulatorInspectionClient.Endpoint(stateDirectory: stateDir))?.caFile else {
                throw arguments.usageError("'--url' needs '--ca-file' (the CA the simulator printed)")
            }
            endpoint = .init(host: host, port: port, caFile: ca,
                             inspectionToken: (try? SimulatorInspectionClient.Endpoint(stateDirectory: stateDir))?.inspectionToken)
        } else {
            do { endpoint = try SimulatorInspectionClient.Endpoint(stateDirectory: stateDir) } catch { throw CLIError(message: error.message) }
            if let ca = arguments.value("ca-file") { endpoint.caFile = ca }
        }
        if arguments.flag("payloads"), query != "log" {
            throw arguments.usageError("'--payloads' is for 'liveline simulator log' only (the pushes' headers and payloads), not '\(query)'")
        }
        var route = query
        if query == "log" {
            let limit = try arguments.int("limit") ?? 50
            guard limit >= 0 else { throw arguments.usageError("'--limit' must be 0 or more, got \(limit)") }
            route += "?limit=\(limit)"
        }
        do {
            let json = try await SimulatorInspectionClient.fetch(route, from: endpoint)
            Console.out(arguments.flag("json") ? json.prettyPrinted() : render(query, json, payloads: arguments.flag("payloads")))
        } catch {
            throw CLIError(message: error.message)
        }
        return 0
    }

    /// The inspection JSON as lines a person reads.
    static func render(_ query: String, _ json: JSONValue, payloads: Bool = false) -> String {
        func s(_ v: JSONValue?) -> String { v?.stringValue ?? v.map { $0.jsonString } ?? "-" }
        var lines: [String] = []
        switch query {
        case "status":
            lines.append("environment \(s(json["environment"]))  time \(s(json["time"]))")
            lines.append("devices \(s(json["devices"]))  activities \(s(json["activities"]))  channels \(s(json["channels"]))")
            let p = json["pushes"]
            lines.append("pushes: \(s(p?["accepted"])) accepted, \(s(p?["rejected"])) rejected, \(s(p?["dropped"])) dropped on a device")
            for k in json["keys"]?.arrayValue ?? [] { lines.append("key \(s(k["keyID"])) team \(s(k["teamID"])) scope \(s(k["scope"]))") }
            for a in json["apps"]?.arrayValue ?? [] { lines.append("app \(s(a["bundleID"])) team \(s(a["teamID"]))") }
        case "devices":
            for d in json.arrayValue ?? [] {
                lines.append("\(s(d["id"])) \"\(s(d["name"]))\" iOS \(s(d["iOS"])) \(s(d["environment"]))")
                for a in d["apps"]?.arrayValue ?? [] {
                    lines.append("  \(s(a["bundleID"]))\(a["installed"] == .bool(false) ? " (uninstalled)" : "")  device token \(s(a["deviceToken"]))")
                    for t in a["pushToStartTokens"]?.objectValue ?? [:] { lines.append("    push-to-start \(t.key): \(s(t.value))") }
                }
            }
        case "activities":
            for a in json.arrayValue ?? [] {
                lines.append("\(s(a["id"])) \(s(a["bundleID"])) \(s(a["attributesType"])) \(s(a["state"]).uppercased())  updates \(s(a["updates"])), dropped \(s(a["dropped"]))")
                if let t = a["pushToken"]?.stringValue { lines.append("  update token \(t)") }
                if let c = a["channelID"]?.stringValue { lines.append("  channel \(c)") }
                lines.append("  content \(s(a["contentState"]))")
            }
        default:
            for r in json.arrayValue ?? [] {
                var line = "#\(s(r["sequence"])) \(s(r["time"])) \(s(r["method"])) \(s(r["path"])) \(s(r["status"])) "
                switch r["verdict"]?.stringValue {
                case "rejected": line += "REJECTED \(s(r["reason"]))"
                case "dropped": line += "DROPPED ON DEVICE \(s(r["dropReason"])): \(s(r["detail"]))"
                default: line += "accepted"
                }
                if let e = r["event"]?.stringValue { line += " [\(e)]" }
                if let p = r["priority"] { line += " priority \(s(p))" }
                if let id = r["apnsID"]?.stringValue, !id.isEmpty { line += " apns-id \(id)" }
                lines.append(line)
                if let alert = r["alert"] { lines.append("  alert \(alert.stringValue ?? alert.jsonString)") }
                if payloads { lines += sent(r) }
            }
        }
        return lines.isEmpty ? "(none)" : lines.joined(separator: "\n")
    }

    /// `--payloads`: a log entry's headers and payload as sent, indented under it.
    static func sent(_ r: JSONValue) -> [String] {
        var lines: [String] = []
        for h in r["headers"]?.arrayValue ?? [] { lines.append("  \(h["name"]?.stringValue ?? "-"): \(h["value"]?.stringValue ?? "-")") }
        let bytes = Int(r["payloadBytes"]?.numberValue ?? 0)
        let cut = r["payloadTruncated"] == .bool(true) ? ", cut to what APNs takes" : ""
        if let payload = r["payload"] {
            lines.append("  payload (\(bytes) bytes\(cut)):")
            lines += payload.prettyPrinted().split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
        } else if let text = r["payloadText"]?.stringValue {
            lines.append("  payload (\(bytes) bytes\(cut), not JSON):")
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }
        } else {
            lines.append("  no payload")
        }
        return lines
    }

    // MARK: - Serve

    static func serve(arguments: Arguments, stateDir: String) async throws -> Int32 {
        let host = arguments.value("host") ?? "127.0.0.1"
        let allowRemote = arguments.flag("allow-remote")
        if !allowRemote && !isLoopback(host) {
            throw arguments.usageError("'--host \(host)' is not a loopback address, and the inspection API shows full device tokens; pass --allow-remote to listen there with an inspection token")
        }
        let inspectionToken = allowRemote ? SimulatorServer.makeInspectionToken() : nil
        let port = try arguments.int("port") ?? 2197
        guard (0...65535).contains(port) else { throw arguments.usageError("'--port' must be 0 to 65535, got \(port)") }
        var environment: APNSEnvironment?
        if let e = arguments.value("environment") {
            guard let v = APNSEnvironment(rawValue: e) else { throw arguments.usageError("'--environment' must be sandbox or production, got '\(e)'") }
            environment = v
        }
        let otherPort = try arguments.int("other-environment-port")
        if let otherPort, !(0...65535).contains(otherPort) { throw arguments.usageError("'--other-environment-port' must be 0 to 65535, got \(otherPort)") }
        var seed: UInt64?
        if let s = arguments.value("seed") {
            guard let v = UInt64(s) else { throw arguments.usageError("'--seed' must be a non-negative integer, got '\(s)'") }
            seed = v
        }
        let dashboardOptions = try dashboardOptions(arguments)
        let absoluteState = stateDir.hasPrefix("/") ? stateDir : FileManager.default.currentDirectoryPath + "/" + stateDir
        var setup: SimulatorSetup
        var generatedKey: (file: String, keyID: String, teamID: String)?
        do {
            if let config = arguments.value("config") {
                setup = try SimulatorSetup(contentsOfFile: config)
                if let environment { setup.configuration.environment = environment }
            } else {
                let made = try SimulatorSetup.generated(in: absoluteState, environment: environment ?? .sandbox)
                setup = made.setup
                generatedKey = (made.keyFile, made.keyID, made.teamID)
            }
            if let seed { setup.configuration.seed = seed }
        } catch {
            throw CLIError(message: error.message)
        }
        let simulator: Simulator
        let certificates: SimulatorCertificates
        do {
            simulator = try setup.makeSimulator(clock: dashboardOptions == nil ? SystemClock() : LiveClock())
            certificates = try SimulatorCertificates.prepare(in: absoluteState, extraNames: host == "127.0.0.1" || host == "0.0.0.0" ? [] : [host])
        } catch {
            throw CLIError(message: error.message)
        }
        let server: SimulatorServer
        do {
            server = try SimulatorServer.start(simulator: simulator, certificates: certificates, host: host, port: port,
                                               maxConcurrentStreams: setup.configuration.maxConcurrentStreams, inspectionToken: inspectionToken)
        } catch {
            throw CLIError(message: "cannot start the simulator on \(host):\(port): \(error)")
        }
        var otherServer: SimulatorServer?
        let other: APNSEnvironment = setup.configuration.environment == .sandbox ? .production : .sandbox
        if let otherPort {
            do {
                otherServer = try SimulatorServer.start(simulator: simulator, certificates: certificates, host: host, port: otherPort,
                                                        maxConcurrentStreams: setup.configuration.maxConcurrentStreams, inspectionToken: inspectionToken, environment: other)
            } catch {
                await server.stop()
                throw CLIError(message: "cannot start the simulator's \(other.rawValue) host on \(host):\(otherPort): \(error)")
            }
        }
        let localHost = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host
        let endpoint = SimulatorInspectionClient.Endpoint(host: localHost, port: server.port, caFile: certificates.caFile, inspectionToken: inspectionToken)
        let endpointFile = SimulatorInspectionClient.Endpoint.fileName(inStateDirectory: absoluteState)
        do { try endpoint.write(stateDirectory: absoluteState) } catch {
            await server.stop()
            throw CLIError(message: error.message)
        }

        var dashboard: Dashboard?
        if let options = dashboardOptions {
            do {
                dashboard = try Dashboard.start(control: SimulatorControl(simulator: simulator, forwarding: options.forwarding), port: options.port)
            } catch {
                await server.stop()
                try? FileManager.default.removeItem(atPath: endpointFile)
                throw CLIError(message: "cannot start the dashboard: \(error.message)")
            }
        }

        var text = "APNs simulator (\(setup.configuration.environment.rawValue)) listening on \(server.url)\n"
        if let otherServer { text += "APNs simulator (\(other.rawValue)) listening on \(otherServer.url)\n" }
        if let dashboard {
            text += "Dashboard: \(dashboard.accessURL)\n"
            if let forwarding = dashboardOptions?.forwarding { text += "Taps are forwarded to \(forwarding.baseURL.absoluteString)/v1/activities/{id}/interactions\n" }
        }
        text += "CA file: \(certificates.caFile)\n"
        if let inspectionToken {
            text += "Inspection token: \(inspectionToken) (send 'authorization: Bearer <token>' to /simulator/v1/; also in \(endpointFile), mode 0600)\n"
        }
        if let key = generatedKey {
            text += "Generated key: \(key.file) (key ID \(key.keyID), team ID \(key.teamID))\n"
        }
        for device in simulator.devices() {
            text += "Device \(device.id) \"\(device.name)\" iOS \(device.osVersion) (\(device.environment.rawValue))\n"
            for app in device.apps {
                text += "  \(app.bundleID) device token \(app.deviceToken)\n"
                for type in app.activityTypes {
                    if let token = app.pushToStartTokens[type] { text += "  \(app.bundleID) push-to-start \(type): \(token)\n" }
                }
            }
        }
        text += "Inspect: liveline simulator status|devices|activities|log --state-dir \(stateDir)\n"
        text += "Ready."
        Console.out(text)

        await waitForTermination()
        await dashboard?.stop()
        await server.stop()
        await otherServer?.stop()
        try? FileManager.default.removeItem(atPath: endpointFile)
        Console.err("simulator stopped")
        return 0
    }

    /// `--dashboard` and its options; nil without it (its options alone are a usage error).
    static func dashboardOptions(_ arguments: Arguments) throws -> (port: Int, forwarding: InteractionForwarding?)? {
        guard arguments.flag("dashboard") else {
            for name in ["dashboard-port", "forward-interactions", "forward-key"] where arguments.value(name) != nil {
                throw arguments.usageError("'--\(name)' needs '--dashboard'")
            }
            return nil
        }
        let port = try arguments.int("dashboard-port") ?? 2198
        guard (0...65535).contains(port) else { throw arguments.usageError("'--dashboard-port' must be 0 to 65535, got \(port)") }
        var forwarding: InteractionForwarding?
        if let text = arguments.value("forward-interactions") {
            guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw arguments.usageError("'--forward-interactions' must be an http or https URL such as http://127.0.0.1:8080, got '\(text)'")
            }
            forwarding = InteractionForwarding(baseURL: url, appKey: arguments.value("forward-key"))
        } else if arguments.value("forward-key") != nil {
            throw arguments.usageError("'--forward-key' needs '--forward-interactions'")
        }
        return (port, forwarding)
    }

    /// Whether `host` is a loopback address (`localhost`, `127.0.0.0/8`, `::1`).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Returns when SIGINT or SIGTERM arrives.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            SignalWaiter.shared.wait { continuation.resume() }
        }
    }
}

/// Turns SIGINT/SIGTERM into one callback (signal sources live on a private queue).
final class SignalWaiter: @unchecked Sendable {
    static let shared = SignalWaiter()
    // Confinement: `sources`, `signalled` and `callback` are touched only on `queue`.
    private let queue = DispatchQueue(label: "liveline.signals")
    private var sources: [DispatchSourceSignal] = []
    private var signalled = false
    private var callback: (@Sendable () -> Void)?

    /// Catches SIGINT and SIGTERM from now on. Call it before printing that the command is ready:
    /// a signal sent right after that is then kept for `wait`, not lost to the default action.
    func install() {
        queue.sync {
            guard sources.isEmpty else { return }
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                source.setEventHandler {
                    guard !self.signalled else { return }
                    self.signalled = true
                    self.callback?()
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Calls `callback` once, at the first SIGINT or SIGTERM since `install()` (installing now if needed).
    func wait(_ callback: @escaping @Sendable () -> Void) {
        install()
        queue.async {
            if self.signalled { callback() } else { self.callback = callback }
        }
    }
}

import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineSimulator

/// `liveline-bench simulator`: accepted pushes per second with full validation, driven by h2load,
/// beside nginx answering the same requests on the same machine in the same run.
enum BenchSimulatorCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench simulator", abstract: "Pushes/s the APNs simulator accepts, against nginx, both driven by h2load.",
        usage: "[options]",
        options: [
            .init(name: "requests", valueName: "n", help: "Requests per run (default 50000)."),
            .init(name: "streams", valueName: "n", help: "Concurrent streams per connection (default 100)."),
            .init(name: "connections", valueName: "n", help: "Connections (default 1)."),
            .init(name: "rounds", valueName: "n", help: "Runs per server, best kept (default 3)."),
            .init(name: "h2load", valueName: "path", help: "h2load executable (default /usr/bin/h2load)."),
            .init(name: "nginx", valueName: "path", help: "nginx executable (default /usr/sbin/nginx)."),
            .init(name: "in-process", valueName: nil, help: "Also time the simulator's validation alone, without the network."),
            .init(name: "rss", valueName: nil, help: "Instead: resident memory over in-process activity pushes, then connections opened and closed (no h2load or nginx)."),
            .init(name: "rss-pushes", valueName: "n", help: "--rss: pushes to send (default 1000000)."),
            .init(name: "rss-connections", valueName: "n", help: "--rss: TLS connections to open and close afterwards (default 100000)."),
        ],
        discussion: """
        Both servers get the same POST /3/device/<token> with a JWT, apns-topic, apns-push-type and an
        alert body, over TLS with the same certificate. The simulator checks every header, the token
        (verified once, then cached), the device token and the body, delivers the notification to its
        simulated device and records it (on a worker thread, off the event loop); nginx just answers 200.
        Target: at least 1.0x nginx.

        With --rss it measures memory instead: pushes that start, update and end Live Activities (by
        token and by channel) on a virtual clock, then TLS connections opened and closed against the
        simulator's server, printing RSS and peak RSS (VmRSS, VmHWM) as it goes. Use a release build.
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        if arguments.flag("rss") {
            let pushes = try arguments.int("rss-pushes") ?? 1_000_000
            let connections = try arguments.int("rss-connections") ?? 100_000
            guard pushes >= 1 else { throw arguments.usageError("'--rss-pushes' must be at least 1, got \(pushes)") }
            guard connections >= 0 else { throw arguments.usageError("'--rss-connections' must be 0 or more, got \(connections)") }
            return try await runRSS(pushes: pushes, connections: connections)
        }
        let requests = try arguments.int("requests") ?? 50_000
        let streams = try arguments.int("streams") ?? 100
        let connections = try arguments.int("connections") ?? 1
        let rounds = try arguments.int("rounds") ?? 3
        for (name, v) in [("requests", requests), ("streams", streams), ("connections", connections), ("rounds", rounds)] where v < 1 {
            throw arguments.usageError("'--\(name)' must be at least 1, got \(v)")
        }
        let h2load = arguments.value("h2load") ?? "/usr/bin/h2load"
        let nginx = arguments.value("nginx") ?? "/usr/sbin/nginx"
        for tool in [h2load, nginx] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw CLIError(message: "\(tool) is not an executable (install nghttp2-client and nginx-light, or pass --h2load/--nginx)")
        }

        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        let dir = workspace.directory.path
        let made: (setup: SimulatorSetup, keyFile: String, keyID: String, teamID: String)
        let token: String
        do {
            made = try SimulatorSetup.generated(in: dir)
            token = try SimulatorSetup.providerToken(keyFile: made.keyFile, keyID: made.keyID, teamID: made.teamID)
        } catch {
            throw CLIError(message: error.message)
        }
        var setup = made.setup
        setup.configuration.logCapacity = 1000
        // h2load opens its streams before it reads SETTINGS and never retries a refused stream, so the
        // APNs rule "one stream until the first valid push" would count as failures; it is off here.
        setup.configuration.restrictedConcurrentStreams = max(streams, 100)
        let simulator = try setup.makeSimulator()
        let server = try SimulatorServer.start(simulator: simulator, certificates: workspace.certificates, maxConcurrentStreams: max(streams, 100))
        defer { Task { await server.stop() } }
        guard let app = simulator.devices().first?.apps.first else { throw CLIError(message: "the generated setup has no app") }

        let nginxServer = try workspace.startServer(kind: "nginx", streams: 1000, executable: nginx)
        defer { nginxServer.stop() }
        let nginxPort = nginxServer.port

        let body = dir + "/body.json"
        _ = FileManager.default.createFile(atPath: body, contents: Data(#"{"aps":{"alert":{"title":"Gate change","body":"Now boarding at B12"},"sound":"default"}}"#.utf8))
        let path = "/3/device/" + app.deviceToken
        let headers = ["authorization: bearer " + token, "apns-topic: " + app.bundleID, "apns-push-type: alert", "apns-priority: 10"]

        func measure(_ port: Int) throws -> (rate: Double, ok: Int) {
            var args = ["-n", String(requests), "-c", String(connections), "-m", String(streams), "-d", body]
            for h in headers { args += ["-H", h] }
            args.append("https://127.0.0.1:\(port)\(path)")
            let output = try BenchWorkspace.tool(h2load, args)
            guard let rate = firstNumber(after: "finished in ", then: ", ", in: output),
                let ok = firstNumber(after: "status codes: ", then: "", in: output)
            else { throw CLIError(message: "cannot read h2load's output:\n\(output.suffix(600))") }
            return (rate, Int(ok))
        }

        Console.out("h2load: \(requests) POSTs, \(connections) connection(s), \(streams) streams, best of \(rounds)")
        var best = (nginx: 0.0, simulator: 0.0)
        for round in 1...rounds {
            let n = try measure(nginxPort)
            let before = simulator.counts.accepted
            let s = try measure(server.port)
            let accepted = simulator.counts.accepted - before
            Console.out(String(format: "  round %d: nginx %.0f req/s (%d 2xx), simulator %.0f req/s (%d 2xx, %d accepted)", round, n.rate, n.ok, s.rate, s.ok, accepted))
            if accepted != requests { throw CLIError(message: "the simulator accepted \(accepted) of \(requests) pushes; see 'liveline simulator log'") }
            best = (max(best.nginx, n.rate), max(best.simulator, s.rate))
        }
        if arguments.flag("in-process") {
            var connection = simulator.newConnection()
            var headerList = headers.map { line -> SimulatorRequest.Header in
                let parts = line.split(separator: ":", maxSplits: 1)
                return .init(String(parts[0]), String(parts[1].dropFirst()))
            }
            headerList.append(.init("apns-expiration", "0"))
            let request = SimulatorRequest(path: path, headers: headerList, body: Array(FileManager.default.contents(atPath: body) ?? Data()))
            let start = ContinuousClock.now
            for _ in 0..<requests { _ = simulator.handle(request, connection: &connection) }
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            Console.out(String(format: "in-process %10.0f pushes/s (validation, delivery and log, no network)", Double(requests) / seconds))
        }
        let ratio = best.simulator / best.nginx
        Console.out(String(format: "nginx      %10.0f req/s\nsimulator  %10.0f accepted pushes/s (full validation)\nratio      %10.2fx nginx (target >= 1.00x)", best.nginx, best.simulator, ratio))
        return 0
    }

    // MARK: - Helpers

    /// The rate in "finished in 1.23s, 40000.00 req/s" or the 2xx count in "status codes: 50000 2xx".
    static func firstNumber(after marker: String, then separator: String, in text: String) -> Double? {
        guard let range = text.range(of: marker) else { return nil }
        var rest = text[range.upperBound...]
        if !separator.isEmpty {
            guard let sep = rest.range(of: separator) else { return nil }
            rest = rest[sep.upperBound...]
        }
        let number = rest.prefix { $0.isNumber || $0 == "." }
        return Double(number)
    }
}

import Foundation
import LivelineCommandLine
import LivelineHTTP2
import Synchronization

/// `liveline-bench http2`: the LivelineHTTP2 client and server beside h2load, nghttpd and nginx in
/// one run. Everything runs in this nonisolated type: closures called from the event-loop thread
/// must not be main-actor isolated.
enum BenchHTTP2Command: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench http2", abstract: "Benchmark the raw HTTP/2 client and server against h2load, nghttpd and nginx.",
        usage: "[--requests N] [--streams N] [--body-size N] [--server-requests N] [--rounds N]",
        options: [
            .init(name: "requests", valueName: "n", help: "POSTs per client run (default 20000)."),
            .init(name: "streams", valueName: "n", help: "Concurrent streams on the connection (default 100)."),
            .init(name: "body-size", valueName: "bytes", help: "Size of the JSON body (default 300)."),
            .init(name: "server-requests", valueName: "n", help: "h2load POSTs per server run (default 50000)."),
            .init(name: "rounds", valueName: "n", help: "Runs of each measurement; the best is kept (default 2)."),
        ],
        discussion: """
            Client: HTTP2Connection (callbacks, and async send) against h2load on one connection, both
            sending to nghttpd and to nginx. Server: h2load with 1 and 4 connections against HTTP2Server
            and nginx. Certificates from the benchmarks' workspace (the simulator's).
            Needs h2load, nghttpd and nginx (Debian: nghttp2-client nghttp2-server nginx-light).
            """)

    struct Options {
        var requests = 20_000
        var streams = 100
        var bodySize = 300
        var serverRequests = 50_000
        var rounds = 2
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        var options = Options()
        options.requests = try arguments.int("requests") ?? options.requests
        options.streams = try arguments.int("streams") ?? options.streams
        options.bodySize = try arguments.int("body-size") ?? options.bodySize
        options.serverRequests = try arguments.int("server-requests") ?? options.serverRequests
        options.rounds = try arguments.int("rounds") ?? options.rounds
        guard options.requests > 0, options.streams > 0, options.serverRequests > 0, options.rounds > 0, options.bodySize >= 0 else {
            throw arguments.usageError("'--requests', '--streams', '--server-requests' and '--rounds' must be positive, '--body-size' not negative")
        }
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        try await run(options, workspace)
        return 0
    }

    static func run(_ options: Options, _ workspace: BenchWorkspace) async throws {
        let body = Array(payload(size: options.bodySize).utf8)
        let bodyFile = workspace.directory.appendingPathComponent("body.json")
        try Data(body).write(to: bodyFile)
        let token = String(repeating: "ab", count: 32)
        let path = "/3/device/\(token)"
        Console.out("HTTP2Bench: \(options.requests) POSTs of \(body.count) bytes, 1 connection, \(options.streams) streams; best of \(options.rounds) rounds")

        // Client: LivelineHTTP2 vs h2load against nghttpd and nginx.
        let nghttpd = try workspace.startServer(kind: "nghttpd", streams: options.streams, deviceTokens: [token])
        defer { nghttpd.stop() }
        let nginx = try workspace.startServer(kind: "nginx", streams: max(options.streams, 128))
        defer { nginx.stop() }
        for (name, server) in [("nghttpd", nghttpd), ("nginx", nginx)] {
            let url = "https://127.0.0.1:\(server.port)\(path)"
            let h2load = try bestOf(options.rounds) { try runH2load(["-n", "\(options.requests)", "-c", "1", "-m", "\(options.streams)", "-d", bodyFile.path, url]) }
            let callback = try await bestOfAsync(options.rounds) { try await clientRun(port: server.port, caFile: workspace.caFile, path: path, body: body, options: options, useAsync: false) }
            let async = try await bestOfAsync(options.rounds) { try await clientRun(port: server.port, caFile: workspace.caFile, path: path, body: body, options: options, useAsync: true) }
            Console.out("  vs \(name) (nghttpd -m \(options.streams) / nginx http2_max_concurrent_streams \(max(options.streams, 128))):")
            Console.out("    h2load -n \(options.requests) -c 1 -m \(options.streams) -d <\(body.count)-byte JSON> \(url)")
            Console.out("    h2load                         \(format(h2load.rate)) req/s  (\(h2load.succeeded) ok)  \(micro(h2load.cpuPerRequest)) µs CPU/req")
            Console.out("    HTTP2Connection (callbacks)    \(format(callback.rate)) req/s  (\(callback.succeeded) ok)  \(micro(callback.cpuPerRequest)) µs CPU/req  \(ratio(callback.rate, h2load.rate))× h2load")
            Console.out("    HTTP2Connection (async send)   \(format(async.rate)) req/s  (\(async.succeeded) ok)  \(micro(async.cpuPerRequest)) µs CPU/req  \(ratio(async.rate, h2load.rate))× h2load")
        }

        // Server: h2load against HTTP2Server vs nginx.
        let server = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: workspace.certificates.certificateFile, keyFile: workspace.certificates.keyFile),
            maxConcurrentStreams: max(options.streams, 128))) { _, responder in
            responder.respond(status: 200, headers: ["apns-id": "4CE4D5F4-5E1B-4C4B-A2C1-8F3C8E0B8D11"])
        }
        Console.out("h2load -n \(options.serverRequests) -m \(options.streams) POSTs of \(body.count) bytes against servers:")
        for clients in [1, 4] {
            let ours = try bestOf(options.rounds) { try runH2load(["-n", "\(options.serverRequests)", "-c", "\(clients)", "-m", "\(options.streams)", "-d", bodyFile.path, "https://127.0.0.1:\(server.port)\(path)"]) }
            let theirs = try bestOf(options.rounds) { try runH2load(["-n", "\(options.serverRequests)", "-c", "\(clients)", "-m", "\(options.streams)", "-d", bodyFile.path, "https://127.0.0.1:\(nginx.port)\(path)"]) }
            Console.out("  \(clients) connection(s): HTTP2Server \(format(ours.rate)) req/s (\(ours.succeeded) ok), nginx \(format(theirs.rate)) req/s (\(theirs.succeeded) ok): \(ratio(ours.rate, theirs.rate))× nginx")
        }
        await server.stop()
    }

    struct Measurement {
        var rate: Double
        var succeeded: Int
        /// CPU time (user + system) per request in microseconds, of the client process.
        var cpuPerRequest: Double = 0
    }

    static func bestOf(_ rounds: Int, _ body: () throws -> Measurement) throws -> Measurement {
        var best = Measurement(rate: 0, succeeded: 0)
        for _ in 0..<max(1, rounds) {
            let result = try body()
            if result.rate > best.rate { best = result }
        }
        return best
    }

    static func bestOfAsync(_ rounds: Int, _ body: () async throws -> Measurement) async throws -> Measurement {
        var best = Measurement(rate: 0, succeeded: 0)
        for _ in 0..<max(1, rounds) {
            let result = try await body()
            if result.rate > best.rate { best = result }
        }
        return best
    }

    /// Runs h2load and reads its req/s, succeeded count and CPU per request.
    static func runH2load(_ arguments: [String]) throws -> Measurement {
        let cpuBefore = BenchClientCommand.cpuSeconds(RUSAGE_CHILDREN)
        let run = try BenchWorkspace.h2load(arguments)
        let requests = Double(arguments[arguments.firstIndex(of: "-n")! + 1]) ?? 1
        return Measurement(rate: run.rate, succeeded: run.succeeded, cpuPerRequest: (BenchClientCommand.cpuSeconds(RUSAGE_CHILDREN) - cpuBefore) * 1e6 / requests)
    }

    /// Sends `options.requests` POSTs with at most `options.streams` in flight on one connection.
    static func clientRun(port: Int, caFile: String, path: String, body: [UInt8], options: Options, useAsync: Bool) async throws -> Measurement {
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: HTTP2ClientConfiguration(
            trust: .caFile(caFile), serverName: "localhost", requestTimeout: .seconds(60)))
        let request = HTTP2Request(method: "POST", path: path, headers: [
            "apns-topic": "com.example.app.push-type.liveactivity", "apns-push-type": "liveactivity",
            "apns-priority": "10", "authorization": "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJl",
        ], body: body)
        let start = ContinuousClock.now
        let cpuBefore = BenchClientCommand.cpuSeconds()
        let succeeded: Int
        if useAsync {
            let next = Counter()
            succeeded = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<options.streams {
                    group.addTask {
                        var ok = 0
                        while next.increment() <= options.requests {
                            if (try? await connection.send(request))?.status == 200 { ok += 1 }
                        }
                        return ok
                    }
                }
                return try await group.reduce(0, +)
            }
        } else {
            succeeded = await withCheckedContinuation { continuation in
                WindowedSender(connection: connection, request: request, total: options.requests, continuation: continuation).start(window: options.streams)
            }
        }
        let elapsed = ContinuousClock.now - start
        let cpu = BenchClientCommand.cpuSeconds() - cpuBefore
        await connection.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Measurement(rate: Double(options.requests) / seconds, succeeded: succeeded, cpuPerRequest: cpu * 1e6 / Double(options.requests))
    }

    static func payload(size: Int) -> String {
        let base = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"flight":"LL123","gate":"B12","status":"boarding","progress":0.42},"alert":{"title":"Boarding","body":"Gate B12"}},"pad":""}"#
        let padding = max(0, size - base.count)
        return base.replacingOccurrences(of: #""pad":"""#, with: #""pad":""# + String(repeating: "x", count: padding) + "\"")
    }

    static func format(_ rate: Double) -> String { String(format: "%8.0f", rate) }
    static func micro(_ value: Double) -> String { String(format: "%5.1f", value) }
    static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", b > 0 ? a / b : 0) }
}

/// A shared counter for workers taking request numbers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// Adds one and returns the new value.
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
}

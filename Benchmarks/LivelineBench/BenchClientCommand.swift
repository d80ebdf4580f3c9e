import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelineHTTP2

/// `liveline-bench client`: Live Activity updates through `APNSClient` to a local HTTP/2 TLS server,
/// beside h2load's figure for the same requests against the same server in the same run.
enum BenchClientCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench client", abstract: "Benchmark APNSClient against h2load on a local HTTP/2 TLS server.",
        usage: "[--count N] [--counts N,N...] [--connections 1,4] [--rounds N] [--server nginx|nghttpd]",
        options: [
            .init(name: "count", valueName: "n", help: "Pushes per run for the throughput table (default 20000)."),
            .init(name: "counts", valueName: "n,n", help: "Also run these counts on one connection to show peak memory against N (e.g. 10000,200000,1000000)."),
            .init(name: "connections", valueName: "n,n", help: "Connection counts to try (default 1,4)."),
            .init(name: "streams", valueName: "n", help: "h2load -m, concurrent streams per connection (default 100)."),
            .init(name: "in-flight", valueName: "n", help: "APNSClient maxInFlight (default 1000)."),
            .init(name: "server", valueName: "name", help: "nginx (default; answers 200 like APNs) or nghttpd."),
            .init(name: "rounds", valueName: "n", help: "Alternate h2load and APNSClient this many times and keep the best of each (default 3)."),
            .init(name: "no-reference", help: "Skip h2load and the raw-transport run: only APNSClient's own figures (for profiling)."),
        ],
        discussion: """
            Generates a CA and a server certificate (the simulator's, OpenSSL's API) and starts the server on a free
            loopback port. Each round runs h2load -n N -c 1 -m 100 with the same requests APNSClient
            sends (the same headers, a real provider token, the same 1000 device-token paths through
            h2load -i, the same body size), then APNSClient.sendAll with token auth on each connection
            count; the best round of each is kept. Prints pushes/s, the ratio to h2load, CPU seconds
            (getrusage), peak RSS and the allocator serving malloc.
            Needs h2load and nginx or nghttpd (Debian: nghttp2-client nginx-light nghttp2-server).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let count = try arguments.int("count") ?? 20_000
        guard count > 0 else { throw arguments.usageError("'--count' must be positive, got \(count)") }
        let connectionCounts = try list(arguments, "connections", default: [1, 4])
        let memoryCounts = try list(arguments, "counts", default: [])
        let streams = try arguments.int("streams") ?? 100
        let inFlight = try arguments.int("in-flight") ?? 1000
        let rounds = try arguments.int("rounds") ?? 3
        guard rounds > 0 else { throw arguments.usageError("'--rounds' must be positive, got \(rounds)") }
        guard inFlight > 0 else { throw arguments.usageError("'--in-flight' must be positive, got \(inFlight)") }
        let serverKind = arguments.value("server") ?? "nginx"
        guard serverKind == "nginx" || serverKind == "nghttpd" else {
            throw arguments.usageError("'--server' must be nginx or nghttpd, got '\(serverKind)'")
        }

        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        // The 1000 distinct pushes every run cycles through (UpdateSequence builds the same ring).
        let ring = try UpdateSequence(count: 1000, bundleID: "com.example.flights").ring
        // nghttpd answers from files: one empty file per device token the pushes use.
        let tokens = ring.map(\.1)
        let server = try workspace.startServer(kind: serverKind, streams: max(streams, 128), deviceTokens: tokens)
        defer { server.stop() }

        let sample = ring[0]
        let body = try sample.0.validate(for: .device)
        Console.out("server: \(serverKind) on 127.0.0.1:\(server.port) (TLS, h2); body \(body.count) bytes; \(ProcessInfo.processInfo.activeProcessorCount) cores; allocator: \(Allocator.description)")

        let key = try P256PrivateKey.generate()
        let reference = !arguments.flag("no-reference")
        // The reference: h2load, one connection, the same requests: the same headers with a real
        // provider token from the key APNSClient signs with, and the same 1000 device-token paths
        // in the same order (so HPACK sees the same header churn).
        let authorization = try APNSTokenProvider(key: key, keyID: benchKeyID, teamID: benchTeamID).current().authorization
        let headers = sample.0.headers + [("authorization", authorization)]
        let paths = tokens.map { "/3/device/\($0)" }

        // Rounds alternate h2load and APNSClient so both see the same machine; the best round of
        // each is kept (the machine is shared: a slow round is interference, not the code).
        var h2loadBest: (rate: Double, cpu: Double)?
        var best: [Int: Run] = [:]
        for round in 1...rounds {
            if reference {
                let childCPUBefore = cpuSeconds(RUSAGE_CHILDREN)
                let rate = try workspace.h2load(port: server.port, paths: paths, headers: headers, body: body, count: count, streams: streams)
                let cpu = cpuSeconds(RUSAGE_CHILDREN) - childCPUBefore
                if rate > (h2loadBest?.rate ?? 0) { h2loadBest = (rate, cpu) }
                Console.err(String(format: "round %d: h2load %.0f req/s", round, rate))
            }
            for connections in connectionCounts {
                let run = try await measure(port: server.port, caFile: workspace.caFile, key: key, count: count, connections: connections, inFlight: inFlight)
                if run.rate > (best[connections]?.rate ?? 0) { best[connections] = run }
                Console.err(String(format: "round %d: APNSClient %d conn %.0f pushes/s", round, connections, run.rate))
            }
        }
        let h2load = h2loadBest?.rate ?? .nan
        if let h2loadBest {
            Console.out(String(format: "h2load -n %d -c 1 -m %d, same paths and headers (best of %d): %.0f req/s, CPU %.2f s (%.1f µs/request)",
                               count, streams, rounds, h2loadBest.rate, h2loadBest.cpu, h2loadBest.cpu / Double(count) * 1e6))
            let raw = try await rawTransport(port: server.port, caFile: workspace.caFile, path: "/3/device/\(sample.1)",
                headers: headers, body: body, count: count, inFlight: inFlight)
            Console.out(String(format: "raw HTTP2Connection, one prepared request, callbacks, %d in flight: %.0f req/s (%.2fx h2load), CPU %.2f s (%.1f µs/request)",
                inFlight, raw.rate, raw.rate / h2load, raw.cpu, raw.cpu / Double(count) * 1e6))
        }
        // What validation and serialization (LivelineCore) cost per push on one thread, to tell
        // them from the client's own cost.
        let validateStart = ContinuousClock.now
        var bytes = 0
        for index in 0..<count { bytes &+= try ring[index % ring.count].0.validate(for: .device).count }
        let validateMicros = (ContinuousClock.now - validateStart).seconds / Double(count) * 1e6
        Console.out(String(format: "PushRequest.validate (serialize + checks), one thread: %.1f µs/push (%d bytes)", validateMicros, bytes / count))

        Console.out("\nAPNSClient    N      pushes/s  vs h2load  CPU s   µs/push  peak RSS MB  failed   (best of \(rounds))")
        for connections in connectionCounts {
            if let run = best[connections] { Console.out(row("\(connections) conn", run, reference: h2load)) }
        }
        for n in memoryCounts {
            let run = try await measure(port: server.port, caFile: workspace.caFile, key: key, count: n, connections: 1, inFlight: inFlight)
            Console.out(row("1 conn", run, reference: h2load))
        }
        Console.out("\n(peak RSS is the process's high-water mark so far: flat rows mean memory does not grow with N)")
        return 0
    }

    static let benchKeyID = "BENCHKEY01"
    static let benchTeamID = "BENCHTEAM1"

    struct Run {
        var count: Int
        var seconds: Double
        var cpu: Double
        var peakRSSMB: Double
        var failed: Int
        var rate: Double { Double(count) / seconds }
    }

    static func row(_ label: String, _ run: Run, reference: Double) -> String {
        let rate = Double(run.count) / run.seconds
        return String(format: "%-8@ %8d  %10.0f  %8.2fx  %6.2f  %7.1f  %11.1f  %6d", label as NSString, run.count, rate, rate / reference, run.cpu,
                      run.cpu / Double(run.count) * 1e6, run.peakRSSMB, run.failed)
    }

    static func measure(port: Int, caFile: String, key: P256PrivateKey, count: Int, connections: Int, inFlight: Int) async throws -> Run {
        let configuration = APNSConfiguration(
            authentication: .token(key: key, keyID: benchKeyID, teamID: benchTeamID),
            environment: .custom(host: "127.0.0.1", port: port, caFile: caFile), connectionCount: connections, maxInFlight: inFlight)
        let client = APNSClient(configuration: configuration)
        // Warm up: open the connections and pass the one-stream window.
        let warm = try UpdateSequence(count: connections * 2, bundleID: "com.example.flights")
        for await _ in client.sendAll(warm) {}
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        var failed = 0
        for await outcome in client.sendAll(try UpdateSequence(count: count, bundleID: "com.example.flights")) where !outcome.result.isAccepted {
            failed += 1
            if failed == 1 { Console.err("first failure: \(outcome.result)") }
        }
        let elapsed = ContinuousClock.now - start
        let cpu = cpuSeconds() - cpuBefore
        await client.shutdown()
        return Run(count: count, seconds: elapsed.seconds, cpu: cpu, peakRSSMB: peakRSSMB(), failed: failed)
    }

    /// The transport alone: one prepared request (one path, no validation) sent `count` times,
    /// `inFlight` at a time, each completion starting the next as APNSClient's bulk send does, to
    /// tell the client's own cost (validation, retries, pooling, results) from the transport's.
    static func rawTransport(port: Int, caFile: String, path: String, headers: [(name: String, value: String)], body: [UInt8],
                             count: Int, inFlight: Int) async throws -> (rate: Double, cpu: Double) {
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: HTTP2ClientConfiguration(trust: .caFile(caFile)))
        let request = HTTP2Request(method: "POST", path: path, headers: HTTP2Headers(headers), body: body)
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        _ = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            WindowedSender(connection: connection, request: request, total: count, continuation: done).start(window: Swift.min(inFlight, count))
        }
        let elapsed = ContinuousClock.now - start
        let cpu = cpuSeconds() - cpuBefore
        await connection.close()
        return (Double(count) / elapsed.seconds, cpu)
    }

    static func list(_ arguments: Arguments, _ name: String, default value: [Int]) throws -> [Int] {
        guard let text = arguments.value(name) else { return value }
        let items = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !items.isEmpty, items.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw arguments.usageError("'--\(name)' must be positive integers separated by commas, got '\(text)'")
        }
        return items.map { $0! }
    }

    /// User + system CPU seconds of this process (or of its reaped children).
    static func cpuSeconds(_ who: __rusage_who = RUSAGE_SELF) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func peakRSSMB() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// `count` realistic Live Activity updates for FlightAttributes (about 270 bytes each): a ring of
/// 1000 distinct pushes (built once with JSONEncoder, as an app would) cycled lazily, so a million
/// sends take no more memory than ten thousand and the figure measures the client, not the encoder.
struct UpdateSequence: Sequence, Sendable {
    let count: Int
    let ring: [(PushRequest, String)]

    init(count: Int, bundleID: String) throws {
        self.count = count
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let statuses = FlightAttributes.Status.allCases
        ring = try (0..<Swift.min(count, 1000)).map { index in
            let state = FlightAttributes.ContentState(
                status: statuses[index % statuses.count], gate: "B\(10 + index % 40)",
                boardingTime: base.addingTimeInterval(Double(index % 3600)), delayMinutes: index % 90, isBoarding: index % 2 == 0)
            let push = try LiveActivityPush.update(
                state: state, timestamp: base.addingTimeInterval(Double(index)),
                alert: index % 10 == 0 ? Alert(title: .plain("LL 1234"), body: .plain("Now boarding at gate B\(10 + index % 40)")) : nil,
                staleDate: base.addingTimeInterval(Double(index) + 1800), relevanceScore: 75)
            let request = PushRequest.liveActivity(push, bundleID: bundleID, priority: .considerate)
            let suffix = String(UInt64(index) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            let token = String(repeating: "80", count: 72) + String(repeating: "0", count: 16 - suffix.count) + suffix
            return (request, token)
        }
    }

    struct Iterator: IteratorProtocol {
        let sequence: UpdateSequence
        var index = 0

        mutating func next() -> (PushRequest, String)? {
            guard index < sequence.count else { return nil }
            defer { index += 1 }
            return sequence.ring[index % sequence.ring.count]
        }
    }

    func makeIterator() -> Iterator { Iterator(sequence: self) }
}

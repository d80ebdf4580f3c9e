import Foundation
import LivelineHTTP2
import LivelineTesting
import Synchronization

/// Measures requests/s of the LivelineHTTP2 client and server against reference tools.
enum HTTP2Benchmark {
    struct Options {
        var requests = 20_000
        var streams = 100
        var bodySize = 300
        var serverRequests = 50_000
        var rounds = 2
    }

    static func main(_ arguments: [String]) async -> Int32 {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            let value = index + 1 < arguments.count ? Int(arguments[index + 1]) : nil
            switch (name, value) {
            case ("--requests", let value?): options.requests = value
            case ("--streams", let value?): options.streams = value
            case ("--body-size", let value?): options.bodySize = value
            case ("--server-requests", let value?): options.serverRequests = value
            case ("--rounds", let value?): options.rounds = value
            default:
                print("usage: HTTP2Bench [--requests N] [--streams N] [--body-size N] [--server-requests N] [--rounds N]")
                return 64
            }
            index += 2
        }
        do {
            try await run(options)
            return 0
        } catch {
            print("error: \(error)")
            return 1
        }
    }

    static func run(_ options: Options) async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        let body = Array(payload(size: options.bodySize).utf8)
        let bodyFile = pki.directory.appendingPathComponent("body.json")
        try Data(body).write(to: bodyFile)
        let path = "/3/device/\(String(repeating: "ab", count: 32))"
        print("HTTP2Bench: \(options.requests) POSTs of \(body.count) bytes, 1 connection, \(options.streams) streams; best of \(options.rounds) rounds")

        // Client: LivelineHTTP2 vs h2load against nghttpd and nginx.
        let nghttpd = try ServerProcess.nghttpd(pki: pki, maxConcurrentStreams: options.streams, files: [String(path.dropFirst()): ""])
        defer { nghttpd.stop() }
        let nginx = try ServerProcess.nginx(pki: pki, maxConcurrentStreams: max(options.streams, 128))
        defer { nginx.stop() }
        for (name, server) in [("nghttpd", nghttpd), ("nginx", nginx)] {
            let url = "https://127.0.0.1:\(server.port)\(path)"
            let h2load = try bestOf(options.rounds) { try runH2load(["-n", "\(options.requests)", "-c", "1", "-m", "\(options.streams)", "-d", bodyFile.path, url]) }
            let callback = try await bestOfAsync(options.rounds) { try await clientRun(port: server.port, pki: pki, path: path, body: body, options: options, useAsync: false) }
            let async = try await bestOfAsync(options.rounds) { try await clientRun(port: server.port, pki: pki, path: path, body: body, options: options, useAsync: true) }
            print("  vs \(name) (nghttpd -m \(options.streams) / nginx http2_max_concurrent_streams \(max(options.streams, 128))):")
            print("    h2load -n \(options.requests) -c 1 -m \(options.streams) -d <\(body.count)-byte JSON> \(url)")
            print("    h2load                         \(format(h2load.rate)) req/s  (\(h2load.succeeded) ok)  \(micro(h2load.cpuPerRequest)) µs CPU/req")
            print("    HTTP2Connection (callbacks)    \(format(callback.rate)) req/s  (\(callback.succeeded) ok)  \(micro(callback.cpuPerRequest)) µs CPU/req  \(ratio(callback.rate, h2load.rate))× h2load")
            print("    HTTP2Connection (async send)   \(format(async.rate)) req/s  (\(async.succeeded) ok)  \(micro(async.cpuPerRequest)) µs CPU/req  \(ratio(async.rate, h2load.rate))× h2load")
        }

        // Server: h2load against HTTP2Server vs nginx.
        let server = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path),
            maxConcurrentStreams: max(options.streams, 128))) { _, responder in
            responder.respond(status: 200, headers: ["apns-id": "4CE4D5F4-5E1B-4C4B-A2C1-8F3C8E0B8D11"])
        }
        print("h2load -n \(options.serverRequests) -m \(options.streams) POSTs of \(body.count) bytes against servers:")
        for clients in [1, 4] {
            let ours = try bestOf(options.rounds) { try runH2load(["-n", "\(options.serverRequests)", "-c", "\(clients)", "-m", "\(options.streams)", "-d", bodyFile.path, "https://127.0.0.1:\(server.port)\(path)"]) }
            let theirs = try bestOf(options.rounds) { try runH2load(["-n", "\(options.serverRequests)", "-c", "\(clients)", "-m", "\(options.streams)", "-d", bodyFile.path, "https://127.0.0.1:\(nginx.port)\(path)"]) }
            print("  \(clients) connection(s): HTTP2Server \(format(ours.rate)) req/s (\(ours.succeeded) ok), nginx \(format(theirs.rate)) req/s (\(theirs.succeeded) ok): \(ratio(ours.rate, theirs.rate))× nginx")
        }
        await server.stop()
    }

    struct Measurement {
        var rate: Double
        var succeeded: Int
        /// CPU time (user + system) per request in microseconds, of the client process.
        var cpuPerRequest: Double = 0
    }

    /// CPU seconds used so far by this process (`self`) or by its reaped children.
    static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
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

    /// Runs h2load and reads its req/s and succeeded count.
    static func runH2load(_ arguments: [String]) throws -> Measurement {
        let cpuBefore = cpuSeconds(children: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let finished = output.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
              let rateText = finished.split(separator: ",").dropFirst().first?.split(separator: " ").first,
              let rate = Double(rateText) else {
            throw TestingError("cannot read h2load output: \(output)")
        }
        let requestsLine = output.split(separator: "\n").first { $0.hasPrefix("requests:") } ?? ""
        let succeeded = requestsLine.split(separator: ",").first { $0.contains("succeeded") }
            .flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        let requests = Double(arguments[arguments.firstIndex(of: "-n")! + 1]) ?? 1
        return Measurement(rate: rate, succeeded: succeeded, cpuPerRequest: (cpuSeconds(children: true) - cpuBefore) * 1e6 / requests)
    }

    /// Sends `options.requests` POSTs with at most `options.streams` in flight on one connection.
    static func clientRun(port: Int, pki: TestPKI, path: String, body: [UInt8], options: Options, useAsync: Bool) async throws -> Measurement {
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: HTTP2ClientConfiguration(
            trust: .caFile(pki.caCertificate.path), serverName: "localhost", requestTimeout: .seconds(60)))
        let request = HTTP2Request(method: "POST", path: path, headers: [
            "apns-topic": "com.example.app.push-type.liveactivity", "apns-push-type": "liveactivity",
            "apns-priority": "10", "authorization": "bearer eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.c2lnbmF0dXJl",
        ], body: body)
        let start = ContinuousClock.now
        let cpuBefore = cpuSeconds(children: false)
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
        let cpu = cpuSeconds(children: false) - cpuBefore
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

/// Keeps `window` requests in flight with the callback API; resumes with the success count.
final class WindowedSender: Sendable {
    let connection: HTTP2Connection
    let request: HTTP2Request
    let total: Int
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let succeeded = Atomic<Int>(0)
    let continuation: CheckedContinuation<Int, Never>

    init(connection: HTTP2Connection, request: HTTP2Request, total: Int, continuation: CheckedContinuation<Int, Never>) {
        self.connection = connection
        self.request = request
        self.total = total
        self.continuation = continuation
    }

    func start(window: Int) {
        for _ in 0..<window { sendNext() }
    }

    func sendNext() {
        guard started.add(1, ordering: .relaxed).newValue <= total else { return }
        connection.send(request) { [self] result in
            if case .success(let response) = result, response.status == 200 { succeeded.add(1, ordering: .relaxed) }
            if finished.add(1, ordering: .relaxed).newValue == total {
                continuation.resume(returning: succeeded.load(ordering: .relaxed))
            } else {
                sendNext()
            }
        }
    }
}

/// A shared counter for workers taking request numbers.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// Adds one and returns the new value.
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
}

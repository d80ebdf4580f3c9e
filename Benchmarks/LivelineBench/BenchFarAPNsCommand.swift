import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelineSimulator

/// `liveline-bench far-apns`: APNSClient against an APNs that answers every push after a fixed
/// latency (the simulator's latency fault rule), on 1, 4 and 8 connections, beside the ideal rate
/// of a full window: in-flight ÷ latency, where in-flight is the stream limit the simulator
/// advertises times the connections.
enum BenchFarAPNsCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench far-apns", abstract: "APNSClient against a far APNs (every answer after 50 ms) against in-flight ÷ latency.",
        usage: "[--latency-ms N] [--streams N] [--connections 1,4,8] [--seconds S] [--phones N] [--rounds N]",
        options: [
            .init(name: "latency-ms", valueName: "ms", help: "The simulator answers every push after this long (default 50)."),
            .init(name: "streams", valueName: "n", help: "MAX_CONCURRENT_STREAMS the simulator advertises (default 100; APNs' is 1000)."),
            .init(name: "connections", valueName: "n,n", help: "Connection counts (default 1,4,8)."),
            .init(name: "seconds", valueName: "s", help: "Pushes per run: the ideal rate times this many seconds (default 4)."),
            .init(name: "phones", valueName: "n", help: "Simulated phones the pushes cycle through (default 2000)."),
            .init(name: "rounds", valueName: "n", help: "Runs per connection count; the best is kept (default 2)."),
        ],
        discussion: """
            The in-process simulator (full validation, TLS, HTTP/2) with a fault rule that delays every
            answer by the latency; a token-authenticated APNSClient with maxInFlight = streams × connections
            sends Live Activity updates to the phones' tokens. The reference is the ideal of a full window:
            every stream busy all the time, streams × connections ÷ latency pushes a second. Also prints the
            median answer time of one push sent alone (the latency plus the simulator's timer and both
            sides' work), the ratio to the ideal at that time, the client's mean number of pushes in flight
            (APNSClient.inFlight sampled every millisecond) and the mean answer time it implies (Little's
            law: in flight ÷ rate), and CPU a push. A full window with a long answer time is the server's
            (or the CPU's) delay; a window below the limit is the client refilling late.
            A ratio under 1 is time a stream stood empty: the window refilled late (a thread hand-off, the
            consumer), a stream-limit or flow-control stall, or a CPU too busy to keep up (the CPU column).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let latencyMs = try arguments.int("latency-ms") ?? 50
        let streams = try arguments.int("streams") ?? 100
        let connectionCounts = try BenchClientCommand.list(arguments, "connections", default: [1, 4, 8])
        let seconds = try arguments.double("seconds") ?? 4
        let phones = try arguments.int("phones") ?? 2000
        let rounds = try arguments.int("rounds") ?? 2
        guard latencyMs > 0, streams > 0, seconds > 0, phones > 0, rounds > 0 else {
            throw arguments.usageError("'--latency-ms', '--streams', '--seconds', '--phones' and '--rounds' must be positive")
        }
        let latency = Double(latencyMs) / 1000
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }

        let made = try SimulatorSetup.generated(in: workspace.directory.path + "/sim")
        var setup = made.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: "com.example.flights", teamID: made.teamID)]
        setup.configuration.logCapacity = 0
        setup.configuration.maxConcurrentStreams = streams
        setup.faults = [FaultRule(.latency(latency))]
        let simulator = try setup.makeSimulator()
        let flight = FlightAttributes.example(departure: Date().addingTimeInterval(7200))
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: Date().addingTimeInterval(4800))
        var tokens: [String] = []
        for i in 0..<phones {
            let id = simulator.addDevice(name: "p\(i)", osVersion: "17.5", id: "p\(i)")
            _ = try simulator.install("com.example.flights", on: id, activityTypes: [.type(FlightAttributes.self)])
            tokens.append(try simulator.startActivity(on: id, bundleID: "com.example.flights", attributes: flight, contentState: state).pushToken!)
        }
        let server = try SimulatorServer.start(simulator: simulator, certificates: workspace.certificates)
        let key = try P256PrivateKey(pem: String(decoding: FileManager.default.contents(atPath: made.keyFile) ?? Data(), as: UTF8.self))
        var update = state
        update.gate = "C3"
        let request = PushRequest.liveActivity(try .update(state: update), bundleID: "com.example.flights")

        Console.out("simulator in process: every answer after \(latencyMs) ms, MAX_CONCURRENT_STREAMS \(streams); \(phones) phones; "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; load \(BenchClientMemoryCommand.loadAverage())")
        Console.out("\nconnections  in flight  pushes   pushes/s  ideal/s   vs ideal  one push ms  vs ideal at it  mean in flight  answer ms  CPU µs/push  failed   (best of \(rounds))")
        for connections in connectionCounts {
            let inFlight = streams * connections
            let ideal = Double(inFlight) / latency
            let count = max(inFlight * 4, Int(ideal * seconds))
            var best: (rate: Double, cpu: Double, failed: Int, rtt: Double, inFlight: Double)?
            for round in 1...rounds {
                let client = APNSClient(configuration: APNSConfiguration(
                    authentication: .token(key: key, keyID: made.keyID, teamID: made.teamID),
                    environment: .custom(host: "127.0.0.1", port: server.port, caFile: server.caFile), connectionCount: connections, maxInFlight: inFlight))
                // Open every connection and pass each one's one-stream gate before the clock starts.
                for await r in client.sendAll((0..<(connections * 4)).map { (request, tokens[$0 % tokens.count]) }) where !r.result.isAccepted {
                    throw CLIError(message: "warm-up push failed: \(r.result)")
                }
                // One push at a time: the answer time the window meets (the latency plus the simulator's
                // timer and both sides' work), for the ideal at the measured latency.
                var times: [Double] = []
                for i in 0..<20 {
                    let t = ContinuousClock.now
                    let result = await client.send(request, to: tokens[i % tokens.count])
                    guard result.isAccepted else { throw CLIError(message: "single push failed: \(result)") }
                    let d = ContinuousClock.now - t
                    times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
                }
                let rtt = times.sorted()[times.count / 2]
                let pushes = CyclingPushes(request: request, tokens: tokens, count: count)
                let cpuBefore = BenchClientCommand.cpuSeconds()
                let start = ContinuousClock.now
                let sampler = InFlightSampler(client)
                var failed = 0
                for await r in client.sendAll(pushes) where !r.result.isAccepted {
                    failed += 1
                    if failed == 1 { Console.err("first failure: \(r.result)") }
                }
                let elapsed = ContinuousClock.now - start
                let window = sampler.stop()
                let meanInFlight = window.mean
                Console.err(String(format: "%d conn round %d: in flight mean %.0f, 1st percentile %d, 10th %d, median %d", connections, round, window.mean, window.p1, window.p10, window.p50))
                let cpu = BenchClientCommand.cpuSeconds() - cpuBefore
                await client.shutdown()
                let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let rate = Double(count) / s
                Console.err(String(format: "%d conn round %d: %.0f pushes/s", connections, round, rate))
                if rate > (best?.rate ?? 0) { best = (rate, cpu, failed, rtt, meanInFlight) }
            }
            guard let best else { continue }
            Console.out(String(format: "%11d  %9d  %6d  %9.0f  %7.0f  %8.2fx  %11.1f  %13.2fx  %14.0f  %9.1f  %11.1f  %6d", connections, inFlight, count, best.rate, ideal, best.rate / ideal,
                               best.rtt * 1000, best.rate / (Double(inFlight) / best.rtt), best.inFlight, best.inFlight / best.rate * 1000, best.cpu / Double(count) * 1e6, best.failed))
        }
        Console.out("\n(CPU is this whole process: the simulator's validation and TLS as well as the client's)")
        await server.stop()
        return 0
    }
}

/// Samples `APNSClient.inFlight` every millisecond on its own thread until stopped; the mean.
final class InFlightSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = [], running = true

    init(_ client: APNSClient) {
        let thread = Thread { [self] in
            while lock.withLock({ running }) {
                let n = client.inFlight
                lock.withLock { values.append(n) }
                usleep(1000)  // the sampling period
            }
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    /// Stops sampling; the mean and the 1st, 10th and 50th percentiles.
    func stop() -> (mean: Double, p1: Int, p10: Int, p50: Int) {
        lock.withLock {
            running = false
            guard !values.isEmpty else { return (.nan, 0, 0, 0) }
            let sorted = values.sorted()
            return (Double(values.reduce(0, +)) / Double(values.count), sorted[sorted.count / 100], sorted[sorted.count / 10], sorted[sorted.count / 2])
        }
    }
}

/// `count` pushes of one request cycling through `tokens`, read lazily.
struct CyclingPushes: Sequence, Sendable {
    let request: PushRequest
    let tokens: [String]
    let count: Int

    struct Iterator: IteratorProtocol {
        let pushes: CyclingPushes
        var index = 0
        mutating func next() -> (PushRequest, String)? {
            guard index < pushes.count else { return nil }
            defer { index += 1 }
            return (pushes.request, pushes.tokens[index % pushes.tokens.count])
        }
    }

    func makeIterator() -> Iterator { Iterator(pushes: self) }
}

// liveline-client-probe: the smallest process that sends pushes with APNSClient, so
// `liveline-bench client-memory` can read what the client itself costs in memory. It links
// LivelineAPNS (and so LivelineCore, LivelineCrypto, LivelineHTTP2, Foundation, OpenSSL, nghttp2)
// and nothing else; the allocator is glibc's unless the bench preloads another.
//
//   liveline-client-probe --port P --ca FILE --key FILE --key-id K --team-id T --count N
//                         [--connections C] [--in-flight M] [--tokens FILE] [--mappings PREFIX] [--idle]
//
// It prints one line of `name=value` figures (kB unless named otherwise) and exits 0, or prints
// the problem to standard error and exits 2. `--tokens` names a file of device tokens, one a line,
// the pushes cycle through (a simulator's phones); without it they go to made-up tokens. `--idle`
// stops after reading the start figures: the process's own baseline with nothing of the client used.
import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
#if canImport(Glibc)
import Glibc
#endif

/// The process's memory figures from /proc/self/status, in kB.
struct Status {
    var rss = 0, anon = 0, file = 0, hwm = 0, threads = 0

    static func read() -> Status {
        var s = Status()
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return s }
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "VmRSS": s.rss = value
            case "RssAnon": s.anon = value
            case "RssFile": s.file = value
            case "VmHWM": s.hwm = value
            case "Threads": s.threads = value
            default: break
            }
        }
        return s
    }
}

/// The most anonymous (heap, stacks) and file-backed (code, read-only data) memory seen, sampled
/// every 10 ms on its own thread while the pushes are sent: VmHWM gives the peak of their sum only.
final class Sampler: @unchecked Sendable {
    private let lock = NSLock()
    private var maxAnon = 0, maxFile = 0, maxThreads = 0
    private var running = true

    func start() {
        let thread = Thread { [self] in
            while true {
                let s = Status.read()
                let keepGoing = lock.withLock { () -> Bool in
                    maxAnon = max(maxAnon, s.anon)
                    maxFile = max(maxFile, s.file)
                    maxThreads = max(maxThreads, s.threads)
                    return running
                }
                if !keepGoing { return }
                usleep(10_000)
            }
        }
        thread.stackSize = 64 * 1024
        thread.start()
    }

    func stop() -> (anon: Int, file: Int, threads: Int) {
        lock.withLock {
            running = false
            return (maxAnon, maxFile, maxThreads)
        }
    }
}

/// The heap as the allocator sees it, in kB: jemalloc's allocated and resident bytes when it serves
/// malloc (preloaded); glibc's malloc gives no such figures.
func heapFigures() -> String {
    typealias MallCtl = @convention(c) (UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallctl") {
        let mallctl = unsafeBitCast(symbol, to: MallCtl.self)
        // Writing "epoch" refreshes the statistics jemalloc caches.
        var epoch: UInt64 = 1
        _ = mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size)
        func read(_ name: String) -> Int {
            var value = 0
            var length = MemoryLayout<Int>.size
            return mallctl(name, &value, &length, nil, 0) == 0 ? value / 1024 : -1
        }
        return "allocator=jemalloc heap_allocated=\(read("stats.allocated")) heap_resident=\(read("stats.resident")) heap_metadata=\(read("stats.metadata"))"
    }
    return "allocator=glibc"
}

/// Live Activity updates cycling through `states` different content states and `distinct` device
/// tokens (or the given ones), made once and read lazily, so a million sends hold no more pushes
/// than a thousand. The states are few: what a caller keeps of its own data is not the client's memory.
struct Pushes: Sequence, Sendable {
    let count: Int
    let requests: [PushRequest]
    let tokens: [String]

    /// With `tokens`, the pushes go to them in turn (a simulator's phones); else to made-up tokens.
    init(count: Int, distinct: Int = 1000, states: Int = 50, tokens: [String] = []) throws {
        self.count = count
        let tokens = tokens.isEmpty ? (0..<Swift.min(count, distinct)).map { i in
            let suffix = String(UInt64(i) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            return String(repeating: "80", count: 72) + String(repeating: "0", count: 16 - suffix.count) + suffix
        } : tokens
        self.tokens = tokens
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        let statuses = FlightAttributes.Status.allCases
        requests = try (0..<Swift.max(1, Swift.min(count, states))).map { i in
            let state = FlightAttributes.ContentState(status: statuses[i % statuses.count], gate: "B\(10 + i % 40)",
                                                      boardingTime: base.addingTimeInterval(Double(i % 3600)), delayMinutes: i % 90, isBoarding: i % 2 == 0)
            let alert = i % 10 == 0 ? Alert(title: .plain("LL 1234"), body: .plain("Now boarding at gate B\(10 + i % 40)")) : nil
            let push = try LiveActivityPush.update(state: state, timestamp: base.addingTimeInterval(Double(i)), alert: alert,
                                                   staleDate: base.addingTimeInterval(Double(i) + 1800), relevanceScore: 75)
            return PushRequest.liveActivity(push, bundleID: "com.example.flights", priority: .considerate)
        }
    }

    struct Iterator: IteratorProtocol {
        let pushes: Pushes
        var index = 0
        mutating func next() -> (PushRequest, String)? {
            guard index < pushes.count else { return nil }
            defer { index += 1 }
            return (pushes.requests[index % pushes.requests.count], pushes.tokens[index % pushes.tokens.count])
        }
    }

    func makeIterator() -> Iterator { Iterator(pushes: self) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("liveline-client-probe: \(message)\n".utf8))
    exit(2)
}

@main
struct ClientProbe {
    static func main() async {
        exit(await run())
    }

    static func run() async -> Int32 {
        let start = Status.read()
        var options: [String: String] = [:]
        var flags: Set<String> = []
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            guard argument.hasPrefix("--") else { fail("unexpected argument '\(argument)'") }
            let name = String(argument.dropFirst(2))
            if name == "idle" { flags.insert(name); continue }
            guard let value = arguments.popFirst() else { fail("'\(argument)' needs a value") }
            options[name] = value
        }
        func option(_ name: String) -> String {
            guard let value = options[name] else { fail("missing --\(name)") }
            return value
        }
        func number(_ name: String, default value: Int) -> Int {
            guard let text = options[name] else { return value }
            guard let n = Int(text), n > 0 else { fail("--\(name) must be a positive integer, got '\(text)'") }
            return n
        }

        if flags.contains("idle") {
            print("start_rss=\(start.rss) start_anon=\(start.anon) start_file=\(start.file) threads=\(start.threads) \(heapFigures())")
            return 0
        }

        /// `--mappings PREFIX` writes /proc/self/smaps to PREFIX.<phase> (where the memory of a phase went).
        func dumpMappings(_ phase: String) {
            guard let prefix = options["mappings"] else { return }
            guard let data = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile(),
                  FileManager.default.createFile(atPath: "\(prefix).\(phase)", contents: data) else { fail("cannot write \(prefix).\(phase)") }
        }
        dumpMappings("start")
        let port = number("port", default: 0)
        let count = number("count", default: 10_000)
        let connections = number("connections", default: 1)
        let inFlight = number("in-flight", default: 1000)
        let key: P256PrivateKey
        do { key = try P256PrivateKey(contentsOfFile: option("key")) } catch { fail("cannot read the key: \(error)") }
        dumpMappings("key")
        let configuration = APNSConfiguration(
            authentication: .token(key: key, keyID: option("key-id"), teamID: option("team-id")),
            environment: .custom(host: "127.0.0.1", port: port, caFile: option("ca")), connectionCount: connections, maxInFlight: inFlight)
        var tokens: [String] = []
        if let file = options["tokens"] {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { fail("cannot read the tokens file '\(file)'") }
            tokens = text.split(separator: "\n").map(String.init)
            guard !tokens.isEmpty else { fail("the tokens file '\(file)' is empty") }
        }
        let pushes: Pushes, warmUp: Pushes
        do {
            pushes = try Pushes(count: count, tokens: tokens)
            warmUp = try Pushes(count: connections * 2, tokens: tokens)
        } catch {
            fail("cannot build the pushes: \(error)")
        }

        let ready = Status.read()
        dumpMappings("input")
        let client = APNSClient(configuration: configuration)
        // Connect and pass the one-stream window before measuring.
        for await outcome in client.sendAll(warmUp) where !outcome.result.isAccepted {
            fail("warm-up push failed: \(outcome.result)")
        }
        let connected = Status.read()
        dumpMappings("connected")
        let sampler = Sampler()
        sampler.start()
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpuBefore = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let clock = ContinuousClock.now
        var failed = 0
        for await outcome in client.sendAll(pushes) where !outcome.result.isAccepted {
            failed += 1
            if failed == 1 { FileHandle.standardError.write(Data("first failure: \(outcome.result)\n".utf8)) }
        }
        let elapsed = ContinuousClock.now - clock
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6 - cpuBefore
        let peak = sampler.stop()
        let end = Status.read()
        let heap = heapFigures()
        await client.shutdown()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("count=\(count) failed=\(failed) seconds=\(String(format: "%.3f", seconds)) cpu=\(String(format: "%.3f", cpu)) "
              + "start_rss=\(start.rss) start_anon=\(start.anon) start_file=\(start.file) ready_rss=\(ready.rss) connected_rss=\(connected.rss) "
              + "connected_anon=\(connected.anon) connected_file=\(connected.file) "
              + "peak_rss=\(end.hwm) peak_anon=\(peak.anon) peak_file=\(peak.file) end_rss=\(end.rss) threads=\(peak.threads) \(heap)")
        return failed == 0 ? 0 : 1
    }
}

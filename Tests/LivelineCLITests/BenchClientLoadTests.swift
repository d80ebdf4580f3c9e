import Foundation
import Testing

/// `liveline-bench client-memory`, `far-apns` and `small-sends` in short runs: every row they
/// promise is printed and adds up. No figure is compared with a target: they are measurements.
@Suite("liveline-bench client-memory, far-apns and small-sends")
struct BenchClientLoadTests {
    /// The numbers after `prefix` on the first line starting with it, in order (a ratio's "x" dropped).
    static func numbers(_ output: String, row prefix: String) throws -> [Double] {
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no row '\(prefix)' in:\n\(output)")
        return line.dropFirst(prefix.count).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "x"))) }
    }

    @Test("client-memory runs the probe in its own process: idle and sending rows, peak above the idle start, beside h2load")
    func clientMemory() async throws {
        let result = try await CLI.bench(["client-memory", "--counts", "300", "--streams", "100", "--in-flight", "50"])
        #expect(result.status == 0, "\(result.stderr)")
        // probe, glibc  idle | peak | anon | file | start
        let idle = try Self.numbers(result.stdout, row: "probe, glibc ")
        // APNSClient, glibc  N | peak | anon | file | start | input | connected | pushes/s
        let sending = try Self.numbers(result.stdout, row: "APNSClient, glibc ")
        #expect(idle.count == 4 && sending.count == 8, "\(idle) \(sending)")
        guard sending.count == 8, idle.count == 4 else { return }
        #expect(sending[0] == 300)
        #expect(sending[1] > idle[0], "peak \(sending[1]) MB not above the idle process's \(idle[0]) MB")
        #expect(sending[2] > 0 && sending[3] > 0, "anonymous and file-backed memory sampled: \(sending)")
        #expect(sending[4] < sending[1] && sending[6] <= sending[1], "start and connected are below the peak (VmHWM): \(sending)")
        #expect(sending[7] > 0, "\(sending)")
        #expect(!result.stdout.contains("failed)"), "\(result.stdout)")
        let reference = try Self.numbers(result.stdout, row: "h2load -c 1 -m 100 ")
        #expect(reference.count == 2 && reference[0] == 300 && reference[1] > 0, "\(reference)")
    }

    @Test("far-apns keeps the window the simulator allows, never more, and loses no push")
    func farAPNs() async throws {
        let result = try await CLI.bench(["far-apns", "--connections", "2", "--streams", "10", "--latency-ms", "20", "--seconds", "0.5", "--phones", "40", "--rounds", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        // (connections 2) in flight | pushes | pushes/s | ideal/s | vs ideal | one push ms | vs ideal at it | mean in flight | answer ms | CPU | failed
        let row = try Self.numbers(result.stdout, row: "          2 ")
        #expect(row.count == 11, "\(row)")
        guard row.count == 11 else { return }
        #expect(row[0] == 20, "in flight is streams × connections: \(row)")
        #expect(row[1] == 500, "pushes: the larger of 4 windows and the ideal rate × 0.5 s: \(row)")
        #expect(row[3] == 1000, "ideal: 20 in flight ÷ 20 ms: \(row)")
        #expect(row[5] >= 20, "one push cannot be answered before the 20 ms latency: \(row)")
        #expect(row[7] <= 20, "the client never has more in flight than maxInFlight: \(row)")
        #expect(row[10] == 0, "failed pushes: \(row)")
    }

    @Test("small-sends on SQLite: every POST answered and every row sent, for small sends and the fan-out, beside the raw client")
    func smallSends() async throws {
        let result = try await CLI.bench(["small-sends", "--activities", "40", "--database", "sqlite", "--rounds", "1", "--parallel", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        for shape in ["sqlite    small sends", "sqlite    fan-out"] {
            // round | pushes/s | raw/s | vs raw | service µs | whole µs | raw µs | whole/raw | POSTs s  ("-" for PostgreSQL)
            let row = try Self.numbers(result.stdout, row: shape)
            #expect(row.count == 9, "\(shape): \(row)")
            guard row.count == 9 else { continue }
            #expect(row[0] == 1 && row[1] > 0 && row[2] > 0, "\(shape): \(row)")
            #expect(row[4] == row[5], "without PostgreSQL the whole path is the service: \(row)")
        }
    }

    @Test("bad options are named", arguments: [
        (["client-memory", "--counts", "1,x"], "'--counts' must be positive integers separated by commas, got '1,x'"),
        (["client-memory", "--streams", "0"], "'--streams', '--in-flight' and '--connections' must be positive"),
        (["far-apns", "--latency-ms", "0"], "'--latency-ms', '--streams', '--seconds', '--phones' and '--rounds' must be positive"),
        (["far-apns", "--connections", "0"], "'--connections' must be positive integers separated by commas, got '0'"),
        (["small-sends", "--database", "mysql"], "'--database' takes sqlite, postgres or both separated by a comma, got 'mysql'"),
        (["small-sends", "--parallel", "0"], "'--activities', '--parallel' and '--rounds' must be positive"),
    ])
    func badOptions(_ args: [String], _ message: String) async throws {
        let result = try await CLI.bench(args)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

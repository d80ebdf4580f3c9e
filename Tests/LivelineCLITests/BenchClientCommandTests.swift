import Foundation
import Testing

@Suite("liveline-bench client")
struct BenchClientCommandTests {
    /// A short run against nginx: the binary's malloc is jemalloc's, every push of the bulk send
    /// is accepted, and the row adds up (pushes/s × seconds of CPU per push is sane).
    @Test("a short run sends every push through nginx with jemalloc serving malloc")
    func shortRun() async throws {
        let result = try await CLI.bench(["client", "--count", "400", "--connections", "1", "--rounds", "1", "--no-reference"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let header = try #require(lines.first { $0.hasPrefix("server: nginx") })
        #expect(header.contains("allocator: jemalloc ") && !header.contains("not interposed"), "\(header)")
        let row = try #require(lines.first { $0.hasPrefix("1 conn") }).split(separator: " ")
        // 1 conn | N | pushes/s | vs h2load | CPU s | µs/push | peak RSS MB | failed
        #expect(row[2] == "400")
        #expect((Double(row[3]) ?? 0) > 0)
        #expect(row.last == "0", "failed pushes: \(row)")
    }

    @Test("bad options are named", arguments: [
        (["--rounds", "0"], "'--rounds' must be positive, got 0"),
        (["--count", "0"], "'--count' must be positive, got 0"),
        (["--in-flight", "-3"], "'--in-flight' must be positive, got -3"),
        (["--server", "apache"], "'--server' must be nginx or nghttpd, got 'apache'"),
        (["--connections", "1,x"], "'--connections' must be positive integers separated by commas, got '1,x'"),
    ])
    func badOptions(_ args: [String], _ message: String) async throws {
        let result = try await CLI.bench(["client"] + args)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

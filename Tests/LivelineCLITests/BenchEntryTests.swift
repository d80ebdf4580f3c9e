import Foundation
import LivelineTesting
import Testing

/// `liveline-bench` on its own, and `liveline bench`, the thin entry point that runs it.
@Suite("liveline-bench and the liveline bench entry point")
struct BenchEntryTests {
    static let benchmarks = ["client", "client-memory", "far-apns", "small-sends", "simulator", "ui", "service", "faults", "scale", "http2"]

    @Test("liveline-bench --help lists every benchmark; each has its own help")
    func help() async throws {
        let top = try await CLI.bench(["--help"])
        #expect(top.status == 0, "\(top.stderr)")
        #expect(top.stdout.contains("USAGE: liveline-bench <command> [options]"), "\(top.stdout)")
        let listed = top.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(listed == Self.benchmarks, "\(top.stdout)")
        for name in Self.benchmarks {
            let one = try await CLI.bench([name, "--help"])
            #expect(one.status == 0, "\(name): \(one.stderr)")
            #expect(one.stdout.contains("USAGE: liveline-bench \(name) "), "\(name): \(one.stdout)")
        }
    }

    @Test("usage mistakes exit 64 naming the problem", arguments: [
        (["ui", "--seconds", "0"], "'--seconds' must be positive, got 0", "liveline-bench ui"),
        (["ui", "--seconds", "soon"], "'--seconds' must be a finite number, got 'soon'", "liveline-bench ui"),
        (["http2", "--rounds", "0"], "'--rounds' must be positive", "liveline-bench http2"),
        (["http2", "--requests", "many"], "'--requests' must be an integer, got 'many'", "liveline-bench http2"),
        (["http2", "--request", "5"], "unknown option '--request' (did you mean '--requests'?)", "liveline-bench http2"),
        (["bogus"], "unknown command 'bogus' for 'liveline-bench'", "liveline-bench"),
        ([], "missing command (one of: client, client-memory, far-apns, small-sends, simulator, ui, service, faults, scale, http2)", "liveline-bench"),
    ])
    func usageErrors(args: [String], message: String, helpPath: String) async throws {
        let result = try await CLI.bench(args)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("hint: see '\(helpPath) --help'"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("liveline --help lists bench as the entry point to liveline-bench")
    func listed() async throws {
        let result = try await CLI.run(["--help"])
        #expect(result.status == 0)
        let line = try #require(result.stdout.split(separator: "\n").first { $0.hasPrefix("  bench ") }, "\(result.stdout)")
        #expect(line.contains("runs liveline-bench"), "\(line)")
    }

    @Test("liveline bench X runs liveline-bench X: the same output and exit code, stdout and stderr apart")
    func forwards() async throws {
        let direct = try await CLI.bench(["ui", "--help"])
        let entry = try await CLI.run(["bench", "ui", "--help"])
        #expect(entry.status == 0, "\(entry.stderr)")
        #expect(entry.stdout == direct.stdout && entry.stdout.contains("USAGE: liveline-bench ui "), "\(entry.stdout)")
        #expect(entry.stderr.isEmpty, "\(entry.stderr)")
        let bad = try await CLI.run(["bench", "client", "--count", "0"])
        #expect(bad.status == 64)
        #expect(bad.stdout.isEmpty)
        #expect(bad.stderr == "error: '--count' must be positive, got 0\nhint: see 'liveline-bench client --help'\n", "\(bad.stderr)")
        let group = try await CLI.run(["bench"])
        #expect(group.status == 64 && group.stderr.contains("missing command (one of: client, "), "\(group.stderr)")
    }

    @Test("liveline bench without liveline-bench beside it names the build command")
    func notBuilt() async throws {
        // Beside the build directory, so that the hard link below stays on one file system.
        let directory = CLI.binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("bench-entry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appendingPathComponent("liveline")
        // A hard link, not a copy: a copy is written through a descriptor of this process, which a
        // child forked meanwhile by another test inherits, and exec then fails with "Text file busy".
        try FileManager.default.linkItem(at: CLI.binary, to: alone)
        let result = try await CLI.run(["bench", "ui", "--help"], executable: alone)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("liveline bench runs liveline-bench, which is not built: no \(directory.path)/liveline-bench"), "\(result.stderr)")
        #expect(result.stderr.contains("'swift build --product liveline-bench'"), "\(result.stderr)")
        // The copy itself works: its own commands do not need liveline-bench.
        let own = try await CLI.run(["--version"], executable: alone)
        #expect(own.status == 0 && own.stdout.hasPrefix("liveline "), "\(own.stderr)")
    }
}

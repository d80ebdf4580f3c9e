import Foundation
import Testing

@Suite("liveline serve --dashboard: its options")
struct ServeDashboardCommandTests {
    @Test("bad dashboard options exit 64 naming the option and the value, before anything starts", arguments: [
        (["serve", "--dashboard", "--dashboard-port", "70000"], "'--dashboard-port' must be 0 to 65535, got 70000"),
        (["serve", "--dashboard", "--dashboard-port", "-1"], "'--dashboard-port' must be 0 to 65535, got -1"),
        (["serve", "--dashboard", "--dashboard-port", "web"], "'--dashboard-port' must be an integer, got 'web'"),
        (["serve", "--dashboard", "--simulator-dashboard", "ftp://127.0.0.1:2198/"], "'--simulator-dashboard' must be an http:// or https:// URL, got 'ftp://127.0.0.1:2198/'"),
        (["serve", "--dashboard", "--simulator-dashboard", "127.0.0.1:2198"], "'--simulator-dashboard' must be an http:// or https:// URL, got '127.0.0.1:2198'"),
        (["serve", "--dashboard-port", "0"], "'--dashboard-port' needs '--dashboard'"),
        (["serve", "--simulator-dashboard", "http://127.0.0.1:2198/"], "'--simulator-dashboard' needs '--dashboard'"),
    ])
    func usage(_ args: [String], _ message: String) async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try await CLI.run(args + ["--port", "0"], in: dir)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("hint: see 'liveline serve --help'"))
        // Refused before the database was opened.
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("liveline.db").path))
    }

    @Test("--help describes the dashboard's options")
    func help() async throws {
        let result = try await CLI.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--dashboard ", "--dashboard-port", "--simulator-dashboard"] { #expect(result.stdout.contains(option), "\(result.stdout)") }
        #expect(result.stdout.contains("127.0.0.1 only"))
    }
}

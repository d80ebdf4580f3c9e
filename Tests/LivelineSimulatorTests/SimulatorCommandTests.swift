import Foundation
import LivelineCore
import LivelineTesting
import Testing

/// Runs the built `liveline simulator` and queries it, as a user would.
@Suite("liveline simulator (the built binary)")
struct SimulatorCommandTests {
    static let binary = BuiltProduct.path("liveline")

    static func run(_ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let output = try await ProcessRunner.run(binary, args)
        return (output.status, output.stdoutText, output.stderrText)
    }

    @Test("runs on port 0, prints its address, CA file and key, answers status|devices|log, stops on SIGTERM")
    func runAndQuery() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try RunningProcess.start(Self.binary, ["simulator", "--port", "0", "--state-dir", dir])
        // Never leave the server behind, even when an expectation throws half-way.
        defer { server.send(SIGKILL) }
        // Wait for the "Ready." line: the server is listening once it is printed.
        let text = (try? await server.output(containing: "Ready.")) ?? server.standardOutput
        #expect(text.contains("APNs simulator (sandbox) listening on https://127.0.0.1:"))
        #expect(text.contains("CA file: \(dir)/simulator-ca.pem"))
        #expect(text.contains("Generated key: \(dir)/AuthKey_"))
        #expect(FileManager.default.fileExists(atPath: dir + "/simulator.json"))

        let status = try await Self.run(["simulator", "status", "--state-dir", dir, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try JSONValue.parse(status.stdout)["environment"] == "sandbox")
        let readable = try await Self.run(["simulator", "status", "--state-dir", dir])
        #expect(readable.stdout.contains("pushes: 0 accepted, 0 rejected, 0 dropped on a device"))
        let devices = try await Self.run(["simulator", "devices", "--state-dir", dir])
        #expect(devices.stdout.contains("com.example.liveline"))
        let log = try await Self.run(["simulator", "log", "--state-dir", dir, "--limit", "5", "--json"])
        #expect(try JSONValue.parse(log.stdout) == .array([]))
        let bad = try await Self.run(["simulator", "stats", "--state-dir", dir])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("unknown subcommand 'stats'"))

        server.send(SIGTERM)
        #expect(await server.exitStatus() == 0)
        let after = try await Self.run(["simulator", "status", "--state-dir", dir])
        #expect(after.status == 1)
        #expect(after.stderr.contains("no running simulator found"))
    }
}

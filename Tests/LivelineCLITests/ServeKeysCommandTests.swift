import Foundation
import LivelineProcess
import LivelineTesting
import Testing

@Suite("liveline serve: the first admin key and the key-encryption key")
struct ServeKeysCommandTests {
    @Test("the first admin key goes to standard error once, never to standard output; a second start prints none")
    func adminKeyOffStdout() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let database = dir.appendingPathComponent("keys.db").path
        // Standard output only (standard error goes to /dev/null).
        let first = try RunningProcess.start(CLI.binary.path, ["serve", "--port", "0", "--database", database])
        let out = try await first.output(containing: "Ready.", within: .seconds(60))
        first.send(SIGTERM)
        #expect(await first.exitStatus() == 0)
        #expect(out.contains("Admin key: printed once on standard error"), "\(out)")
        #expect(!out.contains("ll_admin_"), "the admin key reached standard output: \(out)")
        // Both streams: the key is on standard error the first time only.
        let second = try RunningProcess.start(CLI.binary.path, ["serve", "--port", "0", "--database", database], keepStandardError: true)
        let both = try await second.output(containing: "Ready.", within: .seconds(60))
        second.send(SIGTERM)
        #expect(await second.exitStatus() == 0)
        #expect(!both.contains("ll_admin_") && !both.contains("Admin key"), "\(both)")
        #expect(both.contains("no key-encryption key"), "a start without a KEK must warn: \(both)")
        let mode = try FileManager.default.attributesOfItem(atPath: database)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("a KEK file that is not 32 bytes in hex or base64 stops the start, naming the file")
    func badKEKFile() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let kek = dir.appendingPathComponent("kek").path
        try "not a key".write(toFile: kek, atomically: true, encoding: .utf8)
        let result = try await CLI.run(["serve", "--port", "0", "--database", dir.appendingPathComponent("k.db").path, "--kek-file", kek])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("the key-encryption key file '\(kek)'") && result.stderr.contains("64 hex digits"), "\(result.stderr)")
    }
}

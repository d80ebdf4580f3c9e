import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineProcess
import LivelineTesting
import Testing

/// Runs the built `liveline` binary.
enum LivelineBinary {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static let url = URL(fileURLWithPath: BuiltProduct.path("liveline"))

    /// Runs the binary on a dedicated thread (LivelineTesting's `ProcessRunner`) and waits for it.
    static func run(_ arguments: [String]) throws -> Result {
        let output = try ProcessRunner.runBlocking(url.path, arguments)
        return Result(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }
}

@Suite struct APNSCommandTests {
    static func credentials(_ pki: TestPKI) -> [String] {
        ["--key", pki.authKey.path, "--team-id", pki.teamID]
    }

    static func target(_ server: APNSLikeNginx) -> [String] {
        ["--host", "127.0.0.1:\(server.server.port)", "--ca-file", server.pki.caCertificate.path]
    }

    @Test func jwtPrintsATokenOpenSSLVerifies() throws {
        let pki = try TestPKI.shared()
        let result = try LivelineBinary.run(["jwt"] + Self.credentials(pki))
        #expect(result.status == 0, "\(result.stderr)")
        let token = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let jwt = try JWT(parsing: token)
        #expect(jwt.keyID == pki.keyID)
        #expect(jwt.teamID == pki.teamID)
        #expect(abs(jwt.issuedAt.timeIntervalSinceNow) < 120)
        let parts = token.split(separator: ".").map(String.init)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("\(parts[0]).\(parts[1])".utf8).write(to: dir.appendingPathComponent("input"))
        let raw = try #require(Base64URL.decode(parts[2]))
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        try Data(der).write(to: dir.appendingPathComponent("sig"))
        // Each waits for openssl's exit (its pipes closing), not by polling.
        try ProcessRunner.checkedBlocking("/usr/bin/openssl", ["pkey", "-in", pki.authKey.path, "-pubout", "-out", dir.appendingPathComponent("pub.pem").path])
        let verify = try ProcessRunner.runBlocking("/usr/bin/openssl", ["dgst", "-sha256", "-verify", dir.appendingPathComponent("pub.pem").path,
                                                                       "-signature", dir.appendingPathComponent("sig").path, dir.appendingPathComponent("input").path])
        #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
    }

    @Test func sendPrintsTheVerdictAndExitsByIt() throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let base = ["send", "update", "--bundle-id", APNSLikeNginx.bundleID, "--example", "flight"] + Self.credentials(pki) + Self.target(server)

        let id = "123e4567-e89b-12d3-a456-426614174000"
        let ok = try LivelineBinary.run(base + ["--token", APNSLikeNginx.acceptingToken, "--apns-id", id])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("accepted: device 0abc0def"))
        #expect(ok.stdout.contains("apns-id=\(id)"))

        let index = try #require(APNSReason.table.firstIndex { $0.reason == .badDeviceToken })
        let rejected = try LivelineBinary.run(base + ["--token", APNSLikeNginx.token(forReasonAt: index)])
        #expect(rejected.status == 1)
        #expect(rejected.stdout.hasPrefix("rejected: 400 BadDeviceToken"))
        #expect(rejected.stderr.contains("retry: never"))

        let unregistered = try #require(APNSReason.table.firstIndex { $0.reason == .unregistered })
        let gone = try LivelineBinary.run(base + ["--token", APNSLikeNginx.token(forReasonAt: unregistered)])
        #expect(gone.status == 1)
        #expect(gone.stdout.contains("410 Unregistered") && gone.stdout.contains("timestamp=1700000000123"))
    }

    @Test func sendFailsWithStatus2WhenNothingListens() throws {
        let pki = try TestPKI.shared()
        let port = try ServerProcess.freePort()
        let result = try LivelineBinary.run(
            ["send", "update", "--bundle-id", "com.example.flights", "--example", "flight", "--token", "ab12",
             "--host", "127.0.0.1:\(port)", "--ca-file", pki.caCertificate.path, "--connect-timeout", "2"] + Self.credentials(pki))
        #expect(result.status == 2)
        #expect(result.stdout.hasPrefix("failed: connect-failed"))
        #expect(result.stderr.contains("127.0.0.1:\(port)"))
    }

    struct BadUse: Sendable, CustomStringConvertible {
        var name: String
        var arguments: @Sendable (TestPKI) -> [String]
        var status: Int32
        var mentions: [String]
        var description: String { name }
    }

    static let badUses: [BadUse] = [
        BadUse(name: "no token", arguments: { ["send", "update", "--bundle-id", "a.b", "--example", "flight"] + credentials($0) },
               status: 64, mentions: ["--token", "liveline send --help"]),
        BadUse(name: "unknown environment", arguments: { ["send", "update", "--token", "ab", "--bundle-id", "a.b", "--environment", "staging"] + credentials($0) },
               status: 64, mentions: ["staging", "production or sandbox"]),
        BadUse(name: "port not 443/2197", arguments: { ["send", "update", "--token", "ab", "--bundle-id", "a.b", "--port", "8443"] + credentials($0) },
               status: 64, mentions: ["8443", "2197"]),
        BadUse(name: "bad host", arguments: { ["send", "update", "--token", "ab", "--bundle-id", "a.b", "--host", "localhost"] + credentials($0) },
               status: 64, mentions: ["localhost", "host:port"]),
        BadUse(name: "P-384 key", arguments: { ["jwt", "--key", $0.p384Key.path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"] },
               status: 1, mentions: ["secp384r1", "P-256"]),
        BadUse(name: "encrypted key", arguments: { ["jwt", "--key", $0.encryptedAuthKey.path, "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ"] },
               status: 1, mentions: ["encrypted"]),
        BadUse(name: "missing key file", arguments: { ["jwt", "--key", $0.directory.appendingPathComponent("AuthKey_NOPE000000.p8").path, "--team-id", "DEF123GHIJ"] },
               status: 1, mentions: ["AuthKey_NOPE000000.p8", "does not exist"]),
        BadUse(name: "short team id", arguments: { ["jwt", "--key", $0.authKey.path, "--team-id", "TEAM"] },
               status: 64, mentions: ["TEAM", "10 letters and digits"]),
        BadUse(name: "key id not in file name", arguments: { ["jwt", "--key", $0.rsaKey.path, "--team-id", "DEF123GHIJ"] },
               status: 64, mentions: ["--key-id", "AuthKey_<KEYID>.p8"]),
        BadUse(name: "broadcast start", arguments: { ["broadcast", "start", "--channel-id", "YQ==", "--bundle-id", "a.b"] + credentials($0) },
               status: 64, mentions: ["cannot start"]),
        BadUse(name: "bad storage policy", arguments: { ["channels", "create", "--bundle-id", "a.b", "--storage-policy", "forever"] + credentials($0) },
               status: 64, mentions: ["forever", "none or most-recent"]),
    ]

    @Test(arguments: badUses)
    func badInputNamesTheProblem(_ bad: BadUse) throws {
        let pki = try TestPKI.shared()
        let result = try LivelineBinary.run(bad.arguments(pki))
        #expect(result.status == bad.status, "\(result.stderr)")
        for word in bad.mentions { #expect(result.stderr.contains(word), "\(result.stderr)") }
        #expect(result.stdout.isEmpty)
    }

    @Test func channelsAndBroadcastTalkToTheirPaths() throws {
        let pki = try TestPKI.shared()
        let server = try APNSLikeNginx.start(pki: pki)
        defer { server.stop() }
        let common = ["--bundle-id", APNSLikeNginx.bundleID] + Self.credentials(pki) + Self.target(server)
        let created = try LivelineBinary.run(["channels", "create", "--storage-policy", "most-recent"] + common)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "channel-id=\(APNSLikeNginx.channelID)\n")
        let listed = try LivelineBinary.run(["channels", "list"] + common)
        #expect(listed.stdout == "\(APNSLikeNginx.channelID)\nYW5vdGhlcg==\n")
        let read = try LivelineBinary.run(["channels", "get", "--channel-id", APNSLikeNginx.channelID] + common)
        #expect(read.stdout.contains("message-storage-policy=1"))
        let deleted = try LivelineBinary.run(["channels", "delete", "--channel-id", APNSLikeNginx.channelID] + common)
        #expect(deleted.status == 0)
        let sent = try LivelineBinary.run(["broadcast", "update", "--channel-id", APNSLikeNginx.channelID, "--example", "flight", "--expiration", "0"] + common)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.hasPrefix("accepted: channel \(APNSLikeNginx.channelID)"))
    }

    @Test(arguments: [["send"], ["broadcast"], ["jwt"], ["channels", "create"], ["channels", "get"], ["channels", "delete"], ["channels", "list"]])
    func everyCommandHasHelp(_ words: [String]) throws {
        let result = try LivelineBinary.run(words + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: liveline \(words.joined(separator: " "))"))
    }
}

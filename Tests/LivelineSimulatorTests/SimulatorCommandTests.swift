import Foundation
import LivelineCore
import LivelineProcess
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
        let text = (try? await server.output(containing: "Ready.", within: .seconds(60))) ?? server.standardOutput
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
        #expect(try await server.exitStatus(within: .seconds(30)) == 0)
        let after = try await Self.run(["simulator", "status", "--state-dir", dir])
        #expect(after.status == 1)
        #expect(after.stderr.contains("no running simulator found"))
    }

    @Test("--other-environment-port: a production host beside the sandbox one; each answers the other's tokens with BadDeviceToken")
    func otherEnvironmentHost() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try RunningProcess.start(Self.binary, ["simulator", "--port", "0", "--other-environment-port", "0", "--state-dir", dir])
        defer { server.send(SIGKILL) }
        let text = (try? await server.output(containing: "Ready.", within: .seconds(60))) ?? server.standardOutput
        func after(_ marker: String) -> String? {
            guard let range = text.range(of: marker) else { return nil }
            return String(text[range.upperBound...].prefix { !$0.isWhitespace })
        }
        let sandbox = try #require(after("APNs simulator (sandbox) listening on https://"), "\(text)")
        let production = try #require(after("APNs simulator (production) listening on https://"), "\(text)")
        let token = try #require(after("com.example.liveline device token "), "\(text)")
        let key = try #require(after("Generated key: "))
        let team = try #require(after("team ID ")?.dropLast())
        func send(_ host: String) async throws -> String {
            try await Self.run(["send", "update", "--bundle-id", "com.example.liveline", "--example", "flight", "--token", token, "--key", key,
                                "--team-id", String(team), "--host", host, "--ca-file", dir + "/simulator-ca.pem"]).stdout
        }
        // The device's token is a sandbox token: the production host does not know it.
        #expect(try await send(production).hasPrefix("rejected: 400 BadDeviceToken"))
        // The sandbox host knows it (a Live Activity push to a device token is then refused for its topic instead).
        let known = try await send(sandbox)
        #expect(!known.contains("BadDeviceToken") && known.hasPrefix("rejected: 400 DeviceTokenNotForTopic"), "\(known)")
        server.send(SIGTERM)
        #expect(try await server.exitStatus(within: .seconds(30)) == 0)
    }

    @Test("log shows each push's priority, apns-id and alert; --payloads adds its apns- headers and payload (no JWT, no whole token)")
    func logPayloads() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let server = try RunningProcess.start(Self.binary, ["simulator", "--port", "0", "--state-dir", dir])
        defer { server.send(SIGKILL) }
        let text = (try? await server.output(containing: "Ready.", within: .seconds(60))) ?? server.standardOutput
        func after(_ marker: String) -> String? {
            guard let range = text.range(of: marker) else { return nil }
            return String(text[range.upperBound...].prefix { !$0.isWhitespace })
        }
        let host = try #require(after("APNs simulator (sandbox) listening on https://"), "\(text)")
        let token = try #require(after("com.example.liveline push-to-start FlightAttributes: "), "\(text)")
        let key = try #require(after("Generated key: "))
        let team = try #require(after("team ID ")?.dropLast())
        let sent = try await Self.run(["send", "start", "--bundle-id", "com.example.liveline", "--example", "flight", "--token", token, "--key", key,
                                       "--team-id", String(team), "--host", host, "--ca-file", dir + "/simulator-ca.pem",
                                       "--alert-title", "Tracking LL 1234", "--priority", "5"])
        #expect(sent.status == 0, "\(sent.stdout)\(sent.stderr)")

        let plain = try await Self.run(["simulator", "log", "--state-dir", dir])
        #expect(plain.status == 0, "\(plain.stderr)")
        let first = plain.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains("accepted [start] priority 5 apns-id "), "\(plain.stdout)")
        #expect(plain.stdout.contains("  alert {") && plain.stdout.contains("Tracking LL 1234"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("payload ("), "the payload only with --payloads: \(plain.stdout)")

        let full = try await Self.run(["simulator", "log", "--state-dir", dir, "--payloads"])
        #expect(full.status == 0, "\(full.stderr)")
        #expect(full.stdout.contains("  apns-push-type: liveactivity") && full.stdout.contains("  apns-priority: 5"), "\(full.stdout)")
        #expect(full.stdout.contains("  payload (") && full.stdout.contains("\"content-state\"") && full.stdout.contains("\"attributes-type\""), "\(full.stdout)")
        #expect(!full.stdout.lowercased().contains("authorization") && !full.stdout.contains("eyJ"), "no JWT in the log: \(full.stdout)")
        #expect(!full.stdout.contains(token) && full.stdout.contains(String(token.prefix(8)) + "…"), "the token as a prefix only")

        let misplaced = try await Self.run(["simulator", "status", "--state-dir", dir, "--payloads"])
        #expect(misplaced.status == 64 && misplaced.stderr.contains("'--payloads' is for 'liveline simulator log' only"), "\(misplaced.stderr)")
        server.send(SIGTERM)
        #expect(try await server.exitStatus(within: .seconds(30)) == 0)
    }

    @Test("--host beyond loopback without --allow-remote is a usage error (exit 64) that says why")
    func remoteHostNeedsFlag() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for host in ["0.0.0.0", "192.0.2.10", "::"] {
            let r = try await Self.run(["simulator", "--host", host, "--port", "0", "--state-dir", dir])
            #expect(r.status == 64)
            #expect(r.stderr.contains("'--host \(host)' is not a loopback address, and the inspection API shows full device tokens; pass --allow-remote"))
            #expect(r.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/simulator.json"))
    }

    @Test("--allow-remote prints an inspection token once, keeps it in a 0600 endpoint file, and the subcommands send it")
    func allowRemoteToken() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-cli-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Loopback with the flag: the same token rules, without listening beyond this machine in a test.
        let server = try RunningProcess.start(Self.binary, ["simulator", "--allow-remote", "--host", "127.0.0.1", "--port", "0", "--state-dir", dir])
        defer { server.send(SIGKILL) }
        let text = (try? await server.output(containing: "Ready.", within: .seconds(60))) ?? server.standardOutput
        let endpoint = try JSONValue.parse(Array(try #require(FileManager.default.contents(atPath: dir + "/simulator.json"))))
        let token = try #require(endpoint["inspectionToken"]?.stringValue)
        #expect(token.count == 64)
        #expect(text.components(separatedBy: token).count == 2)
        #expect(text.contains("Inspection token: \(token)"))
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/simulator.json")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let status = try await Self.run(["simulator", "status", "--state-dir", dir, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(try JSONValue.parse(status.stdout)["environment"] == "sandbox")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), let port = endpoint["port"]?.numberValue {
            let url = "https://127.0.0.1:\(Int(port))/simulator/v1/status"
            let bare = try await ProcessRunner.run("/usr/bin/curl", ["-s", "--http2", "--cacert", dir + "/simulator-ca.pem", "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(bare.stdoutText == "401")
        }
        server.send(SIGTERM)
        #expect(try await server.exitStatus(within: .seconds(30)) == 0)
    }
}

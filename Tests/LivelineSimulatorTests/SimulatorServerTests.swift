import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineHTTP2
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Testing

/// A simulator served on loopback port 0 with run-time certificates and a generated key.
struct ServedSimulator {
    let directory: String
    let server: SimulatorServer
    let keyFile: String
    let keyID: String
    let teamID: String
    var simulator: Simulator { server.simulator }
    var app: InstalledAppSnapshot { simulator.devices()[0].apps[0] }

    static func start(certificates given: SimulatorCertificates? = nil, clientCAFile: String? = nil,
                      configure: (inout SimulatorSetup) -> Void = { _ in }) async throws -> ServedSimulator {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-server-\(UUID().uuidString.prefix(8))").path
        let made = try SimulatorSetup.generated(in: dir)
        var setup = made.setup
        configure(&setup)
        // openssl runs synchronously in prepare: keep it off the cooperative threads.
        let certificates: SimulatorCertificates
        if let given {
            certificates = given
        } else {
            certificates = try await DedicatedThread.run(name: "certificates") { try SimulatorCertificates.prepare(in: dir) }
        }
        let server = try SimulatorServer.start(simulator: try setup.makeSimulator(), certificates: certificates, clientCAFile: clientCAFile)
        return ServedSimulator(directory: dir, server: server, keyFile: made.keyFile, keyID: made.keyID, teamID: made.teamID)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func token() throws -> String { try SimulatorSetup.providerToken(keyFile: keyFile, keyID: keyID, teamID: teamID) }

    func connect() async throws -> HTTP2Connection {
        try await HTTP2Connection.connect(host: "127.0.0.1", port: server.port, configuration: HTTP2ClientConfiguration(trust: .caFile(server.caFile)))
    }

    func alert(token jwt: String) -> HTTP2Request {
        HTTP2Request(method: "POST", path: "/3/device/" + app.deviceToken,
                     headers: ["authorization": "bearer " + jwt, "apns-topic": app.bundleID, "apns-push-type": "alert"],
                     body: Array(#"{"aps":{"alert":"hello"}}"#.utf8))
    }
}

@Suite("SimulatorServer over HTTP/2 + TLS")
struct SimulatorServerTests {
    @Test("Liveline's APNSClient starts, updates and ends a Live Activity on the simulator")
    func apnsClient() async throws {
        let served = try await ServedSimulator.start()
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: try .token(keyFile: served.keyFile, keyID: served.keyID, teamID: served.teamID),
            environment: .custom(host: "127.0.0.1", port: served.server.port, caFile: served.server.caFile)))
        let departure = Date().addingTimeInterval(3600)
        let start = try LiveActivityPush.start(
            attributes: FlightAttributes.example(departure: departure),
            state: .init(status: .scheduled, gate: "A1", boardingTime: departure), alert: Alert(title: "Flight", body: "Tracking"),
            timestamp: Date().addingTimeInterval(-10), input: .pushToken)
        let started = await client.send(.liveActivity(start, bundleID: served.app.bundleID), to: served.app.pushToStartTokens["FlightAttributes"]!)
        #expect(started.isAccepted)
        if case .accepted(let a) = started { #expect(a.uniqueID != nil) }
        let activity = try #require(served.simulator.activities().first)
        let update = try LiveActivityPush.update(state: FlightAttributes.ContentState(status: .boarding, gate: "B7", boardingTime: departure))
        #expect(await client.send(.liveActivity(update, bundleID: served.app.bundleID), to: activity.pushToken!).isAccepted)
        #expect(served.simulator.activity(activity.id)?.contentState["gate"] == "B7")
        let bad = await client.send(.liveActivity(update, bundleID: served.app.bundleID), to: String(repeating: "ab", count: 32))
        guard case .rejected(let rejection) = bad else { Issue.record("accepted an unknown token"); return }
        #expect(rejection.reason.rawValue == "BadDeviceToken")
        await client.shutdown()
        await served.stop()
    }

    @Test("a token connection starts at one stream, opens after a valid push and closes down after a rejection")
    func streams() async throws {
        let served = try await ServedSimulator.start()
        let connection = try await served.connect()
        let jwt = try served.token()
        let ok = try await connection.send(served.alert(token: jwt))
        #expect(ok.status == 200)
        #expect(ok.headers["apns-unique-id"] != nil)
        #expect(connection.maxConcurrentStreams == 1000)
        var bad = served.alert(token: jwt)
        bad.body = []
        let rejected = try await connection.send(bad)
        #expect(rejected.status == 400)
        #expect(rejected.bodyText == #"{"reason":"PayloadEmpty"}"#)
        #expect(connection.maxConcurrentStreams == 1)
        await connection.close()
        await served.stop()
    }

    @Test("a GOAWAY fault answers Shutdown and closes the connection with the JSON reason as debug data")
    func goAway() async throws {
        let served = try await ServedSimulator.start { $0.faults = [FaultRule(.goAway(.shutdown))] }
        let connection = try await served.connect()
        let response = try await connection.send(served.alert(token: try served.token()))
        #expect(response.status == 503)
        let error = try await withDeadline("the connection to close") { await connection.closed() }
        #expect(error?.goAway?.debugText == #"{"reason":"Shutdown"}"#)
        await served.stop()
    }

    @Test("connection faults over the wire: a lowered stream limit reaches the client; a dropped connection fails the request")
    func connectionFaults() async throws {
        let served = try await ServedSimulator.start { $0.faults = [FaultRule(.lowerStreamLimit(3), limit: 1), FaultRule(.dropConnection, skipFirst: 1)] }
        let connection = try await served.connect()
        let jwt = try served.token()
        let first = try await connection.send(served.alert(token: jwt))
        #expect(first.status == 200)
        #expect(connection.maxConcurrentStreams == 3)
        await #expect(throws: HTTP2Error.self) { try await connection.send(served.alert(token: jwt)) }
        #expect(served.simulator.counts.accepted == 1)
        await served.stop()
    }

    @Test("a client certificate selects certificate mode: alerts pass, Live Activities get TopicDisallowed")
    func certificateMode() async throws {
        let pki = try TestPKI.shared()
        let served = try await ServedSimulator.start(
            certificates: SimulatorCertificates(caFile: pki.caCertificate.path, certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path),
            clientCAFile: pki.caCertificate.path)
        #expect(served.app.bundleID == pki.clientTopic)
        let connection = try await HTTP2Connection.connect(host: "127.0.0.1", port: served.server.port, configuration: HTTP2ClientConfiguration(
            trust: .caFile(pki.caCertificate.path), identity: TLSIdentity(certificateFile: pki.clientCertificate.path, keyFile: pki.clientKey.path)))
        let alert = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/" + served.app.deviceToken,
            headers: ["apns-push-type": "alert"], body: Array(#"{"aps":{"alert":"cert"}}"#.utf8)))
        #expect(alert.status == 200)
        let la = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/" + served.app.pushToStartTokens["FlightAttributes"]!,
            headers: ["apns-push-type": "liveactivity", "apns-topic": served.app.bundleID + ".push-type.liveactivity"], body: Array(#"{"aps":{}}"#.utf8)))
        #expect(la.bodyText == #"{"reason":"TopicDisallowed"}"#)
        await connection.close()
        await served.stop()
    }

    @Test("curl --http2 --cacert pushes and reads the inspection API", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "SKIPPED: /usr/bin/curl is not installed (Debian's curl package)"))
    func curl() async throws {
        let served = try await ServedSimulator.start()
        let url = "https://127.0.0.1:\(served.server.port)"
        let push = try await Self.run("/usr/bin/curl", ["-s", "--http2", "--cacert", served.server.caFile, "-w", "\n%{http_code} %{http_version}",
            "-H", "authorization: bearer " + (try served.token()), "-H", "apns-topic: " + served.app.bundleID, "-H", "apns-push-type: alert",
            "-d", #"{"aps":{"alert":"from curl"}}"#, url + "/3/device/" + served.app.deviceToken])
        #expect(push.hasSuffix("200 2"))
        let status = try await Self.run("/usr/bin/curl", ["-s", "--http2", "--cacert", served.server.caFile, url + "/simulator/v1/status"])
        #expect(try JSONValue.parse(status)["pushes"]?["accepted"] == 1)
        let viaClient = try await SimulatorInspectionClient.fetch("devices", from: .init(host: "127.0.0.1", port: served.server.port, caFile: served.server.caFile))
        #expect(viaClient[0]?["apps"]?[0]?["notifications"] == 1)
        await served.stop()
    }

    static func run(_ tool: String, _ args: [String]) async throws -> String {
        try await ProcessRunner.run(tool, args).stdoutText
    }
}

extension JSONValue {
    subscript(index: Int) -> JSONValue? { arrayValue.flatMap { index < $0.count ? $0[index] : nil } }
}

import Foundation
import LivelineCore
import LivelineHTTP2
import LivelineSimulator
import Synchronization
import LivelineProcess
import LivelineTesting
import Testing

/// Third-party APNs clients, unmodified, pointed at the simulator's host, port and CA file with TLS
/// verification on: Python's aioapns (Debian `python3-aioapns`) and httpx + h2 as a generic HTTP/2 client.
///
/// The tests use Debian's interpreter, `/usr/bin/python3`, because a `python3` earlier on `PATH`
/// (pyenv, a virtualenv) does not see Debian's `dist-packages`.
@Suite("Third-party APNs clients against the simulator")
struct ThirdPartyClientTests {
    static let python = "/usr/bin/python3"

    /// Whether `import <module>` works in Debian's Python; false when the package is not installed.
    static func canImport(_ modules: String) async -> Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? await ProcessRunner.run(python, ["-c", "import " + modules]))?.status == 0
    }

    // Skipped only when `python3 -c "import aioapns"` fails: python3-aioapns is not installed
    // (scripts/install-deps.sh test installs it).
    @Test("aioapns: alert accepted, push-to-start starts an activity, snake_case update dropped on the device, bad token rejected",
          .enabled("needs Debian's python3-aioapns") { await ThirdPartyClientTests.canImport("aioapns") })
    func aioapns() async throws {
        let served = try await ServedSimulator.start()
        let script = served.directory + "/aioapns_client.py"
        try Self.aioapnsScript.write(toFile: script, atomically: true, encoding: .utf8)
        let app = served.app
        let pushToStart = try #require(app.pushToStartTokens["FlightAttributes"])
        let badToken = String(repeating: "ab", count: 32)

        // First run: an alert, a push-to-start, and a push to a token no device has.
        let first = try await runAioapns(script, served: served, steps: [("alert", app.deviceToken), ("start", pushToStart), ("alert", badToken)])
        try #require(first.count == 3)

        // (1) The alert is accepted, and the simulator's log shows the same apns-id as accepted.
        #expect(first[0]["status"] == "200")
        let alertID = try #require(first[0]["id"]?.stringValue)
        let log = served.simulator.log()
        let alertRecord = try #require(log.first { $0.apnsID == alertID })
        #expect(alertRecord.verdict == .accepted)
        #expect(alertRecord.pushType == "alert")

        // (2) The push-to-start is accepted and starts a FlightAttributes activity on the device.
        #expect(first[1]["status"] == "200")
        let activity = try #require(served.simulator.activities().first)
        #expect(served.simulator.activities().count == 1)
        #expect(activity.attributesType == "FlightAttributes")
        #expect(activity.attributes["flightNumber"] == "LX318")
        #expect(activity.contentState["gate"] == "A1")
        let updateToken = try #require(activity.pushToken)

        // (4) The unknown token gets aioapns' rejection with reason BadDeviceToken.
        #expect(first[2]["status"] == "400")
        #expect(first[2]["reason"] == "BadDeviceToken")
        #expect(served.simulator.log().first { $0.apnsID == first[2]["id"]?.stringValue }?.verdict == .rejected(.badDeviceToken))

        // (3) A snake_case content-state: APNs answers 200, the device drops it with a decoding error.
        let second = try await runAioapns(script, served: served, steps: [("update_snake_case", updateToken)])
        try #require(second.count == 1)
        #expect(second[0]["status"] == "200")
        let updateRecord = try #require(served.simulator.log().first { $0.apnsID == second[0]["id"]?.stringValue })
        guard case .dropped(let reason, let detail) = updateRecord.verdict else {
            Issue.record("snake_case update was not dropped: \(updateRecord.verdict)")
            return
        }
        #expect(reason == .decodingFailed)
        #expect(detail.contains("boardingTime"))
        #expect(served.simulator.activity(activity.id)?.contentState["gate"] == "A1")
        await served.stop()
    }

    // Skipped only when `python3 -c "import httpx, h2"` fails (python3-httpx / python3-h2 not
    // installed) or the liveline binary is not built.
    @Test("httpx + h2 (a generic HTTP/2 client) with a token from `liveline jwt`: 200 with apns-id and apns-unique-id, 400 BadDeviceToken as JSON",
          .enabled("needs Debian's python3-httpx and python3-h2, and the built liveline") {
              guard FileManager.default.isExecutableFile(atPath: SimulatorCommandTests.binary) else { return false }
              return await ThirdPartyClientTests.canImport("httpx, h2")
          })
    func httpx() async throws {
        let served = try await ServedSimulator.start()
        let run = try await ProcessRunner.run(Self.python, ["-c", Self.httpxScript, served.server.url, served.server.caFile, SimulatorCommandTests.binary,
                                                             served.keyFile, served.teamID, served.app.bundleID, served.app.deviceToken])
        try #require(run.status == 0, "httpx script failed (\(run.status)): \(run.stderrText)")
        let lines = try run.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        try #require(lines.count == 2)
        #expect(lines[0]["status"] == 200)
        #expect(lines[0]["version"] == "HTTP/2")
        #expect(lines[0]["body"] == "")
        let id = try #require(lines[0]["apns-id"]?.stringValue)
        #expect(lines[0]["apns-unique-id"]?.stringValue != nil)
        #expect(served.simulator.log().first { $0.apnsID == id }?.verdict == .accepted)
        #expect(lines[1]["status"] == 400)
        #expect(lines[1]["body"] == #"{"reason":"BadDeviceToken"}"#)
        #expect(lines[1]["content-type"] == "application/json")
        await served.stop()
    }

    /// Raw APNs requests with httpx over HTTP/2; the token comes from `liveline jwt`, as a shell user would get it.
    static let httpxScript = #"""
    import json, ssl, subprocess, sys
    import httpx
    url, ca, liveline, key, team, bundle, token = sys.argv[1:8]
    jwt = subprocess.run([liveline, "jwt", "--key", key, "--team-id", team], check=True, capture_output=True, text=True).stdout.strip()
    context = ssl.create_default_context(cafile=ca)  # verification on
    headers = {"authorization": "bearer " + jwt, "apns-topic": bundle, "apns-push-type": "alert"}
    body = json.dumps({"aps": {"alert": {"title": "From httpx", "body": "over HTTP/2"}}})
    with httpx.Client(http2=True, verify=context) as client:
        for device in (token, "ab" * 32):
            r = client.post(url + "/3/device/" + device, headers=headers, content=body)
            print(json.dumps({"status": r.status_code, "version": r.http_version, "body": r.text,
                              "apns-id": r.headers.get("apns-id"), "apns-unique-id": r.headers.get("apns-unique-id"),
                              "content-type": r.headers.get("content-type")}), flush=True)
    """#

    // Python's standard library only: skipped only when Debian's /usr/bin/python3 is missing.
    @Test("a TLS client offering no ALPN (HTTP/2 prior knowledge, as aioapns 2.2 connects) gets HTTP/2 from the simulator, not from a default HTTP2Server",
          .enabled(if: FileManager.default.isExecutableFile(atPath: ThirdPartyClientTests.python), "SKIPPED: Debian's /usr/bin/python3 is not installed"), arguments: [true, false])
    func noALPN(simulator: Bool) async throws {
        let served = try await ServedSimulator.start()
        let plain = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: served.directory + "/simulator-server.pem", keyFile: served.directory + "/simulator-server.key"))) { _, responder in
            responder.respond(status: 200, body: [])
        }
        let port = simulator ? served.server.port : plain.port
        let run = try await ProcessRunner.run(Self.python, ["-c", Self.priorKnowledgeScript, String(port), served.server.caFile])
        // The server's first frame is its SETTINGS (type 4) when it speaks HTTP/2; nothing when it refuses.
        #expect(run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == (simulator ? "frame 4" : "closed"), "\(run.stderrText)")
        await plain.stop()
        await served.stop()
    }

    static let priorKnowledgeScript = #"""
    import socket, ssl, sys
    context = ssl.create_default_context(cafile=sys.argv[2])  # verification on, no ALPN offered
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            assert tls.selected_alpn_protocol() is None
            tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
            try:
                header = tls.recv(9)
            except (ConnectionResetError, ssl.SSLError):
                header = b""
            print("frame %d" % header[3] if len(header) >= 4 else "closed")
    """#

    /// Runs the aioapns script with `steps` (kind, device token) and returns one JSON object a step.
    func runAioapns(_ script: String, served: ServedSimulator, steps: [(String, String)]) async throws -> [JSONValue] {
        let config: JSONValue = [
            "port": .number(Double(served.server.port)),
            "ca": .string(served.server.caFile),
            "key": .string(served.keyFile),
            "keyID": .string(served.keyID),
            "teamID": .string(served.teamID),
            "bundle": .string(served.app.bundleID),
            "steps": .array(steps.map { .array([.string($0.0), .string($0.1)]) }),
        ]
        let run = try await ProcessRunner.run(Self.python, [script, String(decoding: config.serialized(), as: UTF8.self)])
        try #require(run.status == 0, "aioapns script failed (\(run.status)): \(run.stderrText)")
        return try run.stdoutText.split(separator: "\n").map { try JSONValue.parse(String($0)) }
    }

    /// A Python developer's sender: aioapns as shipped, with two lines that point it at the simulator.
    static let aioapnsScript = #"""
    import asyncio, json, ssl, sys, time
    from aioapns import APNs, NotificationRequest, PushType
    from aioapns.connection import APNsDevelopmentClientProtocol

    config = json.loads(sys.argv[1])
    # aioapns 2.2 has no host/port option: the server is a class constant of its protocol classes
    # (use_sandbox=True picks APNsDevelopmentClientProtocol). Point it at the simulator.
    APNsDevelopmentClientProtocol.APNS_SERVER = "127.0.0.1"
    APNsDevelopmentClientProtocol.APNS_PORT = config["port"]

    REFERENCE_DATE = 978307200  # Foundation's Date encodes as seconds since 2001-01-01

    def payload(kind):
        now = time.time()
        if kind == "alert":
            return {"aps": {"alert": {"title": "Gate change", "body": "Now boarding at B7"}}}
        if kind == "start":
            departure = now - REFERENCE_DATE + 3600
            return {"aps": {
                "timestamp": int(now) - 10, "event": "start",
                "attributes-type": "FlightAttributes",
                "attributes": {"flightNumber": "LX318", "origin": "ZRH", "destination": "JFK",
                               "airline": "Swiss", "departure": departure},
                "content-state": {"status": "scheduled", "gate": "A1", "boardingTime": departure - 1800,
                                  "delayMinutes": 0, "isBoarding": False},
                "alert": {"title": "LX318", "body": "Tracking your flight"},
                "input-push-token": 1}}
        if kind == "update_snake_case":
            # The usual Python mistake: snake_case keys the Swift ContentState cannot decode.
            return {"aps": {
                "timestamp": int(now), "event": "update",
                "content-state": {"status": "boarding", "gate": "B7", "boarding_time": now - REFERENCE_DATE,
                                  "delay_minutes": 0, "is_boarding": True}}}
        raise SystemExit("unknown step " + kind)

    async def main():
        # Verification stays on: the default context, trusting the simulator's CA.
        context = ssl.create_default_context(cafile=config["ca"])
        clients = {}
        def client(topic):
            if topic not in clients:
                clients[topic] = APNs(key=config["key"], key_id=config["keyID"], team_id=config["teamID"],
                                      topic=topic, use_sandbox=True, ssl_context=context, max_connection_attempts=1)
            return clients[topic]
        for kind, token in config["steps"]:
            live = kind != "alert"
            topic = config["bundle"] + (".push-type.liveactivity" if live else "")
            request = NotificationRequest(device_token=token, message=payload(kind),
                                          push_type=PushType.LIVEACTIVITY if live else PushType.ALERT,
                                          priority=10 if live else None)
            result = await asyncio.wait_for(client(topic).send_notification(request), 10)
            print(json.dumps({"step": kind, "id": result.notification_id, "status": result.status,
                              "reason": result.description}), flush=True)
        for c in clients.values():
            c.pool.close()

    asyncio.run(main())
    """#
}

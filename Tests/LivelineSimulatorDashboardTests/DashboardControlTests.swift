import Foundation
import LivelineCore
import LivelineSimulatorDashboard
import LivelineSimulator
import Testing

@Suite("Dashboard: the simulator's control API over HTTP")
struct DashboardControlTests {
    @Test("adding a device with an iOS version: 201 with its tokens; iOS 17.1 gets no push-to-start token")
    func addDevice() async throws {
        try await DashboardFixture.with { f in
            let reply = try await f.call("/simulator/v1/devices", #"{"name":"Old phone","iOS":"17.1"}"#)
            #expect(reply.status == 201)
            #expect(reply.json["name"] == "Old phone")
            #expect(reply.json["iOS"] == "17.1")
            let app = try #require(reply.json["apps"]?.arrayValue?.first)
            #expect(app["deviceToken"]?.stringValue?.count == 64)
            #expect(app["pushToStartTokens"]?.objectValue?.isEmpty == true)
            let newer = try await f.call("/simulator/v1/devices", #"{"name":"New phone","iOS":"18.2"}"#)
            #expect(newer.json["apps"]?.arrayValue?.first?["pushToStartTokens"]?["FlightAttributes"]?.stringValue?.count == 160)
            #expect(f.simulator.devices().count == 3)
        }
    }

    @Test("bad requests are refused with a message naming the problem, and change nothing")
    func badRequestsChangeNothing() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight()
            let cases: [(path: String, body: String, status: Int, names: String)] = [
                ("/simulator/v1/devices", #"{"name":"x","iOS":"18.x"}"#, 400, "\"iOS\""),
                ("/simulator/v1/devices", #"{"name":"x","iOS":"18.2","activityTypes":["NoSuchType"]}"#, 400, "NoSuchType"),
                ("/simulator/v1/devices", #"{"name":"x","colour":"red"}"#, 400, "colour"),
                ("/simulator/v1/devices", #"[1]"#, 400, "JSON object"),
                ("/simulator/v1/devices", #"{"name":"#, 400, "not JSON"),
                ("/simulator/v1/devices/device-99/frequent-updates", #"{"enabled":false}"#, 404, "device-99"),
                ("/simulator/v1/devices/device-1/frequent-updates", #"{"enabled":"no"}"#, 400, "\"enabled\""),
                ("/simulator/v1/activities/nope/tap", #"{"action":"refresh"}"#, 404, "nope"),
                ("/simulator/v1/activities/\(activity.id)/tap", #"{"action":"mute","kind":"toggle"}"#, 400, "value"),
                ("/simulator/v1/activities/\(activity.id)/tap", #"{"action":"refresh","kind":"swipe"}"#, 400, "swipe"),
                ("/simulator/v1/activities/\(activity.id)/open-link", #"{"url":"no scheme"}"#, 400, "url"),
                ("/simulator/v1/clock/advance", #"{"seconds":-5}"#, 400, "seconds"),
                ("/simulator/v1/activities/\(activity.id)/end", #"{"dismissal":"later"}"#, 400, "later"),
            ]
            let before = f.simulator.devicesJSON()
            for c in cases {
                let reply = try await f.call(c.path, c.body)
                #expect(reply.status == c.status, "\(c.path) \(c.body)")
                #expect(reply.message.contains(c.names), "\(c.path) \(c.body): \(reply.message)")
            }
            #expect(f.simulator.devicesJSON() == before)
            #expect(f.simulator.activity(activity.id)?.state == .active)
            #expect(f.dashboard.control.interactions(deviceID: f.deviceID).isEmpty)
            let wrongType = try await f.call("/simulator/v1/devices", #"{"name":"x"}"#, contentType: "text/plain")
            #expect(wrongType.status == 415)
            let get = try await f.call("/simulator/v1/clock/advance")
            #expect(get.status == 405)
            #expect(f.simulator.devices().count == 1)
        }
    }

    @Test("a tap is recorded in the device's journal and forwarded exactly as the service's interactions route expects")
    func tapForwarded() async throws {
        let receiver = try RecordingServer()
        let forwarding = InteractionForwarding(baseURL: URL(string: receiver.server.url)!, appKey: "app-key-123")
        try await DashboardFixture.with(forwarding: forwarding) { f in
            let activity = try f.startFlight(logicalID: "flight-LL1234-2026-12-01")
            let reply = try await f.call("/simulator/v1/activities/\(activity.id)/tap", #"{"action":"mute-updates","kind":"toggle","value":true,"payload":{"source":"lock-screen"}}"#)
            #expect(reply.status == 200)
            #expect(reply.json["forwardStatus"] == 201)
            let key = try #require(reply.json["idempotencyKey"]?.stringValue)
            let request = try #require(receiver.all.first)
            #expect(receiver.all.count == 1)
            #expect(request.method == "POST")
            #expect(request.path == "/v1/activities/flight-LL1234-2026-12-01/interactions")
            #expect(request.header("idempotency-key") == key)
            #expect(request.header("authorization") == "Bearer app-key-123")
            #expect(request.header("content-type") == "application/json")
            let body = try JSONValue.parse(request.body)
            #expect(body["action"] == "mute-updates")
            #expect(body["deviceID"] == .string(f.deviceID))
            #expect(body["payload"] == ["source": "lock-screen", "value": true])
            let journal = try await f.call("/simulator/v1/devices/\(f.deviceID)/journal")
            #expect(journal.json.arrayValue?.count == 1)
            #expect(journal.json.arrayValue?.first?["action"] == "mute-updates")
        }
        await receiver.server.stop()
    }

    @Test("a tap whose forward fails is still recorded, with the reason")
    func tapForwardFails() async throws {
        let forwarding = InteractionForwarding(baseURL: URL(string: "http://127.0.0.1:1")!)
        try await DashboardFixture.with(forwarding: forwarding) { f in
            let activity = try f.startFlight()
            let reply = try await f.call("/simulator/v1/activities/\(activity.id)/tap", #"{"action":"refresh"}"#)
            #expect(reply.status == 200)
            #expect(reply.json["forwarded"] == false)
            #expect(reply.json["forwardError"]?.stringValue?.contains("/v1/activities/flight-LL1234/interactions") == true)
            #expect(f.dashboard.control.interactions(deviceID: f.deviceID).count == 1)
        }
    }

    @Test("advancing the clock makes a past stale date take effect; a system clock refuses")
    func advanceClock() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight(staleIn: 600)
            let before = f.clock.now
            let reply = try await f.call("/simulator/v1/clock/advance", #"{"seconds":900}"#)
            #expect(reply.status == 200)
            #expect(f.clock.now.timeIntervalSince(before) >= 900)
            #expect(f.simulator.activity(activity.id)?.state == .stale)
        }
        let fixed = SimulatorControl(simulator: Simulator(clock: SystemClock()))
        #expect(throws: SimulatorError.self) { try fixed.advanceClock(by: 10) }
    }

    @Test("rotate, frequent updates, open link, end and dismiss change the simulator as the app and the system would")
    func activityControls() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight()
            let oldToken = try #require(activity.pushToken)
            let rotated = try await f.call("/simulator/v1/activities/\(activity.id)/rotate-token", "")
            #expect(rotated.status == 200)
            let newToken = try #require(rotated.json["pushToken"]?.stringValue)
            #expect(newToken != oldToken)
            #expect(f.simulator.activity(activity.id)?.pushToken == newToken)
            let update = try DashboardFixture.update(gate: "C1", clock: f.clock)
            #expect(f.simulator.push(update, to: oldToken).status == 410)

            let oldStart = try #require(f.simulator.devices()[0].apps[0].pushToStartTokens["FlightAttributes"])
            let start = try await f.call("/simulator/v1/devices/\(f.deviceID)/rotate-push-to-start", #"{"attributesType":"FlightAttributes"}"#)
            #expect(start.status == 200)
            #expect(start.json["pushToStartToken"]?.stringValue != oldStart)

            let frequent = try await f.call("/simulator/v1/devices/\(f.deviceID)/frequent-updates", #"{"enabled":false}"#)
            #expect(frequent.status == 200)
            #expect(f.simulator.devices()[0].apps[0].frequentUpdatesEnabled == false)

            let link = try await f.call("/simulator/v1/activities/\(activity.id)/open-link", #"{"url":"liveline://flight/LL1234"}"#)
            #expect(link.status == 200)
            #expect(f.dashboard.control.links(deviceID: f.deviceID).map(\.url) == ["liveline://flight/LL1234"])

            let end = try await f.call("/simulator/v1/activities/\(activity.id)/end", #"{"dismissal":"default"}"#)
            #expect(end.status == 200)
            #expect(end.json["state"] == "ended")
            let again = try await f.call("/simulator/v1/activities/\(activity.id)/end", "{}")
            #expect(again.status == 409)
            let dismiss = try await f.call("/simulator/v1/activities/\(activity.id)/dismiss", "")
            #expect(dismiss.status == 200)
            #expect(f.simulator.activity(activity.id)?.state == .dismissed)
        }
    }
}

import Foundation
import LivelineCore
import LivelineSimulatorDashboard
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Testing

@Suite("Dashboard: state and server-sent events without a browser")
struct DashboardEventTests {
    /// `curl -N` on the event stream; its output grows as events arrive.
    private func listen(_ f: DashboardFixture) async throws -> RunningProcess {
        let curl = try RunningProcess.start("/usr/bin/curl", ["-sN", "-H", "accept: text/event-stream", "-H", "\(Dashboard.tokenHeader): \(f.dashboard.token)", f.dashboard.url + "api/events"])
        _ = try await curl.output(containing: "retry: 1000", within: .seconds(60))
        return curl
    }

    /// Waits for a whole `kind` event (its data ends with `"kind":"<kind>"}`) and returns its data.
    private func event(_ kind: String, from curl: RunningProcess) async throws -> JSONValue {
        let end = "\"kind\":\"\(kind)\"}"
        let text = try await curl.output(containing: end, within: .seconds(60))
        let line = try #require(text.components(separatedBy: "\n").first { $0.hasPrefix("data: ") && $0.hasSuffix(end) })
        return try JSONValue.parse(String(line.dropFirst(6)))
    }

    @Test("an accepted update arrives as a push-accepted event carrying the device's new card")
    func acceptedUpdate() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight(gate: "B12")
            let curl = try await listen(f)
            let token = try #require(activity.pushToken)
            #expect(f.simulator.push(try DashboardFixture.update(gate: "C9", clock: f.clock), to: token).status == 200)
            let data = try await event("push-accepted", from: curl)
            #expect(data["deviceID"] == .string(f.deviceID))
            #expect(data["entry"]?["verdict"] == "accepted")
            let shown = try #require(data["card"]?["activities"]?.arrayValue?.first)
            #expect(shown["contentState"]?["gate"] == "C9")
            #expect(shown["fragments"]?["lock-screen"]?.stringValue?.contains("C9") == true)
            // The Lock Screen in the dark appearance too, for a page in dark mode; the entry opens to its request.
            let dark = try #require(shown["fragments"]?["lock-screen-dark"]?.stringValue)
            #expect(dark.contains("C9") && dark.contains("ll-preview ll-dark") && shown["fragments"]?["lock-screen"]?.stringValue?.contains("ll-light") == true)
            #expect(data["entry"]?["method"] == "POST" && data["entry"]?["apnsID"]?.stringValue?.isEmpty == false)
            #expect(data["entry"]?["deliveries"]?.arrayValue?.first?["applied"] == .bool(true))
            #expect(curl.standardOutput.contains("event: activity-updated"))
            curl.send(SIGTERM)
        }
    }

    @Test("a boardingTime sent as Unix seconds is accepted but flagged: lint says it shows year 2057")
    func suspiciousDate() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight()
            let curl = try await listen(f)
            let unixSeconds = f.clock.now.timeIntervalSince1970.rounded()
            #expect(f.simulator.push(try DashboardFixture.update(gate: "D4", clock: f.clock, boardingTime: unixSeconds), to: activity.pushToken!).status == 200)
            let accepted = try await event("push-accepted", from: curl)
            #expect(accepted["entry"]?["verdict"] == "suspicious")
            curl.send(SIGTERM)
            let state = try await f.call("/api/state")
            let entry = try #require(state.json["devices"]?.arrayValue?.first?["log"]?.arrayValue?.first)
            #expect(entry["verdict"] == "suspicious")
            let finding = try #require(entry["findings"]?.arrayValue?.first)
            #expect(finding["path"] == "aps.content-state.boardingTime")
            #expect(finding["code"] == "unix-date")
            #expect(finding["message"]?.stringValue?.contains("2057") == true)
        }
    }

    @Test("rejected and dropped pushes are filed under their device with the reason and the decoding error")
    func rejectedAndDropped() async throws {
        try await DashboardFixture.with { f in
            let activity = try f.startFlight()
            let old = try #require(activity.pushToken)
            _ = try f.simulator.rotatePushToken(activity.id)
            let curl = try await listen(f)
            #expect(f.simulator.push(try DashboardFixture.update(gate: "E1", clock: f.clock), to: old).status == 410)
            let rejected = try await event("push-rejected", from: curl)
            #expect(rejected["entry"]?["reason"] == "ExpiredToken")
            #expect(rejected["deviceID"] == .string(f.deviceID))
            let broken: JSONValue = ["aps": ["timestamp": .number(f.clock.now.timeIntervalSince1970 + 5), "event": "update",
                                             "content-state": ["status": "boarding", "gate": "E2"]]]
            let push = PushRequest.liveActivity(try LiveActivityPush(body: broken), bundleID: DashboardFixture.bundleID)
            #expect(f.simulator.push(push, to: f.simulator.activity(activity.id)!.pushToken!).status == 200)
            let dropped = try await event("push-dropped", from: curl)
            #expect(dropped["entry"]?["reason"] == "decoding-failed")
            #expect(dropped["entry"]?["detail"]?.stringValue?.contains("boardingTime") == true)
            curl.send(SIGTERM)
        }
    }

    @Test("50 devices: the state lists all 50, and an event carries only the one card it changed")
    func fiftyDevices() async throws {
        try await DashboardFixture.with(devices: 50) { f in
            let state = try await f.call("/api/state")
            #expect(state.json["devices"]?.arrayValue?.count == 50)
            let curl = try await listen(f)
            let added = try await f.call("/simulator/v1/devices", #"{"name":"Fifty-first","iOS":"18.0"}"#)
            #expect(added.status == 201)
            let data = try await event("device-added", from: curl)
            #expect(data["card"]?["name"] == "Fifty-first")
            #expect(data["devices"] == nil)
            curl.send(SIGTERM)
        }
    }

    @Test("the page, its assets and the inspection routes are served; other hosts are refused")
    func pageAndHosts() async throws {
        try await DashboardFixture.with { f in
            let page = try await ProcessRunner.run("/usr/bin/curl", ["-s", f.dashboard.accessURL])
            #expect(page.stdoutText.contains("<script src=\"/dashboard.js\"></script>"))
            let script = try await ProcessRunner.run("/usr/bin/curl", ["-s", "-H", "\(Dashboard.tokenHeader): \(f.dashboard.token)", f.dashboard.url + "dashboard.js"])
            #expect(script.stdoutText.contains("new EventSource(\"/api/events\")"))
            let status = try await f.call("/simulator/v1/status")
            #expect(status.json["devices"] == 1)
            let rebound = try await ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: evil.example", f.dashboard.accessURL])
            #expect(rebound.stdoutText == "421")
        }
    }
}

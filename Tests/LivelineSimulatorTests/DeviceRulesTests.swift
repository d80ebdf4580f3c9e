import Foundation
import LivelineCore
import LivelineSimulator
import LivelineUI
import Testing

@Suite("Simulated devices: ActivityKit rules (§7)")
struct DeviceRulesTests {
    @Test("push-to-start with input-push-token starts the activity, issues a 160-hex update token and events")
    func startByPush() throws {
        let f = Fixture()
        let a = f.startByPush()
        #expect(a.state == .active)
        #expect(a.startedBy == "push")
        #expect(a.attributesType == "FlightAttributes")
        #expect(a.contentState == Fixture.gateState)
        let token = try #require(a.pushToken)
        #expect(token.count == 160 && token.allSatisfy(\.isHexDigit))
        let kinds = f.sim.events().map(\.kind)
        #expect(kinds.contains(.pushToStartToken(attributesType: "FlightAttributes", token: f.app.pushToStartTokens["FlightAttributes"]!)))
        #expect(kinds.contains(.activityPushToken(activityID: a.id, token: token, rotated: false)))
        #expect(kinds.contains(.activityState(activityID: a.id, state: .active)))
        #expect(f.sim.log().last?.verdict == .accepted)
    }

    /// Pushes APNs accepts (200) that the device drops, each with its reason.
    @Test("accepted but dropped on the device, with the reason recorded", arguments: [BodyCase]([
        BodyCase("start-missing-alert") { f in f.startBody(alert: false) },
        BodyCase("unknown-attributes-type") { f in f.startBody(type: "AdventureAttributes") },
        BodyCase("decoding-failed") { f in f.startBody(state: ["status": "boarding", "gate": "B12"]) },
        BodyCase("decoding-failed") { f in f.startBody(attributes: ["flightNumber": 1234]) },
        BodyCase("wrong-event-for-token") { f in f.updateBody() },
        BodyCase("unknown-channel") { f in f.startBody(input: "dHN0LXNyY2gtY2hubA==", inputKey: "input-push-channel") },
    ]))
    func droppedStarts(_ c: BodyCase) throws {
        let reason = c.reason
        let f = Fixture()
        let r = f.send(f.laRequest(token: f.app.pushToStartTokens["FlightAttributes"]!, body: c.body(f)))
        #expect(r.status == 200)
        #expect(f.sim.activities().isEmpty)
        let record = try #require(f.sim.log().last)
        guard case .dropped(let why, let detail) = record.verdict else { Issue.record("not dropped: \(record.verdict)"); return }
        #expect(why.rawValue == reason)
        #expect(!detail.isEmpty)
    }

    @Test("pushes to an update token that the device ignores count as the activity's drops", arguments: ["not json", "start"])
    func updateTokenDropsCount(kind: String) {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 10)
        var request = f.laRequest(token: a.pushToken!, body: kind == "start" ? f.startBody() : f.updateBody())
        if kind == "not json" { request.body = Array("{".utf8) }
        #expect(f.send(request).status == 200)
        #expect(f.sim.activity(a.id)?.droppedCount == 1)
        #expect(f.sim.activity(a.id)?.updateCount == 0)
    }

    @Test("a body with a key twice is accepted by APNs and dropped by the device as malformed, naming the key and both places")
    func duplicateKeyDropped() throws {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 10)
        var request = f.laRequest(token: a.pushToken!, body: f.updateBody())
        request.body = Array(#"{"aps":{"timestamp":1900000000,"event":"update","event":"end","content-state":{}}}"#.utf8)
        #expect(f.send(request).status == 200)
        #expect(f.sim.activity(a.id)?.state == .active)
        #expect(f.sim.activity(a.id)?.droppedCount == 1)
        let record = try #require(f.sim.log().last)
        #expect(record.verdict == .dropped(.malformedPayload,
            #"invalid JSON at line 1, column 49: duplicate key "event" (first at line 1, column 32): APNs and the device may each read either value; keep one"#))
    }

    @Test("a schema-registered type decodes a content-state date however implausible (lint calls it an error; the device does not)")
    func implausibleDateDecodes() {
        let type = ActivityType.schema(FlightAttributes.schema)
        #expect(type.contentStateError(["status": "boarding", "gate": "B12", "boardingTime": 1.2e29, "delayMinutes": 0, "isBoarding": true]) == nil)
        #expect(type.contentStateError(["status": "boarding", "gate": "B12", "boardingTime": "soon", "delayMinutes": 0, "isBoarding": true]) != nil)
    }

    @Test("an alert push whose body is no JSON object is accepted by APNs and dropped by the device with the parse error", arguments: [
        ("Gate changed", "invalid JSON at line 1, column 1: unexpected character 'G', expected a value"),
        (#"{"aps":{"alert":"Gate"#, "invalid JSON at line 1, column 22: unterminated string"),
        ("[]", "the body must be a JSON object, got array"),
        (#"{"aps":"x"}"#, "aps must be an object, got string"),
    ])
    func malformedAlertDropped(body: String, detail: String) throws {
        let f = Fixture()
        // A good body first, so the device's memory of the last good body cannot let a bad one through.
        #expect(f.send(f.alertRequest()).status == 200)
        let r = f.send(f.alertRequest { $0.body = Array(body.utf8) })
        #expect(r.status == 200)
        let record = try #require(f.sim.log().last)
        #expect(record.verdict == .dropped(.malformedPayload, detail))
        #expect(record.deliveries.map(\.dropReason) == [.malformedPayload])
        #expect(f.sim.app(Fixture.bundle, on: f.device)?.notifications == [["aps": ["alert": "Gate changed"]]])
        #expect(f.send(f.alertRequest()).status == 200)
        #expect(f.sim.log().last?.verdict == .accepted)
        #expect(f.sim.log().last?.deliveries.map(\.detail) == ["alert notification delivered"])
    }

    @Test("a content state that does not decode is dropped with the decoding error; the old state stays")
    func decodeFailureRecorded() throws {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 10)
        let bad: JSONValue = ["status": "boarding", "gate": "B12", "boardingTime": "2026-01-01T10:00:00Z", "delayMinutes": 0, "isBoarding": true]
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: bad))).status == 200)
        #expect(f.sim.activity(a.id)?.contentState == Fixture.gateState)
        #expect(f.sim.activity(a.id)?.droppedCount == 1)
        let record = try #require(f.sim.log().last)
        guard case .dropped(.decodingFailed, let detail) = record.verdict else { Issue.record("not dropped: \(record.verdict)"); return }
        #expect(detail.contains("boardingTime"))
        #expect(detail.contains("typeMismatch"))
        let voltraState: JSONValue = ["uiJsonData": 42]
        let voltra: JSONValue = ["aps": ["timestamp": .number(f.now.timeIntervalSince1970), "event": "start", "alert": ["title": "x"],
                                         "attributes-type": "VoltraAttributes", "attributes": ["name": "score"], "content-state": voltraState]]
        _ = f.send(f.laRequest(token: f.app.pushToStartTokens["VoltraAttributes"]!, body: voltra))
        guard case .dropped(.decodingFailed, let voltraDetail) = f.sim.log().last!.verdict else { Issue.record("Voltra start not dropped"); return }
        #expect(voltraDetail.contains("uiJsonData"))
    }

    @Test("Voltra: uiJsonData must be base64 brotli of payload JSON, as the device's extension decodes it")
    func voltra() throws {
        let f = Fixture()
        let layout = UILayout(regions: [.lockScreen: .element(UIElement(.text, children: .text("Gate B12")))])
        let good = try VoltraAttributes.ContentState(layout: layout)
        let start = try LiveActivityPush.start(attributes: VoltraAttributes(name: "flight"), state: good, alert: Alert(title: "Boarding"), timestamp: f.now, input: .pushToken)
        let token = f.app.pushToStartTokens["VoltraAttributes"]!
        #expect(f.send(f.laRequest(token: token, body: start.body)).status == 200)
        let a = try #require(f.sim.activities().first)
        #expect(a.attributesType == "VoltraAttributes")
        #expect(a.contentState["uiJsonData"] == .string(good.uiJsonData))
        f.clock.advance(by: 1)
        let notBrotli = Data("{\"v\":1}".utf8).base64EncodedString()
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: ["uiJsonData": .string(notBrotli)])))
        guard case .dropped(.decodingFailed, let detail) = f.sim.log().last!.verdict else { Issue.record("not dropped"); return }
        #expect(detail.contains("uiJsonData"))
        #expect(f.sim.activity(a.id)?.contentState["uiJsonData"] == .string(good.uiJsonData))
    }

    @Test("updates apply in timestamp order; older or equal timestamps are ignored")
    func ordering() {
        let f = Fixture()
        let a = f.startByPush()
        let t0 = f.now.timeIntervalSince1970
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(timestamp: t0 + 20, state: Fixture.state(gate: "C1"))))
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(timestamp: t0 + 10, state: Fixture.state(gate: "OLD"))))
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(timestamp: t0 + 20, state: Fixture.state(gate: "SAME"))))
        let s = f.sim.activity(a.id)!
        #expect(s.contentState["gate"] == "C1")
        #expect(s.lastTimestamp == t0 + 20)
        #expect(s.updateCount == 1)
        #expect(s.droppedCount == 2)
        #expect(f.sim.log().suffix(2).allSatisfy { if case .dropped(.staleTimestamp, _) = $0.verdict { true } else { false } })
    }

    @Test("after end, pushes are accepted by APNs but ignored; after removal the token is gone (410)")
    func endThenIgnored() throws {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(event: "end", state: Fixture.state(gate: "FINAL"))))
        #expect(f.sim.activity(a.id)?.state == .ended)
        f.clock.advance(by: 1)
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: Fixture.state(gate: "LATE")))).status == 200)
        #expect(f.sim.activity(a.id)?.contentState["gate"] == "FINAL")
        guard case .dropped(.activityEnded, _) = f.sim.log().last!.verdict else { Issue.record("not ignored"); return }
        f.clock.advance(by: 4 * 3600)
        #expect(f.sim.activity(a.id)?.state == .dismissed)
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody())).reason == "ExpiredToken")
    }

    @Test("dismissal-date: past removes at once, within 4 h at that date, later or absent at 4 h", arguments: [
        (-60.0, 0.0), (3600.0, 3600.0), (6 * 3600.0, 4 * 3600.0), (Double.nan, 4 * 3600.0),
    ])
    func dismissal(_ offset: Double, _ expectedRemoval: Double) {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 1)
        let now = f.now.timeIntervalSince1970
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(event: "end", dismissal: offset.isNaN ? nil : now + offset)))
        let s = f.sim.activity(a.id)!
        #expect(s.dismissalDate?.timeIntervalSince1970 == now + expectedRemoval)
        #expect(s.state == (expectedRemoval == 0 ? .dismissed : .ended))
        f.clock.advance(by: expectedRemoval)
        #expect(f.sim.activity(a.id)?.state == .dismissed)
    }

    @Test("stale at stale-date; a later update moves stale-date forward and makes it active again")
    func stale() {
        let f = Fixture()
        let p2s = f.app.pushToStartTokens["FlightAttributes"]!
        let t0 = f.now.timeIntervalSince1970
        _ = f.send(f.laRequest(token: p2s, body: f.startBody(input: 1, staleDate: t0 + 600)))
        let id = f.sim.activities()[0].id
        f.clock.advance(by: 599)
        #expect(f.sim.activity(id)?.state == .active)
        f.clock.advance(by: 1)
        #expect(f.sim.activity(id)?.isStale == true)
        #expect(f.sim.events().contains { $0.kind == .activityState(activityID: id, state: .stale) && $0.time.timeIntervalSince1970 == t0 + 600 })
        _ = f.send(f.laRequest(token: f.sim.activity(id)!.pushToken!, body: f.updateBody(staleDate: t0 + 1200)))
        #expect(f.sim.activity(id)?.state == .active)
        f.clock.advance(by: 600)
        #expect(f.sim.activity(id)?.state == .stale)
    }

    @Test("8 hours active, then ended by the system; removed 12 hours after start at the latest")
    func lifetime() {
        let f = Fixture()
        let start = f.now
        let a = f.startByPush()
        f.clock.advance(by: 8 * 3600 - 1)
        #expect(f.sim.activity(a.id)?.state == .active)
        f.clock.advance(by: 1)
        let ended = f.sim.activity(a.id)!
        #expect(ended.state == .ended)
        #expect(ended.endedAt == start.addingTimeInterval(8 * 3600))
        #expect(ended.dismissalDate == start.addingTimeInterval(12 * 3600))
        f.clock.advance(by: 4 * 3600)
        #expect(f.sim.activity(a.id)?.state == .dismissed)
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody())).reason == "ExpiredToken")
    }

    @Test("priority-10 updates over the hourly budget are dropped; priority 5 is free; frequent updates raise it", arguments: [false, true])
    func budget(_ frequent: Bool) {
        var rules = DeviceRules()
        rules.updateBudgetPerHour = 3
        rules.frequentUpdateBudgetPerHour = 6
        let f = Fixture(rules: rules, supportsFrequentUpdates: frequent)
        let a = f.startByPush()
        let limit = frequent ? 6 : 3
        for i in 1...(limit + 1) {
            f.clock.advance(by: 1)
            _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: Fixture.state(gate: "G\(i)")), priority: 10))
        }
        #expect(f.sim.activity(a.id)?.contentState["gate"] == .string("G\(limit)"))
        guard case .dropped(.overBudget, _) = f.sim.log().last!.verdict else { Issue.record("not over budget"); return }
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: Fixture.state(gate: "P5")), priority: 5))
        #expect(f.sim.activity(a.id)?.contentState["gate"] == "P5")
        f.clock.advance(by: 3600)
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: Fixture.state(gate: "NEXT")), priority: 10))
        #expect(f.sim.activity(a.id)?.contentState["gate"] == "NEXT")
        if frequent {
            try? f.sim.setFrequentUpdatesEnabled(false, bundleID: Fixture.bundle, on: f.device)
            for i in 1...4 {
                f.clock.advance(by: 1)
                _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: Fixture.state(gate: "U\(i)")), priority: 10))
            }
            #expect(f.sim.activity(a.id)?.contentState["gate"] == "U2")
        }
    }

    @Test("the per-app limit of concurrent activities drops further starts")
    func concurrency() throws {
        var rules = DeviceRules()
        rules.maxActivitiesPerApp = 2
        let f = Fixture(rules: rules)
        let p2s = f.app.pushToStartTokens["FlightAttributes"]!
        for _ in 0..<3 {
            f.clock.advance(by: 1)
            _ = f.send(f.laRequest(token: p2s, body: f.startBody()))
        }
        #expect(f.sim.activities().count == 2)
        guard case .dropped(.targetMaximumExceeded, _) = f.sim.log().last!.verdict else { Issue.record("not limited"); return }
        #expect(throws: SimulatorError.self) {
            try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributes: FlightAttributes.example(departure: Date()),
                                    contentState: .init(status: .scheduled, gate: nil, boardingTime: Date()))
        }
        try f.sim.dismissByUser(f.sim.activities()[0].id)
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: p2s, body: f.startBody()))
        #expect(f.sim.activities().filter { $0.state == .active }.count == 2)
    }

    @Test("iOS versions: no push-to-start token before 17.2; no channels before 18; 17.x gets a token without asking", arguments: [
        ("17.1", false, false, false), ("17.4", true, false, true), ("18.0", true, true, false),
    ])
    func versions(_ version: String, _ hasPushToStart: Bool, _ channelStarts: Bool, _ tokenWithoutInput: Bool) {
        let f = Fixture(osVersion: OSVersion(stringLiteral: version))
        #expect((f.app.pushToStartTokens["FlightAttributes"] != nil) == hasPushToStart)
        guard hasPushToStart else { return }
        let p2s = f.app.pushToStartTokens["FlightAttributes"]!
        let channel = f.newChannel()
        _ = f.send(f.laRequest(token: p2s, body: f.startBody(input: .string(channel), inputKey: "input-push-channel")))
        #expect((f.sim.activities().count == 1) == channelStarts)
        if !channelStarts { guard case .dropped(.unsupportedOS, _) = f.sim.log().last!.verdict else { Issue.record("not unsupported"); return } }
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: p2s, body: f.startBody()))
        #expect((f.sim.activities().last?.pushToken != nil) == tokenWithoutInput)
    }

    @Test("update tokens rotate: the new one works, the old one is gone, an event says so")
    func rotation() throws {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 5)
        let new = try f.sim.rotatePushToken(a.id)
        #expect(new != a.pushToken && new.count == 160)
        #expect(f.sim.events().last?.kind == .activityPushToken(activityID: a.id, token: new, rotated: true))
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody())).reason == "ExpiredToken")
        #expect(f.send(f.laRequest(token: new, body: f.updateBody(state: Fixture.state(gate: "R")))).status == 200)
        #expect(f.sim.activity(a.id)?.contentState["gate"] == "R")
        let newP2S = try f.sim.rotatePushToStartToken(bundleID: Fixture.bundle, attributesType: "FlightAttributes", on: f.device)
        #expect(f.sim.app(Fixture.bundle, on: f.device)?.pushToStartTokens["FlightAttributes"] == newP2S)
        #expect(f.sim.events().last?.kind == .pushToStartToken(attributesType: "FlightAttributes", token: newP2S))
    }

    @Test("in-process use: start from the app with a Swift type, push typed updates, advance the clock")
    func inProcess() throws {
        let clock = VirtualClock()
        let sim = Simulator(clock: clock)
        let phone = sim.addDevice(name: "iPhone", osVersion: "17.4")
        try sim.install("com.example.app", on: phone, activityTypes: [.type(FlightAttributes.self)])
        let boarding = clock.now.addingTimeInterval(1800)
        let a = try sim.startActivity(on: phone, bundleID: "com.example.app", attributes: FlightAttributes.example(departure: boarding),
                                      contentState: .init(status: .scheduled, gate: "A1", boardingTime: boarding))
        clock.advance(by: 60)
        let update = try LiveActivityPush.update(state: FlightAttributes.ContentState(status: .delayed, gate: "A2", boardingTime: boarding, delayMinutes: 15), timestamp: clock.now)
        let r = sim.push(.liveActivity(update, bundleID: "com.example.app"), to: a.pushToken!)
        #expect(r.status == 200)
        let state = try sim.activity(a.id)!.contentState.decode(FlightAttributes.ContentState.self)
        #expect(state.gate == "A2" && state.delayMinutes == 15)
        clock.advance(by: 8 * 3600)
        #expect(sim.activity(a.id)?.state == .ended)
    }
}

/// A push body that a device should drop for `reason`.
struct BodyCase: Sendable, CustomTestStringConvertible {
    var reason: String
    var body: @Sendable (Fixture) -> JSONValue
    init(_ reason: String, _ body: @escaping @Sendable (Fixture) -> JSONValue) {
        self.reason = reason
        self.body = body
    }
    var testDescription: String { reason }
}

import Foundation
import LivelineCore
import LivelineSimulator
import Testing

@Suite("Simulated devices: force-quit app and withheld update tokens (DeviceModes)")
struct DeviceModesTests {
    @Test("force-quit: APNs answers 200 to a push-to-start and the device never shows it; updates to a running activity still apply")
    func forceQuit() throws {
        let f = Fixture()
        let running = f.startByPush()
        try f.sim.setModes(DeviceModes(forceQuit: true), on: f.device)
        #expect(f.sim.modes(of: f.device)?.forceQuit == true)
        f.clock.advance(by: 10)
        let r = f.send(f.laRequest(token: f.app.pushToStartTokens["FlightAttributes"]!, body: f.startBody(input: 1)))
        #expect(r.status == 200)
        #expect(f.sim.activities().map(\.id) == [running.id])
        let record = try #require(f.sim.log().last)
        guard case .dropped(let why, let detail) = record.verdict else { Issue.record("not dropped: \(record.verdict)"); return }
        #expect(why == .forceQuitStart)
        #expect(why.rawValue == "force-quit-start-not-shown")
        #expect(detail.contains("force-quit"))
        // The activity that was already running still takes updates.
        f.clock.advance(by: 10)
        #expect(f.send(f.laRequest(token: running.pushToken!, body: f.updateBody())).status == 200)
        #expect(f.sim.activity(running.id)?.updateCount == 1)
        // Opened again: starts show.
        try f.sim.setModes(DeviceModes(), on: f.device)
        f.clock.advance(by: 10)
        #expect(f.send(f.laRequest(token: f.app.pushToStartTokens["FlightAttributes"]!, body: f.startBody(input: 1))).status == 200)
        #expect(f.sim.activities().count == 2)
    }

    @Test("withheld update tokens: a push-started activity shows and never gets a token, on iOS 17 as on 18", arguments: ["17.5", "18.2"])
    func withheldToken(_ ios: String) throws {
        let f = Fixture(osVersion: OSVersion(parsing: ios)!)
        try f.sim.setModes(DeviceModes(withholdsUpdateTokens: true), on: f.device)
        let r = f.send(f.laRequest(token: f.app.pushToStartTokens["FlightAttributes"]!, body: f.startBody(input: 1)))
        #expect(r.status == 200)
        let a = try #require(f.sim.activities().first)
        #expect(a.state == .active)
        #expect(a.pushToken == nil)
        #expect(!f.sim.events().contains { if case .activityPushToken = $0.kind { true } else { false } })
        #expect(f.sim.log().last?.verdict == .accepted)
    }

    @Test("the control route sets each mode alone, refuses unknown fields and devices, and the inspection JSON shows the modes")
    func controlRoute() async throws {
        let f = Fixture()
        let control = SimulatorControl(simulator: f.sim)
        let set = try #require(await control.respond(method: "POST", path: "/simulator/v1/devices/\(f.device)/modes", body: Array(#"{"forceQuit": true}"#.utf8)))
        #expect(set.status == 200)
        #expect(set.json["modes"] == ["forceQuit": true, "withholdsUpdateTokens": false])
        let both = try #require(await control.respond(method: "POST", path: "/simulator/v1/devices/\(f.device)/modes", body: Array(#"{"withholdsUpdateTokens": true}"#.utf8)))
        #expect(both.json["modes"] == ["forceQuit": true, "withholdsUpdateTokens": true])
        #expect(f.sim.devicesJSON().arrayValue?.first?["modes"] == ["forceQuit": true, "withholdsUpdateTokens": true])
        let unknown = try #require(await control.respond(method: "POST", path: "/simulator/v1/devices/\(f.device)/modes", body: Array(#"{"forceQuitt": true}"#.utf8)))
        #expect(unknown.status == 400)
        #expect(unknown.json["error"]?["message"]?.stringValue?.contains("forceQuitt") == true)
        let wrongType = try #require(await control.respond(method: "POST", path: "/simulator/v1/devices/\(f.device)/modes", body: Array(#"{"forceQuit": "yes"}"#.utf8)))
        #expect(wrongType.status == 400)
        let nobody = try #require(await control.respond(method: "POST", path: "/simulator/v1/devices/nobody/modes", body: Array(#"{"forceQuit": true}"#.utf8)))
        #expect(nobody.status == 404)
        #expect(f.sim.modes(of: f.device) == DeviceModes(forceQuit: true, withholdsUpdateTokens: true))
    }

    @Test("a setup file's device takes modes; an unknown mode is refused by name")
    func setupFile() throws {
        let good: JSONValue = ["devices": [["id": "p", "iOS": "18.2", "modes": ["forceQuit": true], "apps": [["bundleID": "com.example.flights"]]]]]
        let sim = try SimulatorSetup(json: good, baseDirectory: NSTemporaryDirectory()).makeSimulator()
        #expect(sim.modes(of: "p") == DeviceModes(forceQuit: true))
        let bad: JSONValue = ["devices": [["id": "p", "modes": ["sleepy": true]]]]
        #expect(throws: SimulatorError.self) { try SimulatorSetup(json: bad, baseDirectory: NSTemporaryDirectory()) }
        do { _ = try SimulatorSetup(json: bad, baseDirectory: NSTemporaryDirectory()) } catch { #expect(error.message.contains("devices[0].modes.sleepy")) }
    }

    @Test("a content state the type cannot decode is counted on the activity with the decoder's message")
    func decodeFailureCounted() throws {
        let f = Fixture()
        let a = f.startByPush()
        f.clock.advance(by: 10)
        let bad: JSONValue = ["status": "boarding", "gate": "B12", "boardingTime": "2026-01-01T10:00:00Z", "delayMinutes": 0, "isBoarding": true]
        #expect(f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: bad))).status == 200)
        let after = try #require(f.sim.activity(a.id))
        #expect(after.decodeFailures == 1)
        #expect(after.lastDecodeFailure?.contains("boardingTime") == true)
        let json = try #require(f.sim.activitiesJSON().arrayValue?.first)
        #expect(json["decodeFailures"] == 1)
        #expect(json["lastDecodeFailure"]?.stringValue?.contains("boardingTime") == true)
    }
}

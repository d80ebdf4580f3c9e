import Foundation
import LivelineCore
import LivelineSimulator
import Testing

@Suite("Scheduled Live Activities (iOS 26): pending until the start date, the update token only then")
struct ScheduledActivityTests {
    @Test("a scheduled activity is pending with no token, becomes active at its start on the virtual clock, and only then gets its token")
    func pendingThenActive() throws {
        let f = Fixture(osVersion: "26.0")
        let start = f.now.addingTimeInterval(3600)
        let a = try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                        attributes: Fixture.flightAttributes, contentState: Fixture.gateState, start: start)
        #expect(a.state == .pending)
        #expect(a.pushToken == nil)
        #expect(a.startedAt == start)
        func tokenEvents() -> [SimulatorEvent] { f.sim.events().filter { if case .activityPushToken(a.id, _, _) = $0.kind { true } else { false } } }

        f.clock.advance(by: 3599)
        #expect(f.sim.activity(a.id)?.state == .pending)
        #expect(f.sim.activity(a.id)?.pushToken == nil)
        #expect(tokenEvents().isEmpty)

        f.clock.advance(by: 2)
        let started = try #require(f.sim.activity(a.id))
        #expect(started.state == .active)
        let token = try #require(started.pushToken)
        let events = tokenEvents()
        #expect(events.count == 1)
        #expect(events.first?.time == start)
        #expect(f.sim.events().contains { $0.kind == .activityState(activityID: a.id, state: .active) && $0.time == start })
        // The token now reaches the activity.
        #expect(f.send(f.laRequest(token: token, body: f.updateBody())).status == 200)
        #expect(f.sim.activity(a.id)?.updateCount == 1)
        // ActivityKit's 8 hours count from the start, not from the request.
        f.clock.advance(by: 8 * 3600 - 10)
        #expect(f.sim.activity(a.id)?.state == .active)
        f.clock.advance(by: 20)
        #expect(f.sim.activity(a.id)?.state == .ended)
        #expect(f.sim.activity(a.id)?.endedAt == start.addingTimeInterval(8 * 3600))
    }

    @Test("a pending activity counts against the app's activity limit")
    func countsAgainstLimit() throws {
        var rules = DeviceRules()
        rules.maxActivitiesPerApp = 1
        let f = Fixture(osVersion: "26.0", rules: rules)
        _ = try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                    attributes: Fixture.flightAttributes, contentState: Fixture.gateState, start: f.now.addingTimeInterval(600))
        #expect(throws: SimulatorError.self) {
            try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                    attributes: Fixture.flightAttributes, contentState: Fixture.gateState)
        }
    }

    @Test("a device that withholds update tokens starts the scheduled activity without one")
    func withheld() throws {
        let f = Fixture(osVersion: "26.0")
        try f.sim.setModes(DeviceModes(withholdsUpdateTokens: true), on: f.device)
        let a = try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                        attributes: Fixture.flightAttributes, contentState: Fixture.gateState, start: f.now.addingTimeInterval(60))
        f.clock.advance(by: 61)
        #expect(f.sim.activity(a.id)?.state == .active)
        #expect(f.sim.activity(a.id)?.pushToken == nil)
    }

    @Test("a scheduled start is refused before iOS 26, naming the version")
    func needsIOS26() throws {
        let f = Fixture(osVersion: "18.2")
        let error = #expect(throws: SimulatorError.self) {
            try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                    attributes: Fixture.flightAttributes, contentState: Fixture.gateState, start: f.now.addingTimeInterval(60))
        }
        #expect(error?.code == .unsupported)
        #expect(error?.message.contains("iOS 26") == true)
        #expect(f.sim.activities().isEmpty)
    }
}

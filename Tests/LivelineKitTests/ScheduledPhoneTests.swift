import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import SimulatedPhoneFixture
import Testing

/// An iOS 26 simulated iPhone whose app schedules an activity: pending, no token, then started on
/// the simulator's virtual clock with its token, which LivelineKit registers and the service uses.
@Suite("LivelineKit on a simulated iOS 26 iPhone: a scheduled activity's token arrives at its start and the service then reaches it")
struct ScheduledPhoneTests {
    static let bundle = "com.example.flights"

    @Test("scheduled 10 minutes ahead: nothing registered while pending; at the start the token is registered and an update through the service shows")
    func scheduledThenReachable() async throws {
        // The virtual clock starts at the real time: the service's provider tokens stay fresh for it.
        let clock = VirtualClock(start: Date())
        try await SimulatedPhoneFixture.run(phones: [.init("phone-1", name: "iPhone 17", osVersion: "26.0", activityTypes: [.type(FlightAttributes.self)])],
                                            clock: clock) { f in
            let simulator = f.simulator, server = f.server
            let app = try f.app(f.device("phone-1", iosVersion: "26.0"))
            #expect(await app.launch(simulator).remaining == 0)
            let installation = try #require(await app.uploader.installationID)

            // The app schedules the flight (an id of its own: `<installationID>:…`).
            let id = "\(installation):flight-LL1234"
            let start = clock.now.addingTimeInterval(600)
            let attributes = FlightAttributes(flightNumber: "LL 1234", origin: "LIS", destination: "ZRH", airline: "Liveline Air",
                                              departure: start.addingTimeInterval(3600), livelineActivityID: id)
            let scheduled = try simulator.startActivity(on: "phone-1", bundleID: Self.bundle, attributes: attributes,
                                                        contentState: .init(status: .scheduled, gate: "B12", boardingTime: start), start: start)
            #expect(scheduled.state == .pending)
            func serverToken() throws -> String? { try server.store.write { try $0.activityToken(activityID: id, deviceID: installation) }?.token }
            let pendingLook = await app.look(simulator)
            #expect(pendingLook.sent.isEmpty)
            #expect(try serverToken() == nil)

            // The start date comes: the phone issues the token, the app registers it.
            clock.advance(by: 601)
            let startedLook = await app.look(simulator)
            #expect(startedLook.remaining == 0)
            let token = try #require(simulator.activity(scheduled.id)?.pushToken)
            #expect(try serverToken() == token)

            // The service now reaches the activity.
            let update: JSONValue = ["contentState": ["status": "boarding", "gate": "C7", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": true]]
            let sent = try await f.call("POST", "/v1/activities/\(id)/update", json: update)
            #expect(sent.status == 202)
            let settled = try await f.call("GET", "/v1/activities/\(id)?wait=20")
            #expect(settled.json["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent")
            #expect(simulator.activity(scheduled.id)?.contentState["gate"]?.stringValue == "C7")
        }
    }
}

import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import SimulatedPhoneFixture
import Testing

/// Simulated iPhones whose app runs LivelineKit, against a real service that pushes to the
/// simulator over HTTP/2: the whole loop on loopback.
@Suite("LivelineKit on simulated iPhones: the app registers itself, the service pushes, the app follows")
struct SimulatedPhoneTests {
    static let bundle = "com.example.flights"

    @Test("push-to-start, the update token registered by the app, a rotation, a receipt, and the dismissal")
    func wholeLoop() async throws {
        try await SimulatedPhoneFixture.run(phones: [.init("phone-1", name: "iPhone 15", osVersion: "17.5", activityTypes: [.type(FlightAttributes.self)])]) { f in
            let simulator = f.simulator, server = f.server
            // The app's backend signs ana's user token for this installation (the fixture's client).
            let app = try f.app(f.device("phone-1", iosVersion: "17.5", userID: "ana"), configure: { $0.sendsReceipts = true })
            let launched = await app.launch(simulator)
            #expect(launched.remaining == 0)
            let installation = try #require(await app.uploader.installationID)
            let pts = simulator.app(Self.bundle, on: "phone-1")!.pushToStartTokens["FlightAttributes"]!
            #expect(try server.store.write { try $0.pushToStartToken(deviceID: installation, attributesType: "FlightAttributes") }?.token == pts)

            // The backend starts the flight for user ana: the app learns of the activity and registers its token.
            let id = "flight-LL1234"
            let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                    "contentState": ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false],
                                    "alert": ["title": "LL 1234", "body": "Tracking"], "audience": ["userIDs": ["ana"]]]
            #expect(try await f.call("POST", "/v1/activities/\(id)/start", json: start).status == 202)
            _ = try await f.call("GET", "/v1/activities/\(id)?wait=20")
            await app.look(simulator)
            let deviceActivity = simulator.activities().first { $0.deviceID == "phone-1" }!
            func serverToken() throws -> String? { try server.store.write { try $0.activityToken(activityID: id, deviceID: installation) }?.token }
            #expect(try serverToken() == deviceActivity.pushToken)
            // A tap reported under the phone's own activity id (all a widget may know): the token carried
            // it as an alias, so the service lists the tap under the logical id.
            await app.coordinator.recordInteraction(Interaction(activityID: deviceActivity.id, action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-sim-1"))
            let tapped = await app.look(simulator)
            #expect(tapped.dropped.isEmpty, "\(tapped.dropped)")
            let taps = try server.store.write { try $0.interactions(activityID: id, limit: 10) }
            #expect(taps.map(\.activityID) == [id], "\(taps)")
            #expect(taps.first?.idempotencyKey.hasSuffix("/tap-sim-1") == true)

            // The token rotates on the device: the app registers the new one, and the next update reaches it.
            let rotated = try simulator.rotatePushToken(deviceActivity.id)
            await app.look(simulator)
            #expect(try serverToken() == rotated)
            let update: JSONValue = ["contentState": ["status": "boarding", "gate": "C7", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": true]]
            #expect(try await f.call("POST", "/v1/activities/\(id)/update", json: update).status == 202)
            let settled = try await f.call("GET", "/v1/activities/\(id)?wait=20")
            #expect(settled.json["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent")
            #expect(simulator.activity(deviceActivity.id)?.contentState["gate"]?.stringValue == "C7")

            // The app saw the new content: its receipt marks the delivery displayed.
            let receipt = await app.look(simulator)
            let shown = try await f.call("GET", "/v1/activities/\(id)")
            #expect(receipt.sent == ["receipt of phone-1 for \(id)"])
            #expect(shown.json["deliveries"]?.arrayValue?.first { $0["event"]?.stringValue == "update" }?["displayed"]?.boolValue == true)

            // Dismissed by the user: the app deletes the token.
            try simulator.dismissByUser(deviceActivity.id)
            await app.look(simulator)
            #expect(try serverToken() == nil)
        }
    }

    @Test("a production phone's app reports production with its tokens: the service sends to the production host and the start shows; the sandbox host would have refused it")
    func productionPhone() async throws {
        try await SimulatedPhoneFixture.run(phones: [.init("phone-p", name: "iPhone 16", environment: .production, activityTypes: [.type(FlightAttributes.self)])],
                                            productionHost: true) { f in
            let simulator = f.simulator, server = f.server
            let app = try f.app(f.device("phone-p"))
            #expect(await app.launch(simulator).remaining == 0)
            let installation = try #require(await app.uploader.installationID)
            // Without the app's report the app's default (sandbox) would apply, and the sandbox host answers BadDeviceToken.
            #expect(try server.store.write { try $0.pushToStartToken(deviceID: installation, attributesType: "FlightAttributes") }?.environment == "production")
            let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                    "contentState": ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false],
                                    "alert": ["title": "LL 1234", "body": "Tracking"], "audience": ["deviceIDs": .array([.string(installation)])]]
            #expect(try await f.call("POST", "/v1/activities/flight-prod/start", json: start).status == 202)
            let settled = try await f.call("GET", "/v1/activities/flight-prod?wait=20")
            #expect(settled.json["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent", "\(settled.json)")
            #expect(simulator.activities().contains { $0.deviceID == "phone-p" })
        }
    }
}

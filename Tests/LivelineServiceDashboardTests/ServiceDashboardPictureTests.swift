import Foundation
import LivelineCore
import LivelineServiceDashboard
import LivelineSimulator
import LivelineTesting
import Testing

@Suite("The service's dashboard: a picture of each send (its Lock Screen, drawn by LivelinePreview, what it drew named)")
struct ServiceDashboardPictureTests {
    @Test("a start and an update sent through the service: each send's Lock Screen shows its own gate, drawn through FlightAttributes' template")
    func startAndUpdatePictures() async throws {
        try await ServiceDashboardFixture.with { f in
            let token = try #require(f.simulator.app(ServiceDashboardFixture.bundleID, on: "phone-1")?.pushToStartTokens["FlightAttributes"])
            _ = try await f.api("PUT", "/v1/devices/phone-1", ["bundleID": .string(ServiceDashboardFixture.bundleID), "iosVersion": "18.2"])
            let registered = try await f.api("PUT", "/v1/devices/phone-1/push-to-start/FlightAttributes", ["token": .string(token)])
            #expect(registered.status == 201 || registered.status == 200, "\(registered.text)")
            let soon = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))
            let started = try await f.api("POST", "/v1/activities/flight-9/start", [
                "attributesType": "FlightAttributes", "audience": ["deviceIDs": ["phone-1"]], "alert": ["title": "LL 1234", "body": "Tracking"],
                "channel": "none",
                "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": .string(soon)],
                "contentState": ["status": "scheduled", "gate": "B12", "boardingTime": .string(soon), "delayMinutes": 0, "isBoarding": false],
            ])
            #expect((200...202).contains(started.status), "\(started.text)")
            try await f.waitFinal("flight-9")
            // The device's update token, as its app would register it.
            let activity = try #require(f.simulator.activities().first { $0.pushToken != nil }, "the start did not reach the simulator")
            try await f.register(device: "phone-1", token: try #require(activity.pushToken), activityID: "flight-9")
            try await f.update("flight-9", gate: "Q7")
            try await f.waitFinal("flight-9")

            let reply = try await f.page("/api/activities/flight-9")
            let sends = try #require(reply.json["sends"]?.arrayValue, "\(reply.text)")
            #expect(sends.map { $0["event"] } == ["update", "start"], "newest first")
            for (send, gate, other) in [(sends[0], "Q7", "B12"), (sends[1], "B12", "Q7")] {
                #expect(send["error"] == nil, "\(send)")
                #expect(send["drew"] == "FlightAttributes through its template")
                let light = try #require(send["lockScreen"]?.stringValue)
                #expect(light.contains("data-ll-box=\"lock-screen\"") && light.contains(">\(gate)<"), "\(light)")
                #expect(!light.contains(">\(other)<"), "another send's gate")
                #expect(send["lockScreenDark"]?.stringValue?.contains(">\(gate)<") == true)
            }
            #expect(reply.text.contains(token) == false, "no whole token in the page's JSON")
        }
    }

    @Test("an update of an activity the app started itself: the service holds no attributes, and the picture says why it is not drawn")
    func noAttributes() async throws {
        try await ServiceDashboardFixture.with { f in
            let flight = try f.startFlight()
            try await f.register(device: "phone-1", token: try #require(flight.pushToken), activityID: "flight-1")
            try await f.update("flight-1", gate: "C9")
            let reply = try await f.page("/api/activities/flight-1")
            let send = try #require(reply.json["sends"]?.arrayValue?.first, "\(reply.text)")
            #expect(send["event"] == "update")
            #expect(send["lockScreen"] == nil)
            #expect(send["error"]?.stringValue?.contains("attributes") == true, "\(send)")
        }
    }
}

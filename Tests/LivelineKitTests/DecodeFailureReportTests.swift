import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import SimulatedPhoneFixture
import Testing

/// The app's own type is older than the server's schema: a content state the service accepted
/// fails to decode on the phone, LivelineKit reports it, and the service's status says why.
@Suite("LivelineKit reports a content state its type failed to decode; the service's status gives it as the reason")
struct DecodeFailureReportTests {
    static let bundle = "com.example.flights"

    /// FlightAttributes as an older app build declares it: its `status` enum has no "landed".
    static let olderFlightType: ActivityType = {
        let base = ActivityType.type(FlightAttributes.self)
        return .custom(name: "FlightAttributes", attributes: { base.attributesError($0) }, contentState: { json in
            if let error = base.contentStateError(json) { return error }
            let status = json["status"]?.stringValue ?? ""
            return ["scheduled", "boarding", "delayed"].contains(status) ? nil
                : "dataCorrupted(content-state.status): Cannot initialize FlightStatus from invalid String value \(status)"
        }, kept: { base.decodedAttributes($0) })
    }()

    @Test("an update the phone cannot decode: dropped on the phone, reported by the app, decode-failed in the service's status")
    func reported() async throws {
        try await SimulatedPhoneFixture.run(phones: [.init("phone-1", name: "iPhone 16", activityTypes: [Self.olderFlightType])]) { f in
            let simulator = f.simulator
            let app = try f.app(f.device("phone-1"))
            #expect(await app.launch(simulator).remaining == 0)
            let installation = try #require(await app.uploader.installationID)

            let id = "flight-LL77"
            let state: JSONValue = ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false]
            let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 77", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                    "contentState": state, "alert": ["title": "LL 77", "body": "Tracking"], "audience": ["deviceIDs": .array([.string(installation)])]]
            #expect(try await f.call("POST", "/v1/activities/\(id)/start", json: start).status == 202)
            _ = try await f.call("GET", "/v1/activities/\(id)?wait=20")
            await app.look(simulator)

            // The server's schema knows "landed" (added later); the app's older type does not.
            var landed = state.objectValue!
            landed["status"] = "landed"
            let update = try await f.call("POST", "/v1/activities/\(id)/update", json: ["contentState": .object(landed)])
            #expect(update.status == 202, "\(update.json)")
            let settled = try await f.call("GET", "/v1/activities/\(id)?wait=20")
            #expect(settled.json["deliveries"]?.arrayValue?.first?["state"] == "sent", "\(settled.json)")
            let onPhone = try #require(simulator.activities().first { $0.deviceID == "phone-1" })
            #expect(onPhone.contentState["status"] == "scheduled")
            #expect(onPhone.decodeFailures == 1)

            let report = await app.look(simulator)
            #expect(report.sent == ["decode failure of phone-1 for \(id)"], "\(report)")
            let status = try await f.call("GET", "/v1/activities/\(id)")
            let mine = try #require(status.json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == installation })
            #expect(mine["reason"]?["code"] == "decode-failed", "\(mine)")
            #expect(mine["reason"]?["message"]?.stringValue?.contains("invalid String value landed") == true)
            #expect(mine["decodeFailure"]?["error"]?.stringValue?.contains("landed") == true)
        }
    }
}

import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
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
        let directory = NSTemporaryDirectory() + "liveline-kit-decode-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone 16", osVersion: "18.2", id: "phone-1")
        _ = try simulator.install(Self.bundle, on: "phone-1", activityTypes: [Self.olderFlightType])
        let simulatorServer = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: directory))
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory + "/liveline.db"
        config.apnsHost = "127.0.0.1:\(simulatorServer.port)"
        config.caFile = simulatorServer.caFile
        let server = try ServiceServer.start(config) { _ in }
        var failure: (any Error)?
        do {
            let admin = server.firstAdminKey!
            let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile)!, as: UTF8.self)
            #expect(try await KitFixture.call(server.url, "POST", "/v1/apps", key: admin, json: [
                "bundleID": .string(Self.bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID), "key": .string(pem), "environment": "sandbox"]).status == 201)
            let appKey = try #require(try await KitFixture.call(server.url, "POST", "/v1/keys", key: admin, json: ["scope": "app"]).json["key"]?.stringValue)
            let app = try SimulatedPhoneApp(
                device: DeviceRegistration(deviceID: "phone-1", bundleID: Self.bundle, iosVersion: "18.2"), attributesTypes: ["FlightAttributes"],
                client: LivelineAppClient(baseURL: URL(string: server.url)!, appKey: appKey), directory: URL(fileURLWithPath: directory + "/app"))
            #expect(await app.launch(simulator).remaining == 0)
            let installation = try #require(await app.uploader.installationID)

            let id = "flight-LL77"
            let state: JSONValue = ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false]
            let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 77", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                    "contentState": state, "alert": ["title": "LL 77", "body": "Tracking"], "audience": ["deviceIDs": .array([.string(installation)])]]
            #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/\(id)/start", key: admin, json: start).status == 202)
            _ = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)?wait=20", key: admin)
            await app.look(simulator)

            // The server's schema knows "landed" (added later); the app's older type does not.
            var landed = state.objectValue!
            landed["status"] = "landed"
            let update = try await KitFixture.call(server.url, "POST", "/v1/activities/\(id)/update", key: admin, json: ["contentState": .object(landed)])
            #expect(update.status == 202, "\(update.json)")
            let settled = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)?wait=20", key: admin)
            #expect(settled.json["deliveries"]?.arrayValue?.first?["state"] == "sent", "\(settled.json)")
            let onPhone = try #require(simulator.activities().first { $0.deviceID == "phone-1" })
            #expect(onPhone.contentState["status"] == "scheduled")
            #expect(onPhone.decodeFailures == 1)

            let report = await app.look(simulator)
            #expect(report.sent == ["decode failure of phone-1 for \(id)"], "\(report)")
            let status = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)", key: admin)
            let mine = try #require(status.json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == installation })
            #expect(mine["reason"]?["code"] == "decode-failed", "\(mine)")
            #expect(mine["reason"]?["message"]?.stringValue?.contains("invalid String value landed") == true)
            #expect(mine["decodeFailure"]?["error"]?.stringValue?.contains("landed") == true)
            await app.stop()
        } catch {
            failure = error
        }
        await server.stop()
        await simulatorServer.stop()
        if let failure { throw failure }
    }
}

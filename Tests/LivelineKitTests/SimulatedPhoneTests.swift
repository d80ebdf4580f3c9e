import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import Testing

/// Simulated iPhones whose app runs LivelineKit, against a real service that pushes to the
/// simulator over HTTP/2: the whole loop on loopback.
@Suite("LivelineKit on simulated iPhones: the app registers itself, the service pushes, the app follows")
struct SimulatedPhoneTests {
    static let bundle = "com.example.flights"

    @Test("push-to-start, the update token registered by the app, a rotation, a receipt, and the dismissal")
    func wholeLoop() async throws {
        let directory = NSTemporaryDirectory() + "liveline-kit-sim-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone 15", osVersion: "17.5", id: "phone-1")
        _ = try simulator.install(Self.bundle, on: "phone-1", activityTypes: [.type(FlightAttributes.self)])
        let simulatorServer = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: directory))
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory + "/liveline.db"
        config.apnsHost = "127.0.0.1:\(simulatorServer.port)"
        config.caFile = simulatorServer.caFile
        let server = try ServiceServer.start(config) { _ in }
        let admin = server.firstAdminKey!
        let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile)!, as: UTF8.self)
        #expect(try await KitFixture.call(server.url, "POST", "/v1/apps", key: admin, json: [
            "bundleID": .string(Self.bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID), "key": .string(pem), "environment": "sandbox"]).status == 201)
        let appKey = try await KitFixture.call(server.url, "POST", "/v1/keys", key: admin, json: ["scope": "app"]).json["key"]!.stringValue!
        let secret = try await KitFixture.call(server.url, "PUT", "/v1/apps/\(Self.bundle)/token-secret", key: admin, json: [:]).json["secret"]!.stringValue!
        var client = LivelineAppClient(baseURL: URL(string: server.url)!, appKey: appKey)
        // The app's backend signs ana's user token for this installation.
        client.userTokenProvider = { id, user in BackendTokens.userToken(userID: user, installationID: id, bundleID: Self.bundle, secret: secret) }

        let app = try SimulatedPhoneApp(
            device: DeviceRegistration(deviceID: "phone-1", bundleID: Self.bundle, iosVersion: "17.5", userID: "ana"),
            attributesTypes: ["FlightAttributes"], client: client,
            directory: URL(fileURLWithPath: directory + "/app"), configure: { $0.sendsReceipts = true })
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
        #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/\(id)/start", key: admin, json: start).status == 202)
        _ = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)?wait=20", key: admin)
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
        #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/\(id)/update", key: admin, json: update).status == 202)
        let settled = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)?wait=20", key: admin)
        #expect(settled.json["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent")
        #expect(simulator.activity(deviceActivity.id)?.contentState["gate"]?.stringValue == "C7")

        // The app saw the new content: its receipt marks the delivery displayed.
        let receipt = await app.look(simulator)
        let shown = try await KitFixture.call(server.url, "GET", "/v1/activities/\(id)", key: admin)
        #expect(receipt.sent == ["receipt of phone-1 for \(id)"])
        #expect(shown.json["deliveries"]?.arrayValue?.first { $0["event"]?.stringValue == "update" }?["displayed"]?.boolValue == true)

        // Dismissed by the user: the app deletes the token.
        try simulator.dismissByUser(deviceActivity.id)
        await app.look(simulator)
        #expect(try serverToken() == nil)

        await app.stop()
        await server.stop()
        await simulatorServer.stop()
    }

    @Test("a production phone's app reports production with its tokens: the service sends to the production host and the start shows; the sandbox host would have refused it")
    func productionPhone() async throws {
        let directory = NSTemporaryDirectory() + "liveline-kit-sim-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone 16", osVersion: "18.2", environment: .production, id: "phone-p")
        _ = try simulator.install(Self.bundle, on: "phone-p", activityTypes: [.type(FlightAttributes.self)])
        let certificates = try SimulatorCertificates.prepare(in: directory)
        let sandboxHost = try SimulatorServer.start(simulator: simulator, certificates: certificates)
        let productionHost = try SimulatorServer.start(simulator: simulator, certificates: certificates, environment: .production)
        var config = ServiceConfiguration()
        config.port = 0
        config.database = directory + "/liveline.db"
        config.apnsSandboxHost = "127.0.0.1:\(sandboxHost.port)"
        config.apnsProductionHost = "127.0.0.1:\(productionHost.port)"
        config.caFile = sandboxHost.caFile
        let server = try ServiceServer.start(config) { _ in }
        let admin = server.firstAdminKey!
        let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile)!, as: UTF8.self)
        #expect(try await KitFixture.call(server.url, "POST", "/v1/apps", key: admin, json: [
            "bundleID": .string(Self.bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID), "key": .string(pem),
            "environment": "sandbox", "environments": ["sandbox", "production"]]).status == 201)
        let appKey = try await KitFixture.call(server.url, "POST", "/v1/keys", key: admin, json: ["scope": "app"]).json["key"]!.stringValue!
        let client = LivelineAppClient(baseURL: URL(string: server.url)!, appKey: appKey)
        let app = try SimulatedPhoneApp(device: DeviceRegistration(deviceID: "phone-p", bundleID: Self.bundle, iosVersion: "18.2"),
                                        attributesTypes: ["FlightAttributes"], client: client, directory: URL(fileURLWithPath: directory + "/app"))
        #expect(await app.launch(simulator).remaining == 0)
        let installation = try #require(await app.uploader.installationID)
        // Without the app's report the app's default (sandbox) would apply, and the sandbox host answers BadDeviceToken.
        #expect(try server.store.write { try $0.pushToStartToken(deviceID: installation, attributesType: "FlightAttributes") }?.environment == "production")
        let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                "contentState": ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false],
                                "alert": ["title": "LL 1234", "body": "Tracking"], "audience": ["deviceIDs": .array([.string(installation)])]]
        #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/flight-prod/start", key: admin, json: start).status == 202)
        let settled = try await KitFixture.call(server.url, "GET", "/v1/activities/flight-prod?wait=20", key: admin)
        #expect(settled.json["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent", "\(settled.json)")
        #expect(simulator.activities().contains { $0.deviceID == "phone-p" })
        await app.stop()
        await server.stop()
        await sandboxHost.stop()
        await productionHost.stop()
    }
}

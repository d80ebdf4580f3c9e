import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import Testing

/// An iOS 18 simulated iPhone whose app starts an activity itself on the channel the backend bound to
/// a logical id (`pushType: .channel`): no update token ever exists; LivelineKit reports the channel
/// (with the backend's grant), and the backend's `update` and `end` by the logical id reach it.
@Suite("LivelineKit on a simulated iOS 18 iPhone: an app-started channel activity updated and ended by logical id")
struct ChannelPhoneTests {
    static let bundle = "com.example.flights"

    @Test("bound by the backend, started by the app on the channel, reported by LivelineKit, updated and ended through the service")
    func appStartedChannelActivity() async throws {
        let directory = NSTemporaryDirectory() + "liveline-kit-chan-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone 16", osVersion: "18.2", id: "phone-1")
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
        let appKey = try #require(try await KitFixture.call(server.url, "POST", "/v1/keys", key: admin, json: ["scope": "app"]).json["key"]?.stringValue)
        let secret = try #require(try await KitFixture.call(server.url, "PUT", "/v1/apps/\(Self.bundle)/token-secret", key: admin, json: [:]).json["secret"]?.stringValue)

        // The backend makes the match's channel, bound to its logical id.
        let made = try await KitFixture.call(server.url, "POST", "/v1/channels", key: admin, json: ["bundleID": .string(Self.bundle), "activityID": "match-7", "attributesType": "FlightAttributes"])
        #expect(made.status == 201, "\(made.json)")
        let channelID = try #require(made.json["channelID"]?.stringValue)

        // The app: LivelineKit with the backend's grant for activities it follows.
        var client = LivelineAppClient(baseURL: URL(string: server.url)!, appKey: appKey)
        client.activityGrantProvider = { installationID, activityID in
            BackendTokens.activityGrant(activityID: activityID, installationID: installationID, bundleID: Self.bundle, secret: secret)
        }
        let app = try SimulatedPhoneApp(
            device: DeviceRegistration(deviceID: "phone-1", bundleID: Self.bundle, iosVersion: "18.2"),
            attributesTypes: ["FlightAttributes"], client: client, directory: URL(fileURLWithPath: directory + "/app"))
        #expect(await app.launch(simulator).remaining == 0)
        let installation = try #require(await app.uploader.installationID)

        // The app starts the activity itself on the channel, and tells LivelineKit so.
        let departure = Date().addingTimeInterval(3600)
        let started = try simulator.startActivity(on: "phone-1", bundleID: Self.bundle,
                                                  attributes: FlightAttributes(flightNumber: "LL 7", origin: "LIS", destination: "ZRH", airline: "Liveline Air",
                                                                               departure: departure, livelineActivityID: "match-7"),
                                                  contentState: .init(status: .scheduled, gate: "B12", boardingTime: departure), pushMode: .channel(channelID))
        #expect(started.pushToken == nil && started.channelID == channelID)
        await app.coordinator.followsChannel(channelID, deviceActivityID: started.id)
        let reported = await app.look(simulator)
        #expect(reported.remaining == 0 && reported.dropped.isEmpty, "\(reported)")
        let member = try server.store.write { try $0.channelMember(activityID: "match-7", deviceID: installation) }
        #expect(member?.channelID == channelID && member?.deviceActivityID == started.id, "the service holds the report: \(String(describing: member))")

        // The backend updates by the logical id: one broadcast, shown on the phone.
        let update: JSONValue = ["contentState": ["status": "boarding", "gate": "C7", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": true]]
        #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/match-7/update", key: admin, json: update).status == 202)
        let settled = try await KitFixture.call(server.url, "GET", "/v1/activities/match-7?wait=20", key: admin)
        #expect(settled.json["deliveries"]?.arrayValue?.map { $0["target"]?.stringValue ?? "" } == ["channel"], "\(settled.json)")
        #expect(simulator.activity(started.id)?.contentState["gate"]?.stringValue == "C7", "the app-started activity shows the update")
        let status = settled.json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == installation }
        #expect(status?["state"] == "active" && status?["reachable"] == true, "\(String(describing: status))")

        // And ends it: the phone ends it, LivelineKit withdraws the report.
        let end: JSONValue = ["contentState": ["status": "departed", "gate": "C7", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false], "dismissImmediately": true]
        #expect(try await KitFixture.call(server.url, "POST", "/v1/activities/match-7/end", key: admin, json: end).status == 202)
        _ = try await KitFixture.call(server.url, "GET", "/v1/activities/match-7?wait=20", key: admin)
        #expect(simulator.activity(started.id).map { $0.state != .active } ?? true, "the phone ended it")
        #expect(await app.look(simulator).remaining == 0)
        #expect(try server.store.write { try $0.channelMember(activityID: "match-7", deviceID: installation) } == nil, "the report was withdrawn at the end")
        await app.stop()
        await server.stop()
        await simulatorServer.stop()
    }
}

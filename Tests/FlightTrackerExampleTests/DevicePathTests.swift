import FlightTrackerShared
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import LivelineTesting
import SimulatedPhoneFixture
import Testing

/// The path a real iPhone takes: the iosVersion an app really sends, and ActivityKit's decoding of
/// a push-to-start's attributes, which keeps only what the type declares.
@Suite("The guide's type on a simulated iPhone: undeclared attribute keys are dropped, real iosVersion strings accepted")
struct DevicePathTests {
    static let bundle = "com.example.flights"

    @Test("the simulated ActivityKit keeps only the keys a type declares, as JSONDecoder does")
    func undeclaredKeysDropped() throws {
        let departure = Date(timeIntervalSinceReferenceDate: 818_000_000)
        var sent = try #require(try JSONValue(encoding: FlightActivityAttributes.example(scheduledDeparture: departure)).objectValue)
        sent[ActivitySchema.activityIDKey] = "flight-GA2025"
        sent["extra"] = 7
        let guide = ActivityType.type(FlightActivityAttributes.self)
        #expect(guide.attributesError(.object(sent)) == nil, "undeclared keys do not fail the decoding")
        let kept = guide.decodedAttributes(.object(sent))
        #expect(kept[ActivitySchema.activityIDKey] == nil && kept["extra"] == nil)
        #expect(kept["flightNumber"]?.stringValue == "GA 2025" && kept["scheduledDeparture"]?.numberValue == departure.timeIntervalSinceReferenceDate)
        // The same by schema, and for Voltra's type; Liveline's FlightAttributes declares the key and keeps it.
        #expect(ActivityType.schema(FlightActivityAttributes.schema).decodedAttributes(.object(sent))[ActivitySchema.activityIDKey] == nil)
        #expect(ActivityType.voltra.decodedAttributes(["name": "match-1", ActivitySchema.activityIDKey: "x"]) == ["name": "match-1"])
        let builtIn: JSONValue = ["flightNumber": "LL 1", "origin": "LIS", "destination": "ZRH", "airline": "L", "departure": 0, ActivitySchema.activityIDKey: "x"]
        #expect(ActivityType.type(FlightAttributes.self).decodedAttributes(builtIn)[ActivitySchema.activityIDKey] == "x")
    }

    @Test("relying on livelineActivityID with the guide's type registers nothing; the app's own logical id registers the token; \"Version 18.2 (Build 22C152)\" and \"17.4.1\" are accepted")
    func devicePath() async throws {
        try await SimulatedPhoneFixture.run(phones: [.init("phone-1", name: "iPhone 16", activityTypes: [.type(FlightActivityAttributes.self)])],
                                            configure: { $0.schemaFiles = [FlightTrackerExampleTests.schemaFile.path] }) { f in
            let simulator = f.simulator, server = f.server, admin = f.adminKey, appKey = f.appKey
            // Ana's backend signs her user token (docs/security.md); the phone keeps its installation
            // credential in one store, so a relaunch of the app (below, with another mapping) is the same installation.
            let client = f.client(secretStore: FileSecretStore(url: URL(fileURLWithPath: f.directory + "/liveline-installation.json")))

            // The versions apps really send: UIDevice's, ProcessInfo's numbers, and its prose string;
            // the app sends one when it creates its installation (app key) and when it registers (its credential).
            var installations: [String: String] = [:]  // installation id: secret
            for version in ["17.4.1", "18.2.0", "Version 18.2 (Build 22C152)"] {
                let made = try await SimulatedPhoneFixture.call(server.url, "POST", "/v1/installations", key: appKey,
                                                               json: ["bundleID": .string(Self.bundle), "iosVersion": .string(version)])
                #expect(made.status == 201, "\(version): \(made.json)")
                let id = try #require(made.json["installationID"]?.stringValue), secret = try #require(made.json["secret"]?.stringValue)
                installations[id] = secret
                let r = try await SimulatedPhoneFixture.call(server.url, "PUT", "/v1/devices/\(id)", key: secret,
                                                            json: ["bundleID": .string(Self.bundle), "iosVersion": .string(version)])
                #expect(r.status == 200 || r.status == 201, "\(version): \(r.json)")
            }
            let (someID, someSecret) = try #require(installations.first)
            for bad in ["Version eighteen", "18.2 (Build 22C152", "18..2", "iOS"] {
                let made = try await SimulatedPhoneFixture.call(server.url, "POST", "/v1/installations", key: appKey,
                                                               json: ["bundleID": .string(Self.bundle), "iosVersion": .string(bad)])
                #expect(made.status == 400 && made.json["error"]?["field"]?.stringValue == "iosVersion", "\(bad): \(made.json)")
                let r = try await SimulatedPhoneFixture.call(server.url, "PUT", "/v1/devices/\(someID)", key: someSecret,
                                                            json: ["bundleID": .string(Self.bundle), "iosVersion": .string(bad)])
                #expect(r.status == 400 && r.json["error"]?["field"]?.stringValue == "iosVersion", "\(bad): \(r.json)")
            }

            // The phone's app, first relying on livelineActivityID (the default), with the prose version.
            let device = DeviceRegistration(deviceID: "phone-1", bundleID: Self.bundle, iosVersion: "Version 18.2 (Build 22C152)", userID: "ana")
            let relying = try f.app(device, attributesTypes: [FlightActivityAttributes.attributesType], client: client, container: f.directory + "/relying")
            let launched = await relying.launch(simulator)
            #expect(launched.remaining == 0 && launched.dropped.isEmpty, "the device registered with a real iosVersion: \(launched)")

            let departure = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 + 3600) / 60).rounded(.down) * 60)
            let id = FlightActivityAttributes.logicalID(flightNumber: "GA 2025", scheduledDeparture: departure)
            let iso = ISO8601DateFormatter().string(from: departure)
            let start: JSONValue = [
                "attributesType": "FlightActivityAttributes",
                "attributes": ["flightNumber": "GA 2025", "origin": "BLR", "destination": "BOM", "scheduledDeparture": .string(iso), "airline": "GeekyAir"],
                "contentState": ["flightStatus": "Scheduled", "gateNumber": "TBD", "boardingTime": .string(iso), "delayMinutes": 0, "isBoarding": false],
                "alert": ["title": "GA 2025", "body": "BLR → BOM"], "audience": ["userIDs": ["ana"]]]
            let started = try await SimulatedPhoneFixture.call(server.url, "POST", "/v1/activities/\(id)/start", key: admin, json: start)
            #expect(started.status == 202, "\(started.json)")
            let settled = try await SimulatedPhoneFixture.call(server.url, "GET", "/v1/activities/\(id)?wait=20", key: admin).json
            #expect(settled["deliveries"]?.arrayValue?.first?["state"]?.stringValue == "sent", "the prose iosVersion was read as 18.2 (push-to-start needs 17.2): \(settled)")
            let activity = try #require(simulator.activities().first { $0.deviceID == "phone-1" })
            #expect(activity.attributes[ActivitySchema.activityIDKey] == nil, "the device dropped the undeclared key")

            let looked = await relying.look(simulator)
            #expect(!looked.sent.contains { $0.hasPrefix("token of") }, "no logical id, no token: \(looked.sent)")
            let installationID = try #require(client.installationID, "the app created its installation")
            func serverToken() throws -> String? { try server.store.write { try $0.activityToken(activityID: id, deviceID: installationID) }?.token }
            #expect(try serverToken() == nil)
            await relying.stop()

            // The same phone with the app's own mapping (as Examples/FlightTracker's app has it).
            let mapping = try f.app(device, attributesTypes: [FlightActivityAttributes.attributesType], client: client, container: f.directory + "/mapping",
                                    configure: { $0.logicalID = { FlightActivityAttributes.logicalID(attributes: $0.attributes) } })
            _ = await mapping.launch(simulator)
            _ = await mapping.look(simulator)
            #expect(try serverToken() == activity.pushToken)
        }
    }
}

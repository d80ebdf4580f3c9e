import Foundation
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import SimulatedPhoneFixture
import Testing

/// Older app builds still installed (docs/traps.md): the app reports its build and schema
/// versions at registration, and a new build registers again.
@Suite("LivelineKit: the device registration reports the app build and schema versions")
struct AppBuildReportTests {
    @Test("the build, version and schema versions reach the service; an upgraded build registers again with the new ones")
    func reported() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        var device = KitFixture.device()
        device.appBuild = "41"
        device.appVersion = "1.3"
        device.schemaVersions = ["FlightAttributes": "1"]
        await uploader.registerDevice(device)
        #expect(await uploader.drain().sent == ["device phone-1"])
        let first = try await f.admin("GET", "/v1/devices/\(f.serviceID("phone-1"))")
        #expect(first.json["appBuild"] == "41" && first.json["appVersion"] == "1.3", "\(first.json)")
        #expect(first.json["schemaVersions"] == ["FlightAttributes": "1"], "\(first.json)")

        // The same registration again sends nothing; the next build's does.
        await uploader.registerDevice(device)
        #expect(await uploader.drain().sent == [])
        device.appBuild = "52"
        device.appVersion = "1.4"
        device.schemaVersions = ["FlightAttributes": "2"]
        await uploader.registerDevice(device)
        #expect(await uploader.drain().sent == ["device phone-1"])
        let upgraded = try await f.admin("GET", "/v1/devices/\(f.serviceID("phone-1"))")
        #expect(upgraded.json["appBuild"] == "52" && upgraded.json["schemaVersions"] == ["FlightAttributes": "2"], "\(upgraded.json)")
        await f.stop()
    }

    @Test("a build the service would refuse is a dropped registration with the service's 400, naming the field")
    func refusedBuild() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        var device = KitFixture.device()
        device.schemaVersions = ["FlightAttributes": "version 2"]
        await uploader.registerDevice(device)
        let report = await uploader.drain()
        #expect(report.sent == [])
        #expect(report.dropped.first?.contains("schemaVersions.FlightAttributes") == true, "\(report.dropped)")
        await f.stop()
    }

    @Test("Info.plist values: CFBundleVersion and CFBundleShortVersionString, left out when the service would refuse them")
    func infoDictionary() {
        #expect(AppBuildInfo(infoDictionary: ["CFBundleVersion": "1.4.52", "CFBundleShortVersionString": "1.4"]) == AppBuildInfo(build: "1.4.52", version: "1.4"))
        #expect(AppBuildInfo(infoDictionary: ["CFBundleVersion": "52 (beta)", "CFBundleShortVersionString": 14]) == AppBuildInfo(build: nil, version: nil))
        #expect(AppBuildInfo(infoDictionary: ["CFBundleVersion": String(repeating: "9", count: 65)]).build == nil)
    }

    @Test("a registration queued by the previous LivelineKit (without the new fields) still decodes")
    func previousQueue() throws {
        let old = #"{"deviceID":"phone-1","bundleID":"com.example.flights","iosVersion":"18.2","frequentUpdates":false}"#
        let device = try JSONDecoder().decode(DeviceRegistration.self, from: Data(old.utf8))
        #expect(device.deviceID == "phone-1" && device.appBuild == nil && device.schemaVersions == nil)
    }

    @Test("the whole loop: two simulated iPhones register their builds through LivelineKit; a status the older build cannot decode is refused naming it, then sent to the newer one only")
    func simulatedPhones() async throws {
        let bundle = KitFixture.bundle
        // Build 41 decodes an older FlightAttributes: no "cancelled" status yet.
        let version1: JSONValue = [
            "attributes": ["flightNumber": "string", "origin": "string", "destination": "string", "airline": "string", "departure": "date", "livelineActivityID": "string?"],
            "contentState": ["status": ["enum": ["scheduled", "delayed", "boarding", "departed", "landed"]], "gate": "string?", "boardingTime": "date", "delayMinutes": "int", "isBoarding": "bool"],
        ]
        var named = version1.objectValue ?? [:]
        named["name"] = "FlightAttributes"
        let phones: [SimulatedPhoneFixture.Phone] = [
            .init("phone-old", name: "old", activityTypes: [.schema(try ActivitySchema(json: .object(named)))]),
            .init("phone-new", name: "new", activityTypes: [.type(FlightAttributes.self)]),
        ]
        try await SimulatedPhoneFixture.run(phones: phones, bundle: bundle) { f in
            let simulator = f.simulator, server = f.server
            func call(_ method: String, _ path: String, _ json: JSONValue? = nil) async throws -> SimulatedPhoneFixture.Reply {
                try await f.call(method, path, json: json)
            }
            #expect(try await call("PUT", "/v1/schemas/FlightAttributes/versions/1", version1).status == 201)

            var apps: [String: SimulatedPhoneApp] = [:]
            var ids: [String: String] = [:]
            for (phone, build, version) in [("phone-old", "41", "1"), ("phone-new", "52", "2")] {
                var device = DeviceRegistration(deviceID: phone, bundleID: bundle, iosVersion: "18.2")
                device.appBuild = build
                device.schemaVersions = ["FlightAttributes": version]
                let app = try f.app(device, client: LivelineAppClient(baseURL: URL(string: server.url)!, appKey: f.appKey))
                #expect(await app.launch(simulator).remaining == 0)
                apps[phone] = app
                let installation: String = try #require(await app.uploader.installationID)
                ids[phone] = installation
            }
            let old = ids["phone-old"]!, new = ids["phone-new"]!
            let id = "flight-builds"
            let start: JSONValue = ["attributesType": "FlightAttributes", "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": "2026-12-01T18:00:00Z"],
                                    "contentState": ["status": "scheduled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false],
                                    "alert": ["title": "LL 1234", "body": "Tracking"], "audience": ["deviceIDs": [.string(old), .string(new)]],
                                    "channel": "none"]  // the token path: both apps register their update tokens
            let started = try await call("POST", "/v1/activities/\(id)/start", start)
            #expect(started.status == 202 && started.json["queued"] == 2, "\(started.json)")
            _ = try await call("GET", "/v1/activities/\(id)?wait=20")
            for app in apps.values { await app.look(simulator) }
            #expect(try server.store.write { try $0.activityTokens(activityID: id) }.count == 2, "both apps registered their update tokens")

            let cancelled: JSONObject = ["contentState": ["status": "cancelled", "gate": "B12", "boardingTime": "2026-12-01T17:20:00Z", "delayMinutes": 0, "isBoarding": false]]
            let refused = try await call("POST", "/v1/activities/\(id)/update", .object(cancelled))
            #expect(refused.status == 422 && refused.json["error"]?["code"] == "older-build-cannot-decode", "\(refused.json)")
            #expect(refused.json["error"]?["devices"] == [["deviceID": .string(old), "appBuild": "41", "schemaVersion": "1"]], "\(refused.json)")
            var skip = cancelled
            skip["olderBuilds"] = "skip"
            let sent = try await call("POST", "/v1/activities/\(id)/update", .object(skip))
            #expect(sent.status == 202 && sent.json["queued"] == 1, "\(sent.json)")
            _ = try await call("GET", "/v1/activities/\(id)?wait=20")
            let shown = { (phone: String) in simulator.activities().first { $0.deviceID == phone }?.contentState["status"] }
            #expect(shown("phone-new") == "cancelled")
            #expect(shown("phone-old") == "scheduled", "the old build got nothing it would drop")
        }
    }
}

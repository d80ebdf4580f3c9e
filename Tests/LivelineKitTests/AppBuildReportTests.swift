import Foundation
import LivelineCore
import LivelineKit
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
}

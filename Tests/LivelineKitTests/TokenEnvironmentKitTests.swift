import Foundation
import LivelineCore
import LivelineKit
import LivelineStore
import Testing

/// The build's APNs environment goes with every token LivelineKit registers, read from the
/// embedded provisioning profile unless the app states it; push-to-start tokens are reported
/// again once a day, so the service (which skips tokens it has not seen for a configured time)
/// keeps using them.
@Suite("LivelineKit: token environments and push-to-start tokens kept seen")
struct TokenEnvironmentKitTests {
    /// A provisioning profile's shape: a signed container (binary here) around an XML property list.
    static func profile(entitlements: String) -> Data {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>
            <key>Name</key><string>Flights Development</string>
            <key>Entitlements</key><dict>\(entitlements)<key>get-task-allow</key><true/></dict>
            </dict></plist>
            """
        return Data([0x30, 0x82, 0x2a, 0x1f, 0x06, 0x09, 0x2a, 0x86, 0x48]) + Data(plist.utf8) + Data([0xa0, 0x82, 0x00, 0x31, 0x00])
    }

    @Test("the aps-environment of a provisioning profile: development is the sandbox; none or garbage reads as unknown")
    func readsTheProfile() {
        #expect(APSEnvironment.read(provisioningProfile: Self.profile(entitlements: "<key>aps-environment</key><string>development</string>")) == .sandbox)
        #expect(APSEnvironment.read(provisioningProfile: Self.profile(entitlements: "<key>aps-environment</key><string>production</string>")) == .production)
        #expect(APSEnvironment.read(provisioningProfile: Self.profile(entitlements: "")) == nil)
        #expect(APSEnvironment.read(provisioningProfile: Self.profile(entitlements: "<key>aps-environment</key><string>staging</string>")) == nil)
        #expect(APSEnvironment.read(provisioningProfile: Data([0x30, 0x82, 0x00])) == nil)
        #expect(APSEnvironment(entitlement: "development") == .sandbox)
        // Off iOS, with no embedded profile, the environment is unknown: the service's default applies.
        #expect(APSEnvironment.read(bundle: .main) == nil)
    }

    @Test("the client sends its apsEnvironment with the push-to-start and update tokens; the service records it")
    func sentWithEveryToken() async throws {
        let f = try await KitFixture()
        defer { Task { await f.stop() } }
        let uploader = try f.uploader()
        var client = f.client
        client.apsEnvironment = .production
        await uploader.setClient(client)
        await uploader.registerDevice(KitFixture.device())
        await uploader.setPushToStartToken(newToken().hex, attributesType: "FlightAttributes")
        await uploader.setActivityToken(newToken().hex, activityID: "flight-env", attributesType: "FlightAttributes")
        let report = await uploader.drain()
        #expect(report.dropped.isEmpty && report.remaining == 0, "\(report)")
        let id = f.serviceID("phone-1")
        #expect(try f.server!.store.write { try $0.pushToStartToken(deviceID: id, attributesType: "FlightAttributes") }?.environment == "production")
        #expect(try f.server!.store.write { try $0.activityToken(activityID: "flight-env", deviceID: id) }?.environment == "production")
        // Not stated (and not readable, off iOS): nothing is sent, and the service uses the app's default.
        let plain = try f.uploader(device: "phone-2", directory: f.directory.appendingPathComponent("phone-2"))
        await plain.registerDevice(KitFixture.device("phone-2"))
        await plain.setPushToStartToken(newToken().hex, attributesType: "FlightAttributes")
        _ = await plain.drain()
        let other = try #require(try f.server!.store.write { try $0.pushToStartToken(deviceID: f.serviceID("phone-2"), attributesType: "FlightAttributes") })
        #expect(other.environment == nil)
    }

    @Test("a push-to-start token the service holds is reported again after a day (so it never expires there), not before")
    func reportedAgainDaily() async throws {
        let f = try await KitFixture()
        defer { Task { await f.stop() } }
        let uploader = try f.uploader()
        let token = newToken().hex
        await uploader.registerDevice(KitFixture.device())
        await uploader.setPushToStartToken(token, attributesType: "FlightAttributes")
        _ = await uploader.drain()
        let id = f.serviceID("phone-1")
        let first = try #require(try f.server!.store.write { try $0.pushToStartToken(deviceID: id, attributesType: "FlightAttributes") }).registeredAt
        f.clock.advance(hours: 23)
        await uploader.setPushToStartToken(token, attributesType: "FlightAttributes")
        #expect(await uploader.pending.isEmpty, "reported again within a day")
        f.clock.advance(hours: 1)
        await uploader.setPushToStartToken(token, attributesType: "FlightAttributes")
        #expect(await uploader.pending.count == 1)
        let report = await uploader.drain()
        #expect(report.sent.count == 1, "\(report)")
        let again = try #require(try f.server!.store.write { try $0.pushToStartToken(deviceID: id, attributesType: "FlightAttributes") }).registeredAt
        #expect(again > first)
    }
}

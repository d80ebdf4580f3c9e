import Foundation
import LivelineCore
import LivelineStore
import Testing

/// A new installation's credential is trusted from its creation: the app's first requests
/// (registering its device and tokens) are not one store read each more expensive than the rest.
@Suite("A new installation's credential is cached when it is created")
struct InstallationWarmCacheTests {
    @Test("the first request after POST /v1/installations reads no installation from the store")
    func firstRequestFromCache() async throws {
        let faults = StoreFaults()
        let f = try await ServiceFixture(phones: [], store: StoreOpening { FaultyStore(try openStore(database: $0.database), faults: faults) })
        defer { Task { await f.stop() } }
        let body: JSONValue = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]
        let made = try await f.app.call("POST", "/v1/installations", json: body, headers: ["Idempotency-Key": "warm-1"])
        #expect(made.status == 201, "\(made.json)")
        let id = try #require(made.json["installationID"]?.stringValue)
        let secret = try #require(made.json["secret"]?.stringValue)
        // Every lookup of an installation by its credential now fails: only the cache can answer.
        faults.fail("installation", times: 1000)
        let me = APIClient(baseURL: f.server.url, key: secret)
        let device = try await me.call("PUT", "/v1/devices/\(id)", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
        #expect(device.status == 201 || device.status == 200, "\(device.json)")
        #expect(faults.thrown("installation") == 0, "the first request read its installation from the store")
    }
}

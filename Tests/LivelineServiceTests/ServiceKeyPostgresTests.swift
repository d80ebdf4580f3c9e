import Foundation
import LivelineCore
import LivelineService
import LivelineStore
import LivelineTesting
import Testing

/// Keys on a shared PostgreSQL database: revocation reaches every instance at once, and
/// instances starting together make one bootstrap admin key.
@Suite("Service keys on PostgreSQL", .enabled(if: TestPostgres.isAvailable, "needs the test server of scripts/with-postgres.sh (make test)"))
struct ServiceKeyPostgresTests {
    @Test("a key revoked on one instance is refused by another that had it cached (a cache of 300 s: only the notification can do it)")
    func revocationReachesEveryInstance() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture { $0.database = database.url(); $0.keyCacheTTL = .seconds(300) }
        var second = f.configuration
        second.port = 0
        let b = try ServiceServer.start(second) { _ in }
        var failure: (any Error)?
        do {
            let onB = APIClient(baseURL: b.url, key: f.app.key)
            let device: JSONValue = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]
            #expect(try await onB.call("POST", "/v1/installations", json: device).status == 201)  // B caches the key
            let id = try #require(try await f.admin.call("GET", "/v1/keys").json["keys"]?.arrayValue?.first { $0["scope"] == "app" }?["id"]?.stringValue)
            #expect(try await f.admin.call("DELETE", "/v1/keys/\(id)").status == 200)
            // The notification is delivered at A's commit; B's listener clears its cache when it reads it.
            try await until("instance B to refuse a key revoked on instance A", within: .seconds(2), poll: .milliseconds(20)) {
                try await onB.call("POST", "/v1/installations", json: device).status == 401
            }
        } catch {
            failure = error
        }
        await b.stop()
        await f.stop()
        if let failure { throw failure }
    }

    @Test("six instances started together on one empty database make exactly one admin key")
    func oneBootstrapKey() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.database = database.url()
        let started = try await withThrowingTaskGroup(of: ServiceServer.self) { group in
            for _ in 0..<6 {
                group.addTask { [configuration] in try ServiceServer.start(configuration) { _ in } }
            }
            var all: [ServiceServer] = []
            for try await server in group { all.append(server) }
            return all
        }
        let keys = started.compactMap(\.firstAdminKey)
        let count = try started[0].store.write { try $0.keyCount() }
        for server in started { await server.stop() }
        #expect(keys.count == 1, "\(keys.count) instances printed an admin key")
        #expect(count == 1)
    }
}

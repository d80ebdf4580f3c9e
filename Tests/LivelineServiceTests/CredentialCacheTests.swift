import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSQLite
@testable import LivelineService
@testable import LivelineStore
import LivelineTesting
import Testing

/// The caches in front of the credential checks (installations by secret hash, rate buckets): a
/// secret that stops being valid is refused at once though it was cached, and the buckets limit
/// exactly as they did before they became cheaper.
@Suite("Credential caches: a replaced secret is refused at once")
struct CredentialCacheTests {
    static let bundle = ServiceFixture.bundle

    @Test("a claim gives an installation a new secret: the old one, cached by its last request, is refused by the next")
    func claimRetiresTheCachedSecret() async throws {
        let f = try await ServiceFixture(phones: [("phone-1", "18.2")])
        defer { Task { await f.stop() } }
        let first = try await TrustAttackTests.install(f)
        try await TrustAttackTests.register(f, first, phone: "phone-1")
        let token = try #require(f.simulator.app(Self.bundle, on: "phone-1")?.pushToStartTokens["FlightAttributes"])
        // Two requests with the first secret: the second is answered from the cache.
        let device = "/v1/devices/\(first.id)/push-to-start/FlightAttributes"
        #expect((200...201).contains(try await first.client.call("PUT", device, json: ["token": .string(token)]).status))
        #expect((200...201).contains(try await first.client.call("PUT", device, json: ["token": .string(token)]).status))
        #expect(f.server.service.installations.cachedCount >= 1)

        let claimed = try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2",
                                                                            "claim": ["deviceID": .string(first.id), "token": .string(token)]])
        #expect(claimed.status == 201, "\(claimed.json)")
        #expect(claimed.json["installationID"]?.stringValue == first.id)
        let old = try await first.client.call("PUT", device, json: ["token": .string(token)])
        #expect(old.status == 401, "the replaced secret still worked: \(old.json)")
        let renewed = APIClient(baseURL: f.server.url, key: claimed.json["secret"]?.stringValue)
        #expect((200...201).contains(try await renewed.call("PUT", device, json: ["token": .string(token)]).status))
    }

    @Test("forget and invalidate drop cached installations; a lookup that read the store before a forget caches nothing")
    func forgetAndInvalidate() async throws {
        let directory = NSTemporaryDirectory() + "liveline-cache-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(path: directory + "/cache.db")
        defer { store.close() }
        let a = InstallationAuthority.make(bundleID: Self.bundle, now: Date())
        let b = InstallationAuthority.make(bundleID: Self.bundle, now: Date())
        try store.write { tx in
            try tx.insertInstallation(a.record)
            try tx.insertInstallation(b.record)
        }
        let authority = InstallationAuthority(cacheLifetime: .seconds(3600))
        #expect(try await authority.authenticate("Bearer \(a.secret)", store: store).installationID == a.record.installationID)
        #expect(try await authority.authenticate("bearer \t\(b.secret) ", store: store).installationID == b.record.installationID)
        #expect(authority.cachedCount == 2)

        // The store gives `a` a new secret behind the cache's back: the cache still answers (the
        // lifetime bounds that), until `forget` drops exactly `a`.
        var replaced = a.record
        replaced.secretHash = KeyAuthority.hash("ll_inst_" + String(repeating: "0", count: 40))
        try store.write { try $0.insertInstallation(replaced) }
        #expect(try await authority.authenticate("Bearer \(a.secret)", store: store).installationID == a.record.installationID)
        authority.forget(a.record.installationID)
        #expect(authority.cachedCount == 1)
        await #expect(throws: APIError.self) { try await authority.authenticate("Bearer \(a.secret)", store: store) }

        authority.invalidate()
        #expect(authority.cachedCount == 0)
        #expect(try await authority.authenticate("Bearer \(b.secret)", store: store).installationID == b.record.installationID)

        // A lookup racing a forget: the store read happens, then the forget, then the lookup
        // finishes; what it read must not be cached.
        let racing = RacingStore(store) { authority.forget(b.record.installationID) }
        authority.invalidate()
        #expect(try await authority.authenticate("Bearer \(b.secret)", store: racing).installationID == b.record.installationID)
        #expect(authority.cachedCount == 0, "an entry read before a forget was cached")

        // Unknown and malformed credentials: 401, nothing cached.
        await #expect(throws: APIError.self) { try await authority.authenticate("Bearer ll_inst_" + String(repeating: "a", count: 40), store: store) }
        await #expect(throws: APIError.self) { try await authority.authenticate("Basic \(b.secret)", store: store) }
        await #expect(throws: APIError.self) { try await authority.authenticate(nil, store: store) }
        #expect(authority.cachedCount == 0)
    }

    @Test("a cache lifetime of zero reads the store on every request")
    func zeroLifetime() async throws {
        let directory = NSTemporaryDirectory() + "liveline-cache-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteStore(path: directory + "/cache.db")
        defer { store.close() }
        let a = InstallationAuthority.make(bundleID: Self.bundle, now: Date())
        try store.write { try $0.insertInstallation(a.record) }
        let authority = InstallationAuthority(cacheLifetime: .zero)
        #expect(try await authority.authenticate("Bearer \(a.secret)", store: store).installationID == a.record.installationID)
        var replaced = a.record
        replaced.secretHash = KeyAuthority.hash("ll_inst_" + String(repeating: "1", count: 40))
        try store.write { try $0.insertInstallation(replaced) }
        await #expect(throws: APIError.self) { try await authority.authenticate("Bearer \(a.secret)", store: store) }
    }

    @Test("the presented digest is the SHA-256 of the key whatever the scheme's case and the blanks around it; anything else is a 401")
    func presentedDigest() throws {
        let secret = "ll_inst_" + String(repeating: "ab", count: 20)
        let expected = KeyAuthority.hash(secret)
        for header in ["Bearer \(secret)", "bearer \(secret)", "BEARER\t\(secret)", "Bearer  \(secret) \t"] {
            #expect(try KeyAuthority.presentedDigest(header).hex == expected, "\(header)")
        }
        #expect(try KeyAuthority.presentedDigest("Bearer \(secret)") == KeyAuthority.presentedDigest("bearer \(secret)"))
        #expect(try KeyAuthority.presentedDigest("Bearer \(secret)x") != KeyAuthority.presentedDigest("Bearer \(secret)"))
        for header in ["", "Bearer", "Bearer ", "Bearer \t ", "Bearerx \(secret)", "Basic \(secret)", "Bear \(secret)", secret] {
            #expect(throws: APIError.self, "\(header)") { try KeyAuthority.presentedDigest(header) }
        }
        #expect(InstallationAuthority.isInstallationCredential("Bearer \(secret)"))
        #expect(InstallationAuthority.isInstallationCredential("bearer \t\(secret)"))
        #expect(!InstallationAuthority.isInstallationCredential("Bearer ll_app_" + String(repeating: "ab", count: 20)))
        #expect(!InstallationAuthority.isInstallationCredential("Bearer ll_ins"))
        #expect(!InstallationAuthority.isInstallationCredential(nil))
    }

    @Test("client addresses: the peer without its port, IPv6 without brackets, X-Forwarded-For's last entry only from a trusted proxy")
    func clientAddresses() {
        #expect(ClientAddress.strip("127.0.0.1:5432") == "127.0.0.1")
        #expect(ClientAddress.strip("[::1]:5432") == "::1")
        #expect(ClientAddress.strip("::1") == "::1")
        #expect(ClientAddress.strip("host") == "host")
        #expect(ClientAddress.of("10.0.0.9:1", forwardedFor: "1.2.3.4, 5.6.7.8", trustedProxies: []) == "10.0.0.9")
        #expect(ClientAddress.of("10.0.0.9:1", forwardedFor: "1.2.3.4, 5.6.7.8", trustedProxies: ["10.0.0.9"]) == "5.6.7.8")
        #expect(ClientAddress.of("10.0.0.8:1", forwardedFor: "1.2.3.4", trustedProxies: ["10.0.0.9"]) == "10.0.0.8")
    }

    @Test("rate buckets: a burst, then refusals with the wait; a look spends nothing; names are independent")
    func rateBuckets() {
        let buckets = RateBuckets(rate: 1, burst: 3)
        #expect(buckets.hasRoom("a"))
        for _ in 0..<3 { #expect(buckets.admit("a") == nil) }
        let wait = buckets.admit("a")
        #expect(wait != nil && wait! > 0.9 && wait! <= 1, "\(String(describing: wait))")
        #expect(!buckets.hasRoom("a"))
        #expect(buckets.hasRoom("b"))
        for _ in 0..<10 { #expect(buckets.hasRoom("b")) }
        for _ in 0..<3 { #expect(buckets.admit("b") == nil) }
        #expect(buckets.admit("b") != nil)
        // Past its capacity, full buckets (idle callers) are dropped and busy ones kept.
        let small = RateBuckets(rate: 1, burst: 2, capacity: 2)
        #expect(small.admit("x") == nil)
        #expect(small.admit("x") == nil)
        #expect(small.admit("y") == nil)
        #expect(small.admit("z") == nil)
        #expect(small.admit("x") != nil, "a busy bucket was dropped")
    }
}

/// The installation cache on a shared PostgreSQL database: a claim on one instance retires the
/// old secret on another that had it cached.
@Suite("Credential caches on PostgreSQL", .enabled(if: TestPostgres.isAvailable, "needs the test server of scripts/with-postgres.sh (make test)"))
struct CredentialCachePostgresTests {
    @Test("a claim on one instance: another instance that cached the old secret refuses it within 2 s (only the notification can: its cache lives 60 s)")
    func claimReachesEveryInstance() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture(phones: [("phone-1", "18.2")]) { $0.database = database.url() }
        var second = f.configuration
        second.port = 0
        let b = try ServiceServer.start(second) { _ in }
        var failure: (any Error)?
        do {
            let first = try await TrustAttackTests.install(f)
            try await TrustAttackTests.register(f, first, phone: "phone-1")
            let token = try #require(f.simulator.app(ServiceFixture.bundle, on: "phone-1")?.pushToStartTokens["FlightAttributes"])
            let onB = APIClient(baseURL: b.url, key: first.client.key)
            let path = "/v1/devices/\(first.id)/push-to-start/FlightAttributes"
            #expect((200...201).contains(try await onB.call("PUT", path, json: ["token": .string(token)]).status))  // B caches the secret
            #expect(b.service.installations.cachedCount == 1)
            let claimed = try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2",
                                                                                "claim": ["deviceID": .string(first.id), "token": .string(token)]])
            #expect(claimed.status == 201, "\(claimed.json)")
            try await until("instance B to refuse a secret replaced on instance A", within: .seconds(2), poll: .milliseconds(20)) {
                try await onB.call("PUT", path, json: ["token": .string(token)]).status == 401
            }
        } catch {
            failure = error
        }
        await b.stop()
        await f.stop()
        if let failure { throw failure }
    }
}

/// A store whose transactions run `afterRead` once their body has run (before they return):
/// what a concurrent change between a lookup's read and its caching looks like.
final class RacingStore: Store, @unchecked Sendable {
    let base: any Store
    let afterRead: @Sendable () -> Void

    init(_ base: any Store, afterRead: @escaping @Sendable () -> Void) {
        self.base = base
        self.afterRead = afterRead
    }

    func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        let result = try base.write(body)
        afterRead()
        return result
    }

    var location: String { base.location }
    func close() { base.close() }
}

import Foundation
import LivelineStore
import LivelineTesting
import Testing

/// The trust branch's store operations, on SQLite and PostgreSQL alike.
@Suite("Store: installations, user binding, idempotency claims")
struct TrustStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let bundle = "com.example.flights"
    struct Rollback: Error {}

    @Test(arguments: StoreKind.all)
    func idempotencyClaims(_ kind: StoreKind) throws {
        try kind.withStore { store in
            let answer = IdempotentAnswer(requestHash: "h1", status: 201, body: Array("{\"ok\":true}".utf8))
            // A claim rolled back with its transaction leaves nothing behind.
            #expect(throws: Rollback.self) {
                try store.write { tx in
                    #expect(try tx.claimIdempotencyKey(keyID: "key_a", key: "k", requestHash: "h1", now: Self.t0) == nil)
                    throw Rollback()
                }
            }
            try store.write { tx in
                #expect(try tx.claimIdempotencyKey(keyID: "key_a", key: "k", requestHash: "h1", now: Self.t0) == nil)
                try tx.saveIdempotentAnswer(keyID: "key_a", key: "k", answer: answer, now: Self.t0)
            }
            #expect(try store.write { try $0.claimIdempotencyKey(keyID: "key_a", key: "k", requestHash: "h1", now: Self.t0) } == answer)
            // Scoped per credential.
            #expect(try store.write { try $0.claimIdempotencyKey(keyID: "inst_b", key: "k", requestHash: "h1", now: Self.t0) } == nil)
        }
    }

    @Test(arguments: StoreKind.all)
    func installationsAndUsers(_ kind: StoreKind) throws {
        try kind.withStore { store in
            try store.write { tx in
                try tx.upsertApp(AppRecord(bundleID: Self.bundle, teamID: "TEAM000001", keyID: "KEY0000001", keyPEM: "pem", environment: "sandbox", createdAt: Self.t0))
                try tx.insertInstallation(InstallationRecord(installationID: "inst_1", bundleID: Self.bundle, secretHash: "hash-1", createdAt: Self.t0))
                // A claim replaces the secret of the same id.
                try tx.insertInstallation(InstallationRecord(installationID: "inst_1", bundleID: Self.bundle, secretHash: "hash-2", createdAt: Self.t0))
                for (id, verified) in [("inst_1", true), ("inst_2", false), ("inst_3", true)] {
                    try tx.upsertDevice(DeviceRecord(deviceID: id, bundleID: Self.bundle, iosVersion: "18.2", userID: "ana", frequentUpdates: false, updatedAt: Self.t0, userVerified: verified))
                }
                try tx.setPushToStartToken(TokenRecord(scope: "FlightAttributes", deviceID: "inst_2", token: "aa11", registeredAt: Self.t0))
                try tx.setActivityToken(TokenRecord(scope: "flight-1", deviceID: "inst_3", token: "bb22", registeredAt: Self.t0))
            }
            try store.write { tx in
                #expect(try tx.installation(secretHash: "hash-1") == nil)
                #expect(try tx.installation(secretHash: "hash-2")?.installationID == "inst_1")
                #expect(try tx.devices(userIDs: ["ana"]).map(\.deviceID) == ["inst_1", "inst_3"])
                #expect(try tx.device("inst_2")?.userVerified == false)
                #expect(try tx.verifiedDeviceCount(userID: "ana", excluding: "inst_1") == 1)
                #expect(try tx.deviceHoldsToken(deviceID: "inst_2", token: "aa11"))
                #expect(try tx.deviceHoldsToken(deviceID: "inst_3", token: "bb22"))
                #expect(try !tx.deviceHoldsToken(deviceID: "inst_3", token: "aa11"))
                #expect(try tx.userTokenSecrets(bundleID: Self.bundle).isEmpty)
                try tx.setUserTokenSecret(bundleID: Self.bundle, secret: "first", now: Self.t0)
                try tx.setUserTokenSecret(bundleID: Self.bundle, secret: "second", now: Self.t0)
                #expect(try tx.userTokenSecrets(bundleID: Self.bundle) == ["second", "first"])
            }
        }
    }

    @Test(arguments: StoreKind.all)
    func startsTapsAndRetention(_ kind: StoreKind) throws {
        try kind.withStore { store in
            try store.write { tx in
                _ = try tx.insertSend(SendRecord(activityID: "flight-1", event: "start", bundleID: Self.bundle, body: Array("{}".utf8), createdAt: Self.t0),
                                      deliveries: [NewDelivery(deviceID: "inst_1", target: .pushToStart, token: "aa", priority: 10, notBefore: Self.t0)], now: Self.t0)
                #expect(try tx.wasPushStarted(activityID: "flight-1", deviceID: "inst_1", since: Self.t0))
                #expect(try !tx.wasPushStarted(activityID: "flight-1", deviceID: "inst_1", since: Self.t0.addingTimeInterval(1)))
                #expect(try !tx.wasPushStarted(activityID: "flight-1", deviceID: "inst_2", since: Self.t0))
                for n in 0..<3 {
                    _ = try tx.insertInteraction(activityID: "flight-1", deviceID: "inst_1", idempotencyKey: "inst_1/k\(n)", body: Array("{}".utf8), now: Self.t0.addingTimeInterval(Double(n)))
                }
                #expect(try tx.interactionCount(deviceID: "inst_1", since: Self.t0.addingTimeInterval(1)) == 2)
                let first = try tx.interactions(activityID: "flight-1", after: 0, limit: 2)
                #expect(first.count == 2)
                #expect(try tx.interactions(activityID: "flight-1", after: first[1].id, limit: 2).map(\.idempotencyKey) == ["inst_1/k2"])
                // Retention deletes only what the webhook is done with.
                try tx.recordWebhook(id: first[0].id, state: "delivered", attempts: 1, nextAttemptAt: Self.t0, error: nil)
                #expect(try tx.deleteInteractions(before: Self.t0.addingTimeInterval(100)) == 1)
                #expect(try tx.interactions(activityID: "flight-1", limit: 10).count == 2)
            }
        }
    }

    @Test("PostgreSQL: two instances claiming one key at once: one runs, the other gets its answer", .enabled(if: TestPostgres.isAvailable))
    func concurrentClaimsOnPostgres() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let a = try PostgresStore(url: database.url())
        let b = try PostgresStore(url: database.url())
        defer { a.close(); b.close() }
        let answer = IdempotentAnswer(requestHash: "h", status: 202, body: Array("{\"n\":1}".utf8))
        let claimed = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let seen = Seen()
        Thread.detachNewThread {
            claimed.wait()
            // A's transaction is open with the key claimed: B's claim waits for A's commit.
            let r = try? b.write { try $0.claimIdempotencyKey(keyID: "key_x", key: "same", requestHash: "h", now: Self.t0) }
            seen.set(r)
            done.signal()
        }
        try a.write { tx in
            #expect(try tx.claimIdempotencyKey(keyID: "key_x", key: "same", requestHash: "h", now: Self.t0) == nil)
            claimed.signal()
            try tx.saveIdempotentAnswer(keyID: "key_x", key: "same", answer: answer, now: Self.t0)
        }
        #expect(done.wait(timeout: .now() + 20) == .success, "B's claim never finished")
        #expect(seen.get() == answer)
    }
}

/// What the other thread saw, handed over under a lock.
private final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var value: IdempotentAnswer?
    func set(_ v: IdempotentAnswer?) { lock.withLock { value = v } }
    func get() -> IdempotentAnswer? { lock.withLock { value } }
}

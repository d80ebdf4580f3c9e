import Foundation
import LivelineStore
import Testing

/// The behaviour every store must have. Run against SQLite here; a PostgreSQL store runs the same checks.
enum StoreContract {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func seed(_ store: any Store) throws {
        try store.write { tx in
            try tx.upsertApp(AppRecord(bundleID: "com.example.flights", teamID: "TEAM000001", keyID: "KEY0000001", keyPEM: "pem", environment: "sandbox", createdAt: t0))
            for d in ["d1", "d2"] {
                try tx.upsertDevice(DeviceRecord(deviceID: d, bundleID: "com.example.flights", iosVersion: "18.2", userID: "u", frequentUpdates: false, updatedAt: t0))
                try tx.setActivityToken(TokenRecord(scope: "a1", deviceID: d, token: "token-\(d)", registeredAt: t0))
            }
            try tx.upsertActivity(ActivityRecord(activityID: "a1", bundleID: "com.example.flights", attributesType: "FlightAttributes", channelID: nil, startedAt: t0))
        }
    }

    static func update(_ store: any Store, devices: [String], at: Date) throws -> (id: Int64, superseded: Int) {
        try store.write { tx in
            try tx.insertSend(SendRecord(activityID: "a1", event: "update", bundleID: "com.example.flights", body: Array("{}".utf8), createdAt: at),
                              deliveries: devices.map { NewDelivery(deviceID: $0, target: .token, token: "token-\($0)", priority: 10, notBefore: at) }, now: at)
        }
    }

    static func supersedes(_ store: any Store) throws {
        try seed(store)
        _ = try update(store, devices: ["d1", "d2"], at: t0)
        let second = try update(store, devices: ["d1"], at: t0.addingTimeInterval(1))
        #expect(second.superseded == 1)
        let counts = try store.write { try $0.deliveryCounts(activityID: "a1") }
        #expect(counts[.superseded] == 1)
        #expect(counts[.queued] == 2)
        // A start to the same device is not an update: it supersedes nothing.
        let start = try store.write { tx in
            try tx.insertSend(SendRecord(activityID: "a1", event: "start", bundleID: "com.example.flights", body: [], createdAt: t0),
                              deliveries: [NewDelivery(deviceID: "d1", target: .pushToStart, token: "pts-d1", priority: 10, notBefore: t0)], now: t0)
        }
        #expect(start.superseded == 0)
        #expect(try store.write { try $0.startCount(deviceID: "d1", since: t0) } == 1)
        // The push-to-start row does not spend the update budget; the superseded update does not either.
        #expect(try store.write { try $0.immediateCount(activityID: "a1", deviceID: "d1", since: t0) } == 1)
    }

    static func claimsAndLeases(_ store: any Store) throws {
        try seed(store)
        _ = try update(store, devices: ["d1", "d2"], at: t0)
        let claimed = try store.write { try $0.claimDue(now: t0, limit: 10, leaseUntil: t0.addingTimeInterval(60)) }
        #expect(claimed.count == 2)
        #expect(claimed.allSatisfy { $0.state == .sending && $0.attempts == 1 })
        // Claimed rows are not claimed again.
        #expect(try store.write { try $0.claimDue(now: t0, limit: 10, leaseUntil: t0.addingTimeInterval(60)) }.isEmpty)
        // Before the lease ends nothing is released; after it, the rows are queued again.
        #expect(try store.write { try $0.releaseExpiredLeases(now: t0.addingTimeInterval(30)) } == 0)
        #expect(try store.write { try $0.releaseExpiredLeases(now: t0.addingTimeInterval(61)) } == 2)
        let again = try store.write { try $0.claimDue(now: t0.addingTimeInterval(61), limit: 1, leaseUntil: t0.addingTimeInterval(120)) }
        #expect(again.count == 1)
        #expect(again[0].attempts == 2)
        try store.write { try $0.record([DeliveryOutcome(id: again[0].id, state: .retrying, status: 503, reason: "ServiceUnavailable", nextAttemptAt: t0.addingTimeInterval(200))], now: t0.addingTimeInterval(62)) }
        #expect(try store.write { try $0.nextDue() } == t0)  // the other row is still due
        let rest = try store.write { try $0.claimDue(now: t0.addingTimeInterval(62), limit: 10, leaseUntil: t0.addingTimeInterval(120)) }
        #expect(rest.count == 1)
        #expect(rest[0].id != again[0].id)
        try store.write { try $0.record([DeliveryOutcome(id: rest[0].id, state: .sent, apnsID: "id-1", status: 200)], now: t0.addingTimeInterval(63)) }
        #expect(try store.write { try $0.nextDue() } == t0.addingTimeInterval(200))
        // A verdict for a row that is no longer sending (released meanwhile) changes nothing.
        try store.write { try $0.record([DeliveryOutcome(id: rest[0].id, state: .failed)], now: t0.addingTimeInterval(64)) }
        let rows = try store.write { try $0.deliveries(activityID: "a1", limit: 10) }
        #expect(rows.first { $0.id == rest[0].id }?.state == .sent)
        #expect(rows.first { $0.id == rest[0].id }?.apnsID == "id-1")
    }

    static func tokensRotateAndPruneOnlyTheSame(_ store: any Store) throws {
        try seed(store)
        try store.write { try $0.setActivityToken(TokenRecord(scope: "a1", deviceID: "d1", token: "token-new", registeredAt: t0.addingTimeInterval(5))) }
        #expect(try store.write { try $0.deleteActivityToken(activityID: "a1", deviceID: "d1", token: "token-d1") } == false)
        #expect(try store.write { try $0.activityTokens(activityID: "a1") }.first { $0.deviceID == "d1" }?.token == "token-new")
        #expect(try store.write { try $0.deleteActivityToken(activityID: "a1", deviceID: "d1", token: "token-new") } == true)
        #expect(try store.write { try $0.tokenCount() } == 1)
        // A fan-out reads each remaining token with its device.
        let targets = try store.write { try $0.activityTargets(activityID: "a1") }
        #expect(targets.map(\.token.deviceID) == ["d2"])
        #expect(targets.first?.device?.iosVersion == "18.2")
        #expect(try store.write { try $0.activityToken(activityID: "a1", deviceID: "d2") }?.token == "token-d2")
        #expect(try store.write { try $0.activityToken(activityID: "a1", deviceID: "d1") } == nil)
    }

    static func rollsBack(_ store: any Store) throws {
        try seed(store)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.write { tx in
                try tx.upsertDevice(DeviceRecord(deviceID: "d9", bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: t0))
                throw Refused()
            }
        }
        #expect(try store.write { try $0.device("d9") } == nil)
    }

    static func idempotencyAndInteractions(_ store: any Store) throws {
        try seed(store)
        let answer = IdempotentAnswer(requestHash: "h", status: 202, body: Array("{}".utf8))
        try store.write { try $0.saveIdempotentAnswer(keyID: "k", key: "i1", answer: answer, now: t0) }
        #expect(try store.write { try $0.idempotentAnswer(keyID: "k", key: "i1") } == answer)
        #expect(try store.write { try $0.idempotentAnswer(keyID: "other", key: "i1") } == nil)
        let (first, created) = try store.write { try $0.insertInteraction(activityID: "a1", deviceID: "d1", idempotencyKey: "tap-1", body: [1], now: t0) }
        let (second, createdAgain) = try store.write { try $0.insertInteraction(activityID: "a1", deviceID: "d1", idempotencyKey: "tap-1", body: [2], now: t0) }
        #expect(created && !createdAgain)
        #expect(first.id == second.id)
        #expect(try store.write { try $0.dueInteractions(now: t0, limit: 10) }.count == 1)
        try store.write { try $0.recordWebhook(id: first.id, state: "delivered", attempts: 1, nextAttemptAt: t0, error: nil) }
        #expect(try store.write { try $0.dueInteractions(now: t0, limit: 10) }.isEmpty)
    }
}

@Suite("Store contract: SQLite")
struct SQLiteStoreTests {
    func makeStore() throws -> (SQLiteStore, String) {
        let dir = NSTemporaryDirectory() + "liveline-store-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (try SQLiteStore(path: dir + "/test.db"), dir)
    }

    @Test func supersedes() throws { let (s, d) = try makeStore(); defer { s.close(); try? FileManager.default.removeItem(atPath: d) }; try StoreContract.supersedes(s) }
    @Test func claimsAndLeases() throws { let (s, d) = try makeStore(); defer { s.close(); try? FileManager.default.removeItem(atPath: d) }; try StoreContract.claimsAndLeases(s) }
    @Test func tokens() throws { let (s, d) = try makeStore(); defer { s.close(); try? FileManager.default.removeItem(atPath: d) }; try StoreContract.tokensRotateAndPruneOnlyTheSame(s) }
    @Test func rollsBack() throws { let (s, d) = try makeStore(); defer { s.close(); try? FileManager.default.removeItem(atPath: d) }; try StoreContract.rollsBack(s) }
    @Test func idempotency() throws { let (s, d) = try makeStore(); defer { s.close(); try? FileManager.default.removeItem(atPath: d) }; try StoreContract.idempotencyAndInteractions(s) }

    @Test("data survives reopening; the migrations run once")
    func reopen() throws {
        let (s, d) = try makeStore()
        defer { try? FileManager.default.removeItem(atPath: d) }
        try StoreContract.seed(s)
        s.close()
        let again = try SQLiteStore(path: d + "/test.db")
        defer { again.close() }
        #expect(try again.write { try $0.activityTokens(activityID: "a1") }.count == 2)
    }

    @Test("a second store on the same file is refused: one instance per SQLite file")
    func oneInstance() throws {
        let (s, d) = try makeStore()
        defer { s.close(); try? FileManager.default.removeItem(atPath: d) }
        try StoreContract.seed(s)
        do {
            let other = try SQLiteStore(path: d + "/test.db")
            other.close()
            Issue.record("a second store opened the file")
        } catch {
            #expect(error.message.contains("is in use by another process"))
            #expect(error.message.contains(d + "/test.db"))
        }
        // The first store still works.
        #expect(try s.write { try $0.activityTokens(activityID: "a1") }.count == 2)
    }

    @Test("a database in a missing directory is refused with its path")
    func missingDirectory() {
        do {
            _ = try SQLiteStore(path: "/nonexistent-dir-liveline/x.db")
            Issue.record("opened")
        } catch {
            #expect(error.message.contains("/nonexistent-dir-liveline/x.db"))
            #expect(error.isUnavailable)
        }
    }
}

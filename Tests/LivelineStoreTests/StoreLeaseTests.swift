import Foundation
import LivelineStore
import LivelineTesting
import Synchronization
import Testing

/// Issue #22's consistency operations, on every store: the activity's compare-and-set, rows given
/// back unsent, and the webhook's lease.
enum LeaseContract {
    static let t0 = StoreContract.t0

    static func activityCompareAndSet(_ store: any Store) throws {
        try StoreContract.seed(store)
        let read = try #require(try store.write { try $0.activity("a1") })
        var ended = read
        ended.endedAt = t0.addingTimeInterval(60)
        ended.lastTimestamp = t0.addingTimeInterval(60)
        #expect(try store.write { try $0.setActivityTimes(ended, ifStill: read) })
        // An update that read the activity before the end: its write must not land.
        var updated = read
        updated.lastTimestamp = t0.addingTimeInterval(30)
        #expect(try store.write { try $0.setActivityTimes(updated, ifStill: read) } == false)
        let now = try #require(try store.write { try $0.activity("a1") })
        #expect(now.endedAt == t0.addingTimeInterval(60))
        #expect(now.lastTimestamp == t0.addingTimeInterval(60))
        // From the state as it is now, a write lands.
        var later = now
        later.lastTimestamp = t0.addingTimeInterval(61)
        #expect(try store.write { try $0.setActivityTimes(later, ifStill: now) })
        #expect(try store.write { try $0.activity("a1") }?.lastTimestamp == t0.addingTimeInterval(61))
        // A missing activity is never written.
        var ghost = read
        ghost.activityID = "ghost"
        #expect(try store.write { try $0.setActivityTimes(ghost, ifStill: ghost) } == false)
    }

    static func unsentRowsGoBack(_ store: any Store) throws {
        try StoreContract.seed(store)
        _ = try StoreContract.update(store, devices: ["d1", "d2"], at: t0)
        let claimed = try store.write { try $0.claimDue(now: t0, limit: 10, leaseUntil: t0.addingTimeInterval(60)) }
        #expect(claimed.count == 2 && claimed.allSatisfy { $0.attempts == 1 })
        // A newer update for d1 waits while the old one is on the wire.
        _ = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(1))
        let changed = try store.write { try $0.releaseUnsent(claimed.map(\.id), reason: "shutdown: the client was shut down", nextAttemptAt: t0.addingTimeInterval(5), now: t0.addingTimeInterval(2)) }
        #expect(changed == 2)
        let rows = try store.write { try $0.deliveries(activityID: "a1", limit: 10) }
        let d1Old = try #require(rows.first { $0.id == claimed.first { $0.deviceID == "d1" }?.id })
        let d2 = try #require(rows.first { $0.id == claimed.first { $0.deviceID == "d2" }?.id })
        #expect(d1Old.state == .superseded, "\(d1Old)")
        #expect(d2.state == .retrying)
        #expect(d2.attempts == 0, "the claim's attempt is given back")
        #expect(d2.nextAttemptAt == t0.addingTimeInterval(5))
        #expect(d2.reason == "shutdown: the client was shut down")
        // Only rows still sending: given back twice changes nothing.
        #expect(try store.write { try $0.releaseUnsent([d2.id], reason: "again", nextAttemptAt: t0, now: t0) } == 0)
        #expect(try store.write { try $0.claimDue(now: t0.addingTimeInterval(4), limit: 10, leaseUntil: t0.addingTimeInterval(60)) }.map(\.deviceID) == ["d1"])
        let due = try store.write { try $0.claimDue(now: t0.addingTimeInterval(5), limit: 10, leaseUntil: t0.addingTimeInterval(60)) }
        #expect(due.map(\.id) == [d2.id] && due.first?.attempts == 1)
    }

    static func webhookLease(_ store: any Store) throws {
        try StoreContract.seed(store)
        for key in ["tap-1", "tap-2", "tap-3"] {
            _ = try store.write { try $0.insertInteraction(activityID: "a1", deviceID: "d1", idempotencyKey: key, body: [1], now: t0) }
        }
        let lease = t0.addingTimeInterval(60)
        let a = try store.write { try $0.claimWebhooks(by: "instance-a", now: t0, limit: 2, leaseUntil: lease) }
        #expect(a.map(\.idempotencyKey) == ["tap-1", "tap-2"])
        #expect(a.allSatisfy { $0.attempts == 1 })
        let b = try store.write { try $0.claimWebhooks(by: "instance-b", now: t0.addingTimeInterval(1), limit: 10, leaseUntil: lease) }
        #expect(b.map(\.idempotencyKey) == ["tap-3"], "a leased interaction was claimed again")
        #expect(try store.write { try $0.claimWebhooks(by: "instance-c", now: t0.addingTimeInterval(2), limit: 10, leaseUntil: lease) }.isEmpty)
        // b started again under its name (SQLite's one instance after a crash) takes back what it held.
        let bAgain = try store.write { try $0.claimWebhooks(by: "instance-b", now: t0.addingTimeInterval(3), limit: 10, leaseUntil: lease) }
        #expect(bAgain.map(\.idempotencyKey) == ["tap-3"])
        #expect(bAgain.first?.attempts == 2)
        // a delivers tap-1; tap-2's lease lapses (a crashed) and c takes it over.
        #expect(try store.write { try $0.completeWebhook(id: a[0].id, claimant: "instance-a", state: "delivered", nextAttemptAt: t0, error: nil) })
        let c = try store.write { try $0.claimWebhooks(by: "instance-c", now: t0.addingTimeInterval(61), limit: 10, leaseUntil: t0.addingTimeInterval(120)) }
        #expect(c.map(\.idempotencyKey) == ["tap-2", "tap-3"])
        #expect(c.first?.attempts == 2, "the lapsed claim counted an attempt")
        #expect(c.last?.attempts == 3)
        // a comes back late: its completion of tap-2 is refused; c's lands.
        #expect(try store.write { try $0.completeWebhook(id: a[1].id, claimant: "instance-a", state: "delivered", nextAttemptAt: t0, error: nil) } == false)
        #expect(try store.write { try $0.completeWebhook(id: c[0].id, claimant: "instance-c", state: "pending", nextAttemptAt: t0.addingTimeInterval(200), error: "the webhook answered 503") })
        #expect(try store.write { try $0.completeWebhook(id: c[1].id, claimant: "instance-c", state: "delivered", nextAttemptAt: t0, error: nil) })
        let all = try store.write { try $0.interactions(activityID: "a1", limit: 10) }
        #expect(all.map(\.webhookState) == ["delivered", "pending", "delivered"])
        #expect(all[1].lastError == "the webhook answered 503")
        // Completed, the lease is over: due again at its next attempt, not before.
        #expect(try store.write { try $0.claimWebhooks(by: "instance-a", now: t0.addingTimeInterval(199), limit: 10, leaseUntil: t0.addingTimeInterval(300)) }.isEmpty)
        #expect(try store.write { try $0.claimWebhooks(by: "instance-a", now: t0.addingTimeInterval(200), limit: 10, leaseUntil: t0.addingTimeInterval(300)) }.map(\.idempotencyKey) == ["tap-2"])
    }
}

@Suite("Store consistency: compare-and-set, unsent rows, the webhook's lease")
struct StoreLeaseTests {
    @Test(arguments: StoreKind.all) func activityCompareAndSet(_ kind: StoreKind) throws { try kind.withStore(LeaseContract.activityCompareAndSet) }
    @Test(arguments: StoreKind.all) func unsentRowsGoBack(_ kind: StoreKind) throws { try kind.withStore(LeaseContract.unsentRowsGoBack) }
    @Test(arguments: StoreKind.all) func webhookLease(_ kind: StoreKind) throws { try kind.withStore(LeaseContract.webhookLease) }

    @Test("four PostgreSQL connections claiming 200 interactions at once each get disjoint ones", .enabled(if: TestPostgres.runs))
    func concurrentClaimsOnPostgres() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let stores = try (0..<4).map { _ in try PostgresStore(url: database.url()) }
        defer { for s in stores { s.close() } }
        try StoreContract.seed(stores[0])
        try stores[0].write { tx in
            for i in 0..<200 { _ = try tx.insertInteraction(activityID: "a1", deviceID: "d1", idempotencyKey: "tap-\(i)", body: [1], now: StoreContract.t0) }
        }
        let claimed = Mutex([String: [Int64]]())
        let failures = Mutex([String]())
        DispatchQueue.concurrentPerform(iterations: stores.count) { i in
            let name = "instance-\(i)"
            do {
                while true {
                    let got = try stores[i].write { try $0.claimWebhooks(by: name, now: StoreContract.t0, limit: 7, leaseUntil: StoreContract.t0.addingTimeInterval(60)) }
                    if got.isEmpty { break }
                    claimed.withLock { $0[name, default: []] += got.map(\.id) }
                    // Delivered, as the sender records each before it claims again.
                    for interaction in got {
                        let kept = try stores[i].write { try $0.completeWebhook(id: interaction.id, claimant: name, state: "delivered", nextAttemptAt: StoreContract.t0, error: nil) }
                        if !kept { failures.withLock { $0.append("\(name) lost its claim of \(interaction.id)") } }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(name): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let all = claimed.withLock { $0.values.flatMap { $0 } }
        #expect(all.count == 200, "\(all.count) claims of 200 interactions")
        #expect(Set(all).count == all.count, "an interaction was claimed by two instances")
    }
}

import Dispatch
import Foundation
import LivelinePostgres
import LivelineStore
import LivelineTesting
import Synchronization
import Testing

/// A value shared by the threads of one test.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// What only a shared store must do: several instances on one database, leases across instances,
/// migrations at once, a lost connection, and never a password in what it prints.
@Suite("PostgreSQL store: several instances on one database", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct PostgresStoreTests {
    static let t0 = StoreContract.t0

    /// `count` queued updates, one per device, on a fresh database.
    static func queued(_ count: Int, in store: PostgresStore) throws -> [Int64] {
        try StoreContract.seed(store)
        _ = try StoreContract.update(store, devices: (0..<count).map { "dev-\($0)" }, at: t0)
        return try store.write { try $0.deliveries(activityID: "a1", limit: count) }.map(\.id).sorted()
    }

    @Test("two stores claiming at once get disjoint rows, and every row exactly once")
    func disjointClaims() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let stores = [try PostgresStore(url: database.url()), try PostgresStore(url: database.url())]
        defer { stores.forEach { $0.close() } }
        let all = try Self.queued(300, in: stores[0])
        let claimed = Locked<[[DeliveryRecord]]>([[], []])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do {
                while true {
                    let rows = try stores[i].write { try $0.claimDue(now: Self.t0, limit: 7, leaseUntil: Self.t0.addingTimeInterval(60)) }
                    if rows.isEmpty { break }
                    claimed.withLock { $0[i] += rows }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let (a, b) = claimed.withLock { ($0[0], $0[1]) }
        #expect(Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
        #expect((a + b).map(\.id).sorted() == all)
        #expect((a + b).allSatisfy { $0.attempts == 1 && $0.state == .sending })
    }

    @Test("rows another instance is claiming are skipped, not waited for (FOR UPDATE SKIP LOCKED)")
    func skipsLockedRows() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let first = try PostgresStore(url: database.url())
        let second = try PostgresStore(url: database.url())
        defer { first.close(); second.close() }
        let all = try Self.queued(20, in: first)
        let firstClaimed = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let firstFinished = DispatchSemaphore(value: 0)
        let firstRows = Locked<[Int64]>([])
        let firstOpen = Locked(false)
        DispatchQueue.global().async {
            _ = try? first.write { tx in
                let rows = try tx.claimDue(now: Self.t0, limit: 5, leaseUntil: Self.t0.addingTimeInterval(60))
                firstRows.withLock { $0 = rows.map(\.id) }
                firstOpen.withLock { $0 = true }
                firstClaimed.signal()
                // Holds its transaction (and the row locks) until the second store has claimed; a
                // store that waited for the locks would be stuck until this times out.
                _ = secondDone.wait(timeout: .now() + 20)
                firstOpen.withLock { $0 = false }
            }
            firstFinished.signal()
        }
        try firstClaimed.wait(within: .seconds(20), "the first store to claim its rows")
        let rows = try second.write { try $0.claimDue(now: Self.t0, limit: 100, leaseUntil: Self.t0.addingTimeInterval(60)) }
        let claimedWhileLocked = firstOpen.withLock { $0 }
        secondDone.signal()
        try firstFinished.wait(within: .seconds(40), "the first store's transaction to end")
        #expect(claimedWhileLocked, "the second store waited for the first one's transaction")
        let held = firstRows.withLock { $0 }
        #expect(held.count == 5)
        #expect(Set(rows.map(\.id)).isDisjoint(with: held))
        #expect((rows.map(\.id) + held).sorted() == all)
    }

    @Test("an instance that dies mid-send leaves its rows leased; another finishes them once the lease expires")
    func expiredLeaseFinishedByTheOther() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let dead = try PostgresStore(url: database.url())
        let alive = try PostgresStore(url: database.url())
        defer { alive.close() }
        let all = try Self.queued(3, in: dead)
        #expect(try dead.write { try $0.claimDue(now: Self.t0, limit: 10, leaseUntil: Self.t0.addingTimeInterval(60)) }.count == 3)
        dead.close()
        // Within the lease the rows are the dead instance's: nothing to release, nothing to claim.
        let early = try alive.write { tx in
            (try tx.releaseExpiredLeases(now: Self.t0.addingTimeInterval(30)), try tx.claimDue(now: Self.t0.addingTimeInterval(30), limit: 10, leaseUntil: Self.t0.addingTimeInterval(90)))
        }
        #expect(early.0 == 0 && early.1.isEmpty)
        let late = try alive.write { tx in
            (try tx.releaseExpiredLeases(now: Self.t0.addingTimeInterval(61)), try tx.claimDue(now: Self.t0.addingTimeInterval(61), limit: 10, leaseUntil: Self.t0.addingTimeInterval(120)))
        }
        #expect(late.0 == 3)
        #expect(late.1.map(\.id) == all)
        #expect(late.1.allSatisfy { $0.attempts == 2 })
        try alive.write { try $0.record(late.1.map { DeliveryOutcome(id: $0.id, state: .sent, apnsID: "apns-\($0.id)", status: 200) }, now: Self.t0.addingTimeInterval(62)) }
        #expect(try alive.write { try $0.deliveryCounts(activityID: "a1") } == [.sent: 3])
    }

    @Test("a store observing shared work wakes when another store queues a send")
    func wakesOnOthersWork() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let accepting = try PostgresStore(url: database.url())
        let sending = try PostgresStore(url: database.url())
        defer { accepting.close(); sending.close() }
        try StoreContract.seed(accepting)
        let woken = DispatchSemaphore(value: 0)
        #expect(sending.observeSharedWork { woken.signal() })
        _ = try StoreContract.update(accepting, devices: ["d1"], at: Self.t0)
        #expect(woken.wait(timeout: .now() + 20) == .success)
        // A write that queues nothing wakes nobody.
        try accepting.write { try $0.upsertDevice(DeviceRecord(deviceID: "d7", bundleID: "b", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: Self.t0)) }
        #expect(woken.wait(timeout: .now() + 0.5) == .timedOut)
    }

    @Test("four instances migrating one empty database at once: all start, the migrations run once")
    func concurrentMigrations() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let failures = Locked<[String]>([])
        let ready = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<4 {
            ready.enter()
            done.enter()
            DispatchQueue.global().async {
                ready.leave()
                do {
                    try go.wait(within: .seconds(20), "the signal to migrate")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                    done.leave()
                    return
                }
                do {
                    let store = try PostgresStore(url: database.url())
                    store.close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }
        }
        try ready.wait(within: .seconds(20), "the four migrating threads to start")
        for _ in 0..<4 { go.signal() }
        try done.wait(within: .seconds(60), "the four stores to migrate and close")
        #expect(failures.withLock { $0 } == [])
        let admin = try PostgresConnection(database.url())
        defer { admin.close() }
        let recorded = try admin.query("SELECT version, name FROM schema_migrations ORDER BY version")
        // Each migration recorded once, in order: one row per version the code knows.
        #expect(recorded.map { "\($0.int("version") ?? 0) \($0.string("name") ?? "")" } == PostgresStore.migrationNames.enumerated().map { "\($0.offset + 1) \($0.element)" })
        // The released steps first, in order; this session's steps after them, in order.
        #expect(recorded.count == PostgresStore.migrationNames.count
                && PostgresStore.migrationNames.prefix(5) == ["1-registry", "2-outbox", "3-outbox-without-in-lists", "4-installations", "5-key-lifecycle"]
                && PostgresStore.migrationNames.dropFirst(5).map { Int($0.prefix { $0.isNumber }) ?? 0 } == PostgresStore.migrationNames.dropFirst(5).map { Int($0.prefix { $0.isNumber }) ?? 0 }.sorted()
                && ["6-token-environment", "7-activity-status", "9-webhook-lease", "10-app-builds"].allSatisfy(PostgresStore.migrationNames.contains))
        #expect(PostgresStore.migrationNames == SQLiteStore.migrationNames)
    }

    @Test("the password is in neither the location nor any error")
    func passwordNeverShown() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let password = "pw-7f3a9c-secret"
        let store = try PostgresStore(url: database.url(password: password))
        defer { store.close() }
        #expect(!store.location.contains(password))
        #expect(store.location.contains(":***@"))
        #expect(store.location.contains(database.name))
        // A database that does not exist: unavailable, naming the redacted URL.
        let missing = database.url(password: password).replacingOccurrences(of: database.name, with: database.name + "_missing")
        do {
            let other = try PostgresStore(url: missing)
            other.close()
            Issue.record("connected to a database that does not exist")
        } catch {
            #expect(error.isUnavailable)
            #expect(error.message.contains(database.name + "_missing"))
            #expect(error.message.contains("***"))
            #expect(!error.message.contains(password))
        }
        // The password as a query parameter.
        let query = database.url() + "&password=" + password
        let third = try PostgresStore(url: query)
        defer { third.close() }
        #expect(!third.location.contains(password))
        #expect(third.location.contains("password=***"))
    }

    @Test("a lost connection is answered as unavailable, and the next write reconnects")
    func lostConnection() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let store = try PostgresStore(url: database.url())
        defer { store.close() }
        try StoreContract.seed(store)
        try database.terminateConnections()
        do {
            _ = try store.write { try $0.keyCount() }
            Issue.record("a write on a terminated connection succeeded")
        } catch let error as StoreError {
            #expect(error.isUnavailable)
            #expect(error.message.contains("was lost"), "\(error.message)")
        }
        #expect(try store.write { try $0.activityTokens(activityID: "a1") }.count == 2)
        // Lost in the middle of a transaction: nothing of it is kept, nothing after runs outside it.
        do {
            try store.write { tx in
                try tx.upsertDevice(DeviceRecord(deviceID: "d9", bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: Self.t0))
                try database.terminateConnections()
                try tx.upsertDevice(DeviceRecord(deviceID: "d10", bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: Self.t0))
            }
            Issue.record("a transaction on a terminated connection committed")
        } catch let error as StoreError {
            #expect(error.isUnavailable)
        }
        #expect(try store.write { try $0.device("d9") } == nil)
        #expect(try store.write { try $0.device("d10") } == nil)
    }
}

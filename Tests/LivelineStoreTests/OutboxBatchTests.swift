import Foundation
@testable import LivelineStore
import LivelineSQLite
import Testing

/// The outbox's fan-out paths on every store: many rows a statement, one query for what they
/// replace and for the budget; and SQLite's schema, whose per-row checks build no temporary tables.
@Suite("Outbox fan-out")
struct OutboxBatchTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func deliveries(_ devices: Range<Int>, priority: Int = 10) -> [NewDelivery] {
        devices.map { NewDelivery(deviceID: "d\($0)", target: .token, token: "token-\($0)", priority: priority, note: $0 % 7 == 0 ? "note \($0)" : nil, notBefore: t0) }
    }

    static func send(_ store: any Store, _ deliveries: [NewDelivery], event: String = "update", at: Date = t0) throws -> (id: Int64, superseded: Int) {
        try store.write { tx in
            try tx.insertSend(SendRecord(activityID: "a1", event: event, bundleID: "com.example.flights", body: Array("{}".utf8), createdAt: at), deliveries: deliveries, now: at)
        }
    }

    @Test("a fan-out of 150 rows stores every row with its own fields", arguments: StoreKind.all)
    func manyRowsAStatement(_ kind: StoreKind) throws {
        try kind.withStore { store in
            let sent = Self.deliveries(0..<150)
            _ = try Self.send(store, sent)
            let rows = try store.write { try $0.deliveries(activityID: "a1", limit: 1000) }
            #expect(rows.count == 150)
            let byDevice = Dictionary(uniqueKeysWithValues: rows.map { ($0.deviceID ?? "", $0) })
            for d in sent {
                let row = try #require(byDevice[d.deviceID ?? ""])
                #expect(row.token == d.token && row.note == d.note && row.priority == 10 && row.state == .queued && row.event == "update")
            }
            #expect(Set(rows.map(\.id)).count == 150)
        }
    }

    @Test("an update supersedes only the waiting updates of the devices it goes to", arguments: StoreKind.all)
    func supersedesOnlyItsDevices(_ kind: StoreKind) throws {
        try kind.withStore { store in
            _ = try Self.send(store, Self.deliveries(0..<100))
            // A start is not an update: it is never superseded.
            _ = try store.write { tx in
                try tx.insertSend(SendRecord(activityID: "a1", event: "start", bundleID: "com.example.flights", body: [], createdAt: Self.t0),
                                  deliveries: [NewDelivery(deviceID: "d5", target: .pushToStart, token: "pts", priority: 10, notBefore: Self.t0)], now: Self.t0)
            }
            let second = try Self.send(store, Self.deliveries(50..<120), at: Self.t0.addingTimeInterval(1))
            #expect(second.superseded == 50)
            let counts = try store.write { try $0.deliveryCounts(activityID: "a1") }
            #expect(counts[.superseded] == 50)
            #expect(counts[.queued] == 50 + 70 + 1)
        }
    }

    @Test("budget counts for every device in one query match the per-device count", arguments: StoreKind.all)
    func immediateCountsMatch(_ kind: StoreKind) throws {
        try kind.withStore { store in
            _ = try Self.send(store, Self.deliveries(0..<10))
            _ = try Self.send(store, Self.deliveries(0..<5, priority: 5), at: Self.t0.addingTimeInterval(1))  // supersedes d0–d4's first row
            _ = try Self.send(store, Self.deliveries(3..<8), at: Self.t0.addingTimeInterval(2))
            let since = Self.t0.addingTimeInterval(-3600)
            let counts = try store.write { try $0.immediateCounts(activityID: "a1", since: since) }
            for i in 0..<10 {
                let one = try store.write { try $0.immediateCount(activityID: "a1", deviceID: "d\(i)", since: since) }
                #expect((counts["d\(i)"] ?? 0) == one, "device d\(i)")
            }
            #expect(counts["d9"] == 1 && counts["d0"] == nil && counts["d3"] == 1)
        }
    }

    @Test("150 verdicts recorded at once: each row gets its own; a row no longer sending keeps its state", arguments: StoreKind.all)
    func recordsManyVerdicts(_ kind: StoreKind) throws {
        try kind.withStore { store in
            _ = try Self.send(store, Self.deliveries(0..<150))
            // One row on a short lease, the rest on a long one.
            let short = try store.write { try $0.claimDue(now: Self.t0, limit: 1, leaseUntil: Self.t0.addingTimeInterval(10)) }
            let long = try store.write { try $0.claimDue(now: Self.t0, limit: 1000, leaseUntil: Self.t0.addingTimeInterval(600)) }
            let claimed = short + long
            #expect(claimed.count == 150)
            // The short lease ran out and its row went back to the queue before its verdict came.
            let released = short[0]
            #expect(try store.write { tx in try tx.releaseExpiredLeases(now: Self.t0.addingTimeInterval(11)) } == 1)
            let later = Self.t0.addingTimeInterval(300)
            let outcomes = claimed.enumerated().map { i, row -> DeliveryOutcome in
                switch i % 3 {
                case 0: DeliveryOutcome(id: row.id, state: .sent, apnsID: "apns-\(i)", status: 200)
                case 1: DeliveryOutcome(id: row.id, state: .retrying, status: 503, reason: "ServiceUnavailable", nextAttemptAt: later)
                default: DeliveryOutcome(id: row.id, state: .failed, status: 400, reason: "BadTopic \(i)")
                }
            }
            try store.write { try $0.record(outcomes, now: Self.t0.addingTimeInterval(62)) }
            let rows = Dictionary(uniqueKeysWithValues: try store.write { try $0.deliveries(activityID: "a1", limit: 1000) }.map { ($0.id, $0) })
            for (i, row) in claimed.enumerated() {
                let stored = try #require(rows[row.id])
                if row.id == released.id {
                    #expect(stored.state == .queued && stored.apnsID == nil)
                    continue
                }
                switch i % 3 {
                case 0: #expect(stored.state == .sent && stored.apnsID == "apns-\(i)" && stored.status == 200)
                case 1: #expect(stored.state == .retrying && stored.reason == "ServiceUnavailable" && stored.nextAttemptAt == later)
                default: #expect(stored.state == .failed && stored.reason == "BadTopic \(i)" && stored.status == 400)
                }
            }
        }
    }

    @Test("recording a verdict builds no temporary table, and the waiting count uses its index")
    func schemaHasNoPerRowTemporaryTables() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.migrate(Migrations.sqlite)
        let record = try db.query("EXPLAIN UPDATE outbox SET state = ?, apns_id = coalesce(?, apns_id), status = ?, reason = ?, lease_until = NULL, updated_at = ? WHERE id = ? AND state = 'sending'",
                                  [.text("sent"), .null, .integer(200), .null, .real(0), .integer(1)])
        #expect(!record.contains { $0.string("opcode") == "OpenEphemeral" })
        let insert = try db.query("EXPLAIN INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, note, state, next_attempt_at, created_at, updated_at) VALUES (1, 'a', 'update', 'd', 'token', 't', 10, NULL, 'queued', 0, 0, 0)")
        #expect(!insert.contains { $0.string("opcode") == "OpenEphemeral" })
        let plan = try db.query("EXPLAIN QUERY PLAN SELECT count(*) FROM outbox WHERE activity_id = ? AND \(SQLDialect.sqlite.waitingCondition)", [.text("a")])
        #expect(plan.contains { ($0.string("detail") ?? "").contains("outbox_waiting_by_activity") })
    }

    @Test("migration 3 keeps the outbox's rows and their states")
    func migrationKeepsRows() throws {
        let db = try SQLiteDatabase(path: ":memory:")
        try db.migrate(Array(Migrations.sqlite.prefix(2)))
        try db.run("INSERT INTO sends (id, activity_id, event, bundle_id, body, created_at) VALUES (1, 'a', 'update', 'b', x'7b7d', 1)")
        for (i, state) in ["queued", "sending", "sent", "superseded"].enumerated() {
            try db.run("INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, state, attempts, next_attempt_at, apns_id, created_at, updated_at) VALUES (1, 'a', 'update', ?, 'token', ?, 10, ?, 2, 5, 'apns', 1, 1)",
                       [.text("d\(i)"), .text("t\(i)"), .text(state)])
        }
        let applied = try db.migrate(Array(Migrations.sqlite.prefix(3)))
        #expect(applied == ["3-outbox-without-in-lists"])
        let rows = try db.query("SELECT device_id, state, attempts, apns_id FROM outbox ORDER BY id")
        #expect(rows.map { $0.string("state") ?? "" } == ["queued", "sending", "sent", "superseded"])
        #expect(rows.allSatisfy { $0.int("attempts") == 2 && $0.string("apns_id") == "apns" })
        // The rebuilt table still refuses a state that does not exist.
        #expect(throws: SQLiteError.self) {
            try db.run("UPDATE outbox SET state = 'lost' WHERE device_id = 'd0'")
        }
    }
}

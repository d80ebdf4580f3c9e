import Foundation
import LivelineStore
import LivelineTesting
import Testing

/// The budget ledger's store half and coalescing on the wire (migration 8-budget-ledger), on
/// every store (`StoreKind.all`: SQLite, and PostgreSQL under scripts/with-postgres.sh).
enum BudgetStoreContract {
    static let t0 = StoreContract.t0

    /// An update to a token fails transiently while a newer one for the same device waits: the
    /// verdict is recorded (the batch is not refused by the one-waiting-update index) and the old
    /// row ends superseded, naming the failure; the other verdicts of the batch are kept.
    static func retryUnderANewerUpdate(_ store: any Store) throws {
        try StoreContract.seed(store)
        _ = try StoreContract.update(store, devices: ["d1", "d2"], at: t0)
        let wire = try store.write { try $0.claimDue(now: t0, limit: 10, leaseUntil: t0.addingTimeInterval(60)) }
        #expect(wire.count == 2)
        let second = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(1))
        let oldD1 = try #require(wire.first { $0.deviceID == "d1" }), oldD2 = try #require(wire.first { $0.deviceID == "d2" })
        try store.write { tx in
            try tx.record([DeliveryOutcome(id: oldD1.id, state: .retrying, status: 503, reason: "ServiceUnavailable", nextAttemptAt: t0.addingTimeInterval(5)),
                           DeliveryOutcome(id: oldD2.id, state: .sent, apnsID: "A-2", status: 200)], now: t0.addingTimeInterval(2))
        }
        let rows = try store.write { try $0.deliveries(activityID: "a1", limit: 10) }
        let d1 = try #require(rows.first { $0.id == oldD1.id })
        #expect(d1.state == .superseded)
        #expect(d1.reason?.contains("a newer update replaced it") == true && d1.reason?.contains("ServiceUnavailable") == true, "\(d1.reason ?? "")")
        #expect(rows.first { $0.id == oldD2.id }?.state == .sent)
        #expect(rows.first { $0.sendID == second.id }?.state == .queued)

        // Both updates for d1 on the wire, both failing: the older is superseded, the newer retries.
        let claimed = try store.write { try $0.claimDue(now: t0.addingTimeInterval(3), limit: 10, leaseUntil: t0.addingTimeInterval(60)) }
        let third = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(4))
        let thirdRow = try #require(try store.write { try $0.claimDue(now: t0.addingTimeInterval(4), limit: 10, leaseUntil: t0.addingTimeInterval(60)) }.first)
        #expect(thirdRow.sendID == third.id)
        let secondRow = try #require(claimed.first { $0.sendID == second.id })
        try store.write { tx in
            try tx.record([DeliveryOutcome(id: thirdRow.id, state: .retrying, reason: "timeout", nextAttemptAt: t0.addingTimeInterval(9)),
                           DeliveryOutcome(id: secondRow.id, state: .retrying, reason: "timeout", nextAttemptAt: t0.addingTimeInterval(9))], now: t0.addingTimeInterval(5))
        }
        let after = try store.write { try $0.deliveries(activityID: "a1", limit: 10) }
        #expect(after.first { $0.id == secondRow.id }?.state == .superseded)
        #expect(after.first { $0.id == thirdRow.id }?.state == .retrying)
    }

    /// Broadcast charges count in `immediateCount(s)`; the holders of a channel; a device's ledger lines.
    static func ledger(_ store: any Store) throws {
        try StoreContract.seed(store)
        try store.write { tx in
            try tx.upsertDevice(DeviceRecord(deviceID: "d3", bundleID: "com.example.flights", iosVersion: "18.2", userID: nil, frequentUpdates: true, updatedAt: t0))
            try tx.upsertActivity(ActivityRecord(activityID: "on-ch", bundleID: "com.example.flights", attributesType: "FlightAttributes", channelID: "ch-1", startedAt: t0))
            try tx.upsertActivity(ActivityRecord(activityID: "ended", bundleID: "com.example.flights", attributesType: "FlightAttributes", channelID: "ch-1",
                                                 startedAt: t0, endedAt: t0.addingTimeInterval(1)))
            try tx.setActivityToken(TokenRecord(scope: "ended", deviceID: "d1", token: "tok-ended", registeredAt: t0))
            try tx.setActivityToken(TokenRecord(scope: "on-ch", deviceID: "d1", token: "tok-on-ch", registeredAt: t0))
            // d3 was push-started on the channel (no update token); d2's start before this run does not count.
            _ = try tx.insertSend(SendRecord(activityID: "on-ch", event: "start", bundleID: "com.example.flights", body: [], createdAt: t0),
                                  deliveries: [NewDelivery(deviceID: "d3", target: .pushToStart, token: "pts-d3", priority: 10, notBefore: t0)], now: t0)
            _ = try tx.insertSend(SendRecord(activityID: "on-ch", event: "start", bundleID: "com.example.flights", body: [], createdAt: t0),
                                  deliveries: [NewDelivery(deviceID: "d2", target: .pushToStart, token: "pts-d2", priority: 10, notBefore: t0)], now: t0.addingTimeInterval(-10))
        }
        let holders = try store.write { try $0.channelHolders(channelID: "ch-1", now: t0.addingTimeInterval(5)) }
        #expect(holders.map { "\($0.activityID) \($0.device.deviceID)" } == ["on-ch d1", "on-ch d3"])
        #expect(holders.last?.device.frequentUpdates == true)

        let broadcast = try store.write { tx in
            try tx.insertSend(SendRecord(activityID: "on-ch", event: "update", bundleID: "com.example.flights", body: [], createdAt: t0),
                              deliveries: [NewDelivery(deviceID: nil, target: .channel, token: "ch-1", priority: 10, notBefore: t0)], now: t0.addingTimeInterval(6))
        }
        try store.write { tx in
            try tx.insertBudgetCharges(holders.map { BudgetCharge(sendID: broadcast.id, activityID: $0.activityID, deviceID: $0.device.deviceID, kind: .immediate, via: .channel, createdAt: t0.addingTimeInterval(6)) }
                                       + [BudgetCharge(sendID: broadcast.id, activityID: "on-ch", deviceID: "d3", kind: .lowered, via: .channel, note: "why", createdAt: t0.addingTimeInterval(7))])
        }
        #expect(try store.write { try $0.immediateCount(activityID: "on-ch", deviceID: "d3", since: t0) } == 1)
        #expect(try store.write { try $0.immediateCounts(activityID: "on-ch", since: t0) } == ["d1": 1, "d3": 1])
        #expect(try store.write { try $0.immediateCounts(activityID: "on-ch", since: t0.addingTimeInterval(7)) } == [:])

        // d1: one token update (a1) coalesced by a newer one, and the broadcast.
        _ = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(8))
        _ = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(9))
        let lines = try store.write { try $0.budgetEntries(deviceID: "d1", immediateSince: t0, startSince: t0, limit: 10) }
        #expect(lines.filter { $0.kind == .immediate }.map { "\($0.activityID) \($0.via ?? "")" }.sorted() == ["a1 token", "on-ch channel"])
        let coalesced = lines.filter { $0.kind == .coalesced }
        #expect(coalesced.count == 1 && coalesced.first?.activityID == "a1" && coalesced.first?.note == "a newer update replaced it")
        let d3 = try store.write { try $0.budgetEntries(deviceID: "d3", immediateSince: t0, startSince: t0, limit: 10) }
        #expect(d3.filter { $0.kind == .start }.map(\.activityID) == ["on-ch"])
        #expect(d3.filter { $0.kind == .lowered }.map(\.note) == ["why"])
        // Outside the windows nothing is listed.
        #expect(try store.write { try $0.budgetEntries(deviceID: "d3", immediateSince: t0.addingTimeInterval(100), startSince: t0.addingTimeInterval(100), limit: 10) }.isEmpty)
    }
}

@Suite("Store: budget ledger and coalescing on the wire, every store")
struct BudgetStoreTests {
    @Test("a retry under a newer update for the same device is coalesced (superseded, with the reason), not a refused batch", arguments: StoreKind.all)
    func retryUnderANewerUpdate(_ kind: StoreKind) throws { try kind.withStore(BudgetStoreContract.retryUnderANewerUpdate) }
    @Test("broadcast charges, channel holders and a device's ledger lines", arguments: StoreKind.all)
    func ledger(_ kind: StoreKind) throws { try kind.withStore(BudgetStoreContract.ledger) }
}

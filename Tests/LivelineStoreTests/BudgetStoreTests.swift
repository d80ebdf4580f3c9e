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

    /// Who follows a channel and what each spent (token rows and the activity's broadcasts since the
    /// device joined it); a device's ledger lines.
    static func ledger(_ store: any Store) throws {
        try StoreContract.seed(store)
        let flights = "com.example.flights"
        try store.write { tx in
            try tx.upsertDevice(DeviceRecord(deviceID: "d3", bundleID: flights, iosVersion: "18.2", userID: nil, frequentUpdates: true, updatedAt: t0))
            try tx.upsertDevice(DeviceRecord(deviceID: "old", bundleID: flights, iosVersion: "17.5", userID: nil, frequentUpdates: false, updatedAt: t0))
            try tx.upsertActivity(ActivityRecord(activityID: "on-ch", bundleID: flights, attributesType: "FlightAttributes", channelID: "ch-1", startedAt: t0))
            try tx.upsertActivity(ActivityRecord(activityID: "ended", bundleID: flights, attributesType: "FlightAttributes", channelID: "ch-1",
                                                 startedAt: t0, endedAt: t0.addingTimeInterval(1)))
            try tx.setActivityToken(TokenRecord(scope: "ended", deviceID: "d1", token: "tok-ended", registeredAt: t0))
            try tx.setActivityToken(TokenRecord(scope: "on-ch", deviceID: "d1", token: "tok-on-ch", registeredAt: t0))
            // d3 was push-started on the channel (no update token), "old" too (iOS 17: tokens, not the channel);
            // d2's start belongs to an earlier run of the activity.
            for (device, at) in [("d3", t0), ("old", t0), ("d2", t0.addingTimeInterval(-10))] {
                _ = try tx.insertSend(SendRecord(activityID: "on-ch", event: "start", bundleID: flights, body: [], createdAt: at),
                                      deliveries: [NewDelivery(deviceID: device, target: .pushToStart, token: "pts-\(device)", priority: 10, notBefore: at)], now: at)
            }
        }
        func use(_ budget: Int, at: TimeInterval = 20) throws -> ChannelBudgetUse {
            try store.write { try $0.channelBudgetUse(channelID: "ch-1", now: t0.addingTimeInterval(at), since: t0, budget: budget, frequentBudget: budget + 1, limit: 10) }
        }
        func broadcast(_ kind: BudgetCharge.Kind, at: TimeInterval, note: String? = nil) throws {
            try store.write { tx in
                let id = try tx.insertSend(SendRecord(activityID: "on-ch", event: "update", bundleID: flights, body: [], createdAt: t0),
                                           deliveries: [NewDelivery(deviceID: nil, target: .channel, token: "ch-1", priority: kind == .immediate ? 10 : 5, notBefore: t0)],
                                           now: t0.addingTimeInterval(at)).id
                try tx.insertBroadcastCharges(sendID: id, channelID: "ch-1", kind: kind, note: note, now: t0.addingTimeInterval(at))
            }
        }
        // Nobody has spent anything: nobody is over a budget of 1.
        #expect(try use(1) == ChannelBudgetUse(holders: 0, overBudgetCount: 0, overBudget: []))
        try broadcast(.immediate, at: 6)
        // One broadcast: d1 (budget 1) is over, d3 (frequent: 2) is not; "old" and the ended activity do not count.
        #expect(try use(1) == ChannelBudgetUse(holders: 2, overBudgetCount: 1, overBudget: [.init(activityID: "on-ch", deviceID: "d1", spent: 1, budget: 1)]))
        // A device that joined after a broadcast did not receive it.
        try store.write { tx in
            try tx.upsertDevice(DeviceRecord(deviceID: "late", bundleID: flights, iosVersion: "18.4", userID: nil, frequentUpdates: false, updatedAt: t0))
            try tx.setActivityToken(TokenRecord(scope: "on-ch", deviceID: "late", token: "tok-late", registeredAt: t0.addingTimeInterval(7)))
        }
        #expect(try use(1).overBudget.map(\.deviceID) == ["d1"])
        #expect(try use(1).holders == 3)
        try broadcast(.lowered, at: 8, note: "why")
        // Lowered broadcasts spend nothing; outside the hour nothing counts.
        #expect(try use(1).overBudget.map(\.deviceID) == ["d1"])
        #expect(try store.write { try $0.channelBudgetUse(channelID: "ch-1", now: t0.addingTimeInterval(20), since: t0.addingTimeInterval(7), budget: 1, frequentBudget: 1, limit: 10) }.overBudgetCount == 0)

        // d1: a token update (a1) coalesced by a newer one, and the channel's broadcasts.
        _ = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(9))
        _ = try StoreContract.update(store, devices: ["d1"], at: t0.addingTimeInterval(10))
        let lines = try store.write { try $0.budgetEntries(deviceID: "d1", followsChannels: true, immediateSince: t0, startSince: t0, limit: 10) }
        #expect(lines.filter { $0.kind == .immediate }.map { "\($0.activityID) \($0.via ?? "")" }.sorted() == ["a1 token", "on-ch channel"])
        #expect(lines.filter { $0.kind == .lowered }.map { "\($0.activityID) \($0.note ?? "")" } == ["on-ch why"])
        let coalesced = lines.filter { $0.kind == .coalesced }
        #expect(coalesced.count == 1 && coalesced.first?.activityID == "a1" && coalesced.first?.note == "a newer update replaced it")
        // An iOS 17 device of the same activity receives no broadcast.
        let old = try store.write { try $0.budgetEntries(deviceID: "old", followsChannels: false, immediateSince: t0, startSince: t0, limit: 10) }
        #expect(old.map(\.kind) == [.start])
        let late = try store.write { try $0.budgetEntries(deviceID: "late", followsChannels: true, immediateSince: t0, startSince: t0, limit: 10) }
        #expect(late.map(\.kind) == [.lowered])
        // Token updates lowered for one device are its own lines.
        try store.write { tx in
            try tx.insertBudgetCharges([BudgetCharge(sendID: 1, activityID: "a1", deviceID: "d3", kind: .lowered, via: .token, note: "mine", createdAt: t0.addingTimeInterval(11))])
        }
        let d3 = try store.write { try $0.budgetEntries(deviceID: "d3", followsChannels: true, immediateSince: t0, startSince: t0, limit: 10) }
        #expect(d3.filter { $0.kind == .start }.map(\.activityID) == ["on-ch"])
        #expect(d3.filter { $0.kind == .lowered }.map(\.note) == ["mine", "why"])
        // Outside the windows nothing is listed.
        #expect(try store.write { try $0.budgetEntries(deviceID: "d3", followsChannels: true, immediateSince: t0.addingTimeInterval(100), startSince: t0.addingTimeInterval(100), limit: 10) }.isEmpty)
    }
}

@Suite("Store: budget ledger and coalescing on the wire, every store")
struct BudgetStoreTests {
    @Test("a retry under a newer update for the same device is coalesced (superseded, with the reason), not a refused batch", arguments: StoreKind.all)
    func retryUnderANewerUpdate(_ kind: StoreKind) throws { try kind.withStore(BudgetStoreContract.retryUnderANewerUpdate) }
    @Test("who follows a channel and who spent the budget; a device's ledger lines", arguments: StoreKind.all)
    func ledger(_ kind: StoreKind) throws { try kind.withStore(BudgetStoreContract.ledger) }
}

import Foundation
import LivelineSQL

/// The budget ledger (migration 8-budget-ledger; the statements are BudgetSQL's).
extension SQLTransaction {
    private func sql(_ text: String) -> String { BudgetSQL.sql(dialect, text) }

    func insertBudgetCharges(_ charges: [BudgetCharge]) throws {
        var rest = charges[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(64)
            rest = rest.dropFirst(chunk.count)
            var bindings: [SQLValue] = []
            bindings.reserveCapacity(chunk.count * 7)
            for c in chunk {
                bindings += [.integer(c.sendID), .text(c.activityID), .from(c.deviceID), .text(c.kind.rawValue), .text(c.via.rawValue), .from(c.note), time(c.createdAt)]
            }
            try db.run("INSERT INTO budget_charges (send_id, activity_id, device_id, kind, via, note, created_at) VALUES \(Self.rows(chunk.count, width: 7, from: 1))", bindings)
        }
    }

    func insertBroadcastCharges(sendID: Int64, channelID: String, kind: BudgetCharge.Kind, note: String?, now: Date) throws {
        try db.run(sql(BudgetSQL.insertBroadcastCharges), [.integer(sendID), .text(channelID), time(now), .text(kind.rawValue), .from(note)])
    }

    func channelBudgetUse(channelID: String, now: Date, since: Date, budget: Int, frequentBudget: Int, limit: Int) throws -> ChannelBudgetUse {
        BudgetSQL.use(try db.query(sql(BudgetSQL.channelBudgetUse), [.text(channelID), time(now), time(since), .integer(Int64(budget)),
                                                                    .integer(Int64(frequentBudget)), .integer(Int64(limit))]))
    }

    func budgetEntries(deviceID: String, followsChannels: Bool, immediateSince: Date, startSince: Date, limit: Int) throws -> [BudgetEntry] {
        let d = SQLValue.text(deviceID), since = time(immediateSince), follows = SQLValue.integer(followsChannels ? 1 : 0), n = SQLValue.integer(Int64(limit))
        return BudgetSQL.entries(
            immediate: try db.query(sql(BudgetSQL.immediateEntries), [d, since, follows]),
            lowered: try db.query(sql(BudgetSQL.loweredEntries), [d, since, follows, n]),
            starts: try db.query(sql(BudgetSQL.startEntries), [d, time(startSince)]),
            coalesced: try db.query(sql(BudgetSQL.coalescedEntries), [d, since, n]),
            date: { date($0, $1) })
    }

    /// A transient failure of an update to a token while a newer update for the same activity and
    /// device waits (or is on the wire too): retrying it would put two waiting updates for one
    /// device (the unique index refuses that, and the whole batch of verdicts with it) and could
    /// show older content after newer. It is superseded instead, saying so: coalesced, not lost.
    /// `record` calls this first; the rows changed here are no longer `sending`, so its update skips them.
    func supersedeReplacedRetries(_ outcomes: [DeliveryOutcome], now: Date) throws {
        for o in outcomes where o.state == .retrying {
            try db.run(sql(BudgetSQL.supersedeReplacedRetry), [.text(BudgetSQL.replacedOnTheWire(o.reason)), time(now), .integer(o.id)])
        }
    }
}

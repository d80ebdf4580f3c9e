import Foundation
import LivelineSQLite

/// The budget ledger on SQLite (migration 8-budget-ledger).
extension SQLiteTransaction {
    func insertBudgetCharges(_ charges: [BudgetCharge]) throws {
        var rest = charges[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(64)
            rest = rest.dropFirst(chunk.count)
            let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            var bindings: [SQLiteValue] = []
            bindings.reserveCapacity(chunk.count * 7)
            for c in chunk {
                bindings += [.integer(c.sendID), .text(c.activityID), .text(c.deviceID), .text(c.kind.rawValue), .text(c.via.rawValue),
                             .from(c.note), .real(c.createdAt.timeIntervalSince1970)]
            }
            try db.run("INSERT INTO budget_charges (send_id, activity_id, device_id, kind, via, note, created_at) VALUES \(values)", bindings)
        }
    }

    func channelHolders(channelID: String, now: Date) throws -> [ChannelHolder] {
        let t = SQLiteValue.real(now.timeIntervalSince1970)
        return try db.query("""
            SELECT h.activity_id AS holder_activity, d.* FROM (
                SELECT t.activity_id, t.device_id FROM activities a JOIN activity_tokens t ON t.activity_id = a.activity_id
                WHERE a.channel_id = ? AND (a.ended_at IS NULL OR a.ended_at > ?)
                UNION
                SELECT o.activity_id, o.device_id FROM activities a JOIN outbox o ON o.activity_id = a.activity_id
                WHERE a.channel_id = ? AND (a.ended_at IS NULL OR a.ended_at > ?) AND o.target = 'push-to-start'
                    AND o.created_at >= a.started_at AND o.state <> 'failed' AND o.state <> 'pruned' AND o.device_id IS NOT NULL
            ) h JOIN devices d ON d.device_id = h.device_id
            ORDER BY h.activity_id, d.device_id
            """, [.text(channelID), t, .text(channelID), t]).map { ChannelHolder(activityID: $0.string("holder_activity") ?? "", device: deviceRecord($0)) }
    }

    func budgetEntries(deviceID: String, immediateSince: Date, startSince: Date, limit: Int) throws -> [BudgetEntry] {
        let d = SQLiteValue.text(deviceID), since = SQLiteValue.real(immediateSince.timeIntervalSince1970)
        var entries: [BudgetEntry] = []
        for row in try db.query("""
            SELECT activity_id, send_id, id, 'token' AS via, created_at FROM outbox
            WHERE device_id = ? AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= ?
            UNION ALL
            SELECT activity_id, send_id, NULL AS id, via, created_at FROM budget_charges WHERE device_id = ? AND kind = 'immediate' AND created_at >= ?
            ORDER BY created_at
            """, [d, since, d, since]) {
            entries.append(BudgetEntry(kind: .immediate, activityID: row.string("activity_id") ?? "", sendID: row.int64("send_id"),
                                       deliveryID: row.int64("id"), via: row.string("via"), at: date(row, "created_at")))
        }
        for row in try db.query("""
            SELECT activity_id, send_id, id, created_at FROM outbox WHERE device_id = ? AND target = 'push-to-start' AND created_at >= ? ORDER BY created_at
            """, [d, .real(startSince.timeIntervalSince1970)]) {
            entries.append(BudgetEntry(kind: .start, activityID: row.string("activity_id") ?? "", sendID: row.int64("send_id"),
                                       deliveryID: row.int64("id"), at: date(row, "created_at")))
        }
        for row in try db.query("""
            SELECT activity_id, send_id, via, note, created_at FROM budget_charges WHERE device_id = ? AND kind = 'lowered' AND created_at >= ?
            ORDER BY id DESC LIMIT ?
            """, [d, since, .integer(Int64(limit))]) {
            entries.append(BudgetEntry(kind: .lowered, activityID: row.string("activity_id") ?? "", sendID: row.int64("send_id"),
                                       via: row.string("via"), note: row.string("note"), at: date(row, "created_at")))
        }
        for row in try db.query("""
            SELECT activity_id, send_id, id, reason, updated_at FROM outbox WHERE device_id = ? AND state = 'superseded' AND updated_at >= ?
            ORDER BY id DESC LIMIT ?
            """, [d, since, .integer(Int64(limit))]) {
            entries.append(BudgetEntry(kind: .coalesced, activityID: row.string("activity_id") ?? "", sendID: row.int64("send_id"),
                                       deliveryID: row.int64("id"), via: "token", note: row.string("reason"), at: date(row, "updated_at")))
        }
        return entries
    }

    /// A transient failure of an update to a token while a newer update for the same activity and
    /// device waits (or is on the wire too): retrying it would put two waiting updates for one
    /// device (the unique index refuses that, and the whole batch of verdicts with it) and could
    /// show older content after newer. It is superseded instead, saying so: coalesced, not lost.
    /// `record` calls this first; the rows changed here are no longer `sending`, so its update skips them.
    func supersedeReplacedRetries(_ outcomes: [DeliveryOutcome], now: Date) throws {
        for o in outcomes where o.state == .retrying {
            try db.run("""
                UPDATE outbox SET state = 'superseded', reason = ?, lease_until = NULL, updated_at = ?
                WHERE id = ? AND state = 'sending' AND event = 'update' AND target = 'token' AND EXISTS (
                    SELECT 1 FROM outbox n WHERE n.activity_id = outbox.activity_id AND n.device_id = outbox.device_id
                        AND n.event = 'update' AND n.target = 'token' AND n.id <> outbox.id
                        AND (n.state = 'queued' OR n.state = 'retrying' OR (n.state = 'sending' AND n.id > outbox.id)))
                """, [.text(Self.replacedOnTheWire(o.reason)), .real(now.timeIntervalSince1970), .integer(o.id)])
        }
    }

    static func replacedOnTheWire(_ reason: String?) -> String {
        "a newer update replaced it" + (reason.map { " (it failed on the wire and would have been retried: \($0.prefix(200)))" } ?? "")
    }
}

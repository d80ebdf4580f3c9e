import Foundation
import LivelineSQL

/// The budget ledger's statements (migration 8-budget-ledger), written once for both databases:
/// `#n` is parameter `$n`, and the two spellings the dialects differ in (`GREATER(`, `MAJOR(…)`)
/// are `SQLDialect`'s.
enum BudgetSQL {
    /// `text` with `#n` turned into `$n` and the dialect's spellings put in.
    static func sql(_ dialect: SQLDialect, _ text: String) -> String {
        text.replacingOccurrences(of: "#", with: "$")
            .replacingOccurrences(of: "GREATER(", with: dialect.greatest + "(")
            .replacingOccurrences(of: "MAJOR(d.ios_version)", with: dialect.iosMajorVersion)
    }

    /// A broadcast's charge for each running activity on the channel: #1 send, #2 channel, #3 now, #4 kind, #5 note.
    static let insertBroadcastCharges = """
        INSERT INTO budget_charges (send_id, activity_id, device_id, kind, via, note, created_at)
        SELECT #1, activity_id, NULL, #4, 'channel', #5, #3 FROM activities WHERE channel_id = #2 AND (ended_at IS NULL OR ended_at > #3)
        """

    /// The devices following a channel that spent their budget: #1 channel, #2 now, #3 since,
    /// #4 budget, #5 frequent budget, #6 limit. Columns: activity_id, device_id, spent, budget,
    /// holders (the followers of the activities whose budget someone spent), over (how many spent it).
    ///
    /// Every follower of an activity receives the same broadcasts (iOS 18 devices on a channel get no
    /// token pushes for it), so a follower has spent `budget` exactly when it held the activity by
    /// the time of the activity's `budget`-th newest broadcast this hour (its mark). Marks come from
    /// the few broadcast rows of the hour; followers are read only for an activity that has one.
    static let channelBudgetUse = """
        WITH live AS (
            SELECT activity_id, started_at FROM activities WHERE channel_id = #1 AND (ended_at IS NULL OR ended_at > #2)),
        marks AS (
            SELECT live.activity_id, live.started_at,
                CASE WHEN #4 = 0 THEN 1e18 ELSE (SELECT c.created_at FROM budget_charges c WHERE c.activity_id = live.activity_id AND c.device_id IS NULL
                    AND c.kind = 'immediate' AND c.created_at >= #3 ORDER BY c.created_at DESC LIMIT 1 OFFSET GREATER(#4 - 1, 0)) END AS normal_mark,
                CASE WHEN #5 = 0 THEN 1e18 ELSE (SELECT c.created_at FROM budget_charges c WHERE c.activity_id = live.activity_id AND c.device_id IS NULL
                    AND c.kind = 'immediate' AND c.created_at >= #3 ORDER BY c.created_at DESC LIMIT 1 OFFSET GREATER(#5 - 1, 0)) END AS frequent_mark
            FROM live),
        spentsome AS (SELECT * FROM marks WHERE normal_mark IS NOT NULL OR frequent_mark IS NOT NULL),
        joined AS (
            SELECT t.activity_id, t.device_id, t.registered_at AS at FROM spentsome m JOIN activity_tokens t ON t.activity_id = m.activity_id
            UNION ALL
            SELECT o.activity_id, o.device_id, o.created_at AS at FROM spentsome m JOIN outbox o ON o.activity_id = m.activity_id
            WHERE o.target = 'push-to-start' AND o.device_id IS NOT NULL AND o.created_at >= m.started_at
                AND o.state <> 'failed' AND o.state <> 'pruned'),
        holders AS (
            SELECT j.activity_id, j.device_id, min(j.at) AS joined, max(d.frequent_updates) AS frequent
            FROM joined j JOIN devices d ON d.device_id = j.device_id
            WHERE MAJOR(d.ios_version) >= 18
            GROUP BY j.activity_id, j.device_id),
        spent AS (
            SELECT h.activity_id, h.device_id, h.joined, h.frequent FROM holders h JOIN spentsome m ON m.activity_id = h.activity_id
            WHERE h.joined <= CASE WHEN h.frequent = 1 THEN m.frequent_mark ELSE m.normal_mark END)
        SELECT s.activity_id, s.device_id,
            (SELECT count(*) FROM budget_charges c WHERE c.activity_id = s.activity_id AND c.device_id IS NULL AND c.kind = 'immediate'
                AND c.created_at >= GREATER(#3, s.joined)) AS spent,
            CASE WHEN s.frequent = 1 THEN #5 ELSE #4 END AS budget,
            (SELECT count(*) FROM holders) AS holders, (SELECT count(*) FROM spent) AS over
        FROM spent s ORDER BY s.activity_id, s.device_id LIMIT #6
        """

    /// The activities a device holds, with when it began to hold each (#1 device).
    private static let holdings = """
        holdings AS (
            SELECT j.activity_id, min(j.at) AS joined FROM (
                SELECT activity_id, registered_at AS at FROM activity_tokens WHERE device_id = #1
                UNION ALL
                SELECT o.activity_id, o.created_at AS at FROM outbox o JOIN activities a ON a.activity_id = o.activity_id
                WHERE o.device_id = #1 AND o.target = 'push-to-start' AND o.created_at >= a.started_at AND o.state <> 'failed' AND o.state <> 'pruned'
            ) j GROUP BY j.activity_id)
        """

    /// Priority-10 lines: #1 device, #2 since, #3 1 when the device follows channels.
    static let immediateEntries = """
        WITH \(holdings)
        SELECT activity_id, send_id, id, 'token' AS via, created_at FROM outbox
        WHERE device_id = #1 AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= #2
        UNION ALL
        SELECT c.activity_id, c.send_id, NULL AS id, c.via, c.created_at FROM budget_charges c JOIN holdings h ON h.activity_id = c.activity_id
        WHERE #3 = 1 AND c.device_id IS NULL AND c.kind = 'immediate' AND c.created_at >= GREATER(#2, h.joined)
        ORDER BY created_at
        """

    /// Lowered lines, newest first: #1 device, #2 since, #3 1 when the device follows channels, #4 limit.
    static let loweredEntries = """
        WITH \(holdings)
        SELECT * FROM (
            SELECT c.id, c.activity_id, c.send_id, c.via, c.note, c.created_at FROM budget_charges c
            WHERE c.device_id = #1 AND c.kind = 'lowered' AND c.created_at >= #2
            UNION ALL
            SELECT c.id, c.activity_id, c.send_id, c.via, c.note, c.created_at FROM budget_charges c JOIN holdings h ON h.activity_id = c.activity_id
            WHERE #3 = 1 AND c.device_id IS NULL AND c.kind = 'lowered' AND c.created_at >= GREATER(#2, h.joined)
        ) lowered ORDER BY id DESC LIMIT #4
        """

    /// Push-to-start lines: #1 device, #2 since.
    static let startEntries = """
        SELECT activity_id, send_id, id, created_at FROM outbox WHERE device_id = #1 AND target = 'push-to-start' AND created_at >= #2 ORDER BY created_at
        """

    /// Coalesced lines, newest first: #1 device, #2 since, #3 limit.
    static let coalescedEntries = """
        SELECT activity_id, send_id, id, reason, updated_at FROM outbox WHERE device_id = #1 AND state = 'superseded' AND updated_at >= #2
        ORDER BY id DESC LIMIT #3
        """

    /// The update superseded when a transient failure would put it back in the queue beside a newer
    /// one for the same device: #1 reason, #2 now, #3 row id.
    static let supersedeReplacedRetry = """
        UPDATE outbox SET state = 'superseded', reason = #1, lease_until = NULL, updated_at = #2
        WHERE id = #3 AND state = 'sending' AND event = 'update' AND target = 'token' AND EXISTS (
            SELECT 1 FROM outbox n WHERE n.activity_id = outbox.activity_id AND n.device_id = outbox.device_id
                AND n.event = 'update' AND n.target = 'token' AND n.id <> outbox.id
                AND (n.state = 'queued' OR n.state = 'retrying' OR (n.state = 'sending' AND n.id > outbox.id)))
        """

    static func replacedOnTheWire(_ reason: String?) -> String {
        "a newer update replaced it" + (reason.map { " (it failed on the wire and would have been retried: \($0.prefix(200)))" } ?? "")
    }

    static func entries(immediate: [SQLRow], lowered: [SQLRow], starts: [SQLRow], coalesced: [SQLRow],
                        date: (SQLRow, String) -> Date) -> [BudgetEntry] {
        immediate.map { BudgetEntry(kind: .immediate, activityID: $0.string("activity_id") ?? "", sendID: $0.int64("send_id"),
                                    deliveryID: $0.int64("id"), via: $0.string("via"), at: date($0, "created_at")) }
        + starts.map { BudgetEntry(kind: .start, activityID: $0.string("activity_id") ?? "", sendID: $0.int64("send_id"),
                                   deliveryID: $0.int64("id"), at: date($0, "created_at")) }
        + lowered.map { BudgetEntry(kind: .lowered, activityID: $0.string("activity_id") ?? "", sendID: $0.int64("send_id"),
                                    via: $0.string("via"), note: $0.string("note"), at: date($0, "created_at")) }
        + coalesced.map { BudgetEntry(kind: .coalesced, activityID: $0.string("activity_id") ?? "", sendID: $0.int64("send_id"),
                                      deliveryID: $0.int64("id"), via: "token", note: $0.string("reason"), at: date($0, "updated_at")) }
    }

    static func use(_ rows: [SQLRow]) -> ChannelBudgetUse {
        ChannelBudgetUse(holders: rows.first?.int("holders") ?? 0, overBudgetCount: rows.first?.int("over") ?? 0,
                         overBudget: rows.map { .init(activityID: $0.string("activity_id") ?? "", deviceID: $0.string("device_id") ?? "",
                                                      spent: $0.int("spent") ?? 0, budget: $0.int("budget") ?? 0) })
    }
}

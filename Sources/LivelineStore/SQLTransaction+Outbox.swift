import Foundation
import LivelineSQL

/// Sends and the outbox: one row per delivery, claimed under a lease, its verdict recorded.
///
/// Where the databases differ: PostgreSQL is shared, so a send locks its activity and notifies
/// `liveline_outbox`, and claims and releases pass over rows another instance has locked (`FOR
/// UPDATE SKIP LOCKED`); bulk inserts and verdicts go as array parameters (`unnest`) there, as
/// multi-row `VALUES` on SQLite.
extension SQLTransaction {
    /// PostgreSQL: a transaction-scoped advisory lock on the activity, so two instances sending to
    /// the same activity at once supersede each other's rows in turn instead of both inserting a
    /// waiting update for one device (which the unique index would refuse). SQLite: one writer.
    func lockActivity(_ activityID: String) throws {
        guard dialect.isShared else { return }
        try db.run("SELECT pg_advisory_xact_lock(1, hashtext($1))", [.text(activityID)])
    }

    func insertSend(_ send: SendRecord, deliveries: [NewDelivery], now: Date) throws -> (id: Int64, superseded: Int) {
        try lockActivity(send.activityID)
        let id = try db.queryOne("INSERT INTO sends (activity_id, event, bundle_id, body, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                                 [.text(send.activityID), .text(send.event), .text(send.bundleID), .blob(send.body), time(now)])?.int64("id") ?? 0
        let devices = send.event == "update" ? deliveries.filter { $0.target == .token }.compactMap(\.deviceID) : []
        var superseded = 0
        if Set(devices).count != devices.count {
            // A device twice in one update: row by row, each superseding the one before.
            for d in deliveries {
                if send.event == "update", d.target == .token, let device = d.deviceID {
                    superseded += try db.run("""
                        UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = $1
                        WHERE activity_id = $2 AND device_id = $3 AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                        """, [time(now), .text(send.activityID), .text(device)])
                }
                try db.run(Self.outboxInsert1, Self.outboxBindings(id, send, [d], now))
            }
        } else {
            switch dialect {
            case .sqlite: superseded = try insertRowsSQLite(id, send, deliveries, devices: !devices.isEmpty, now: now)
            case .postgres: superseded = try insertRowsPostgres(id, send, deliveries, devices: devices, now: now)
            }
        }
        if !deliveries.isEmpty { try notify(PostgresStore.workChannel) }
        return (id, superseded)
    }

    /// Each device once (a fan-out), on SQLite: the waiting updates of the activity read in one
    /// query (the terms are the partial unique index's own), only the rows this send replaces
    /// superseded, then 64 rows an INSERT.
    private func insertRowsSQLite(_ id: Int64, _ send: SendRecord, _ deliveries: [NewDelivery], devices: Bool, now: Date) throws -> Int {
        var superseded = 0
        if devices {
            var waiting: [String: Int64] = [:]
            try db.forEachRow("""
                SELECT id, device_id FROM outbox
                WHERE activity_id = $1 AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                """, [.text(send.activityID)]) { row in
                if let device = row.string("device_id"), let rowID = row.int64("id") { waiting[device] = rowID }
            }
            if !waiting.isEmpty {
                for d in deliveries where d.target == .token {
                    guard let device = d.deviceID, let rowID = waiting[device] else { continue }
                    superseded += try db.run("UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = $1 WHERE id = $2",
                                             [time(now), .integer(rowID)])
                }
            }
        }
        var rest = deliveries[...]
        for (size, sql) in [(64, Self.outboxInsert64), (8, Self.outboxInsert8), (1, Self.outboxInsert1)] {
            while rest.count >= size {
                try db.run(sql, Self.outboxBindings(id, send, rest.prefix(size), now))
                rest = rest.dropFirst(size)
            }
        }
        return superseded
    }

    /// Each device once (a fan-out), on PostgreSQL: one statement supersedes, one inserts every row, in order.
    private func insertRowsPostgres(_ id: Int64, _ send: SendRecord, _ deliveries: [NewDelivery], devices: [String], now: Date) throws -> Int {
        var superseded = 0
        if !devices.isEmpty {
            superseded = try db.run("""
                UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = $1
                WHERE activity_id = $2 AND device_id = ANY($3::text[]) AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                """, [time(now), .text(send.activityID), .textArray(devices)])
        }
        if !deliveries.isEmpty {
            try db.run("""
                INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, note, state, next_attempt_at, created_at, updated_at, environment)
                SELECT $1, $2::text, $3::text, d.device_id, d.target, d.token, d.priority, d.note, 'queued', d.not_before, $4, $4, d.environment
                FROM unnest($5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[], $10::float8[], $11::text[])
                    WITH ORDINALITY AS d(device_id, target, token, priority, note, not_before, environment, n)
                ORDER BY d.n
                """, [.integer(id), .text(send.activityID), .text(send.event), time(now),
                      .textArray(deliveries.map(\.deviceID)), .textArray(deliveries.map(\.target.rawValue)), .textArray(deliveries.map(\.token)),
                      .integerArray(deliveries.map { Int64($0.priority) }), .textArray(deliveries.map(\.note)),
                      .realArray(deliveries.map(\.notBefore.timeIntervalSince1970)), .textArray(deliveries.map(\.environment))])
        }
        return superseded
    }

    /// The values of `outboxInsert(rows:)` for `deliveries` of send `id`, created at `now`.
    private static func outboxBindings(_ id: Int64, _ send: SendRecord, _ deliveries: some Collection<NewDelivery>, _ now: Date) -> [SQLValue] {
        let t = SQLValue.real(now.timeIntervalSince1970)
        var bindings: [SQLValue] = []
        bindings.reserveCapacity(deliveries.count * 12)
        for d in deliveries {
            bindings += [.integer(id), .text(send.activityID), .text(send.event), .from(d.deviceID), .text(d.target.rawValue), .text(d.token),
                         .integer(Int64(d.priority)), .from(d.note), .real(d.notBefore.timeIntervalSince1970), t, t, .from(d.environment)]
        }
        return bindings
    }

    /// An INSERT of `rows` queued outbox rows, 12 parameters each.
    private static func outboxInsert(rows: Int) -> String {
        "INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, note, state, next_attempt_at, created_at, updated_at, environment) VALUES "
            + (0 ..< rows).map { r in
                let p = (1 ... 12).map { "$\(r * 12 + $0)" }
                return "(\(p[0...7].joined(separator: ", ")), 'queued', \(p[8...11].joined(separator: ", ")))"
            }.joined(separator: ", ")
    }

    private static let outboxInsert64 = outboxInsert(rows: 64)
    private static let outboxInsert8 = outboxInsert(rows: 8)
    private static let outboxInsert1 = outboxInsert(rows: 1)

    func send(_ id: Int64) throws -> SendRecord? {
        try db.queryOne("SELECT * FROM sends WHERE id = $1", [.integer(id)]).map {
            SendRecord(id: $0.int64("id") ?? 0, activityID: $0.string("activity_id") ?? "", event: $0.string("event") ?? "",
                       bundleID: $0.string("bundle_id") ?? "", body: $0.blob("body") ?? [], createdAt: date($0, "created_at"))
        }
    }

    /// SQLite: one UPDATE … RETURNING (one writer, so the rows it picks are this claimant's alone).
    /// PostgreSQL: `FOR UPDATE SKIP LOCKED`, so rows another instance is claiming right now are
    /// passed over, not waited for.
    func claimDue(now: Date, limit: Int, leaseUntil: Date) throws -> [DeliveryRecord] {
        let sql = switch dialect {
        case .sqlite: """
            UPDATE outbox SET state = 'sending', attempts = attempts + 1, lease_until = $1, updated_at = $2
            WHERE id IN (SELECT id FROM outbox WHERE state IN ('queued', 'retrying') AND next_attempt_at <= $2 ORDER BY next_attempt_at, id LIMIT $3)
            RETURNING *
            """
        case .postgres: """
            WITH due AS MATERIALIZED (
                SELECT id FROM outbox WHERE state IN ('queued', 'retrying') AND next_attempt_at <= $2
                ORDER BY next_attempt_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
            UPDATE outbox SET state = 'sending', attempts = outbox.attempts + 1, lease_until = $1, updated_at = $2
            FROM due WHERE outbox.id = due.id
            RETURNING outbox.*
            """
        }
        return try db.query(sql, [time(leaseUntil), time(now), .integer(Int64(limit))]).map(deliveryRecord).sorted { $0.id < $1.id }
    }

    func record(_ outcomes: [DeliveryOutcome], now: Date) throws {
        try supersedeReplacedRetries(outcomes, now: now)  // +Budget.swift: coalesced, not a unique-index failure
        switch dialect {
        case .sqlite:
            // 64 verdicts a statement (UPDATE … FROM VALUES): a fan-out records tens of thousands.
            var rest = outcomes[...]
            for (size, sql) in [(64, Self.recordUpdate64), (8, Self.recordUpdate8), (1, Self.recordUpdate1)] {
                while rest.count >= size {
                    var bindings: [SQLValue] = [time(now)]
                    bindings.reserveCapacity(1 + size * 6)
                    for o in rest.prefix(size) {
                        bindings += [.integer(o.id), .text(o.state.rawValue), .from(o.apnsID), .from(o.status), .from(o.reason), .from(o.nextAttemptAt?.timeIntervalSince1970)]
                    }
                    try db.run(sql, bindings)
                    rest = rest.dropFirst(size)
                }
            }
        case .postgres:
            // One statement for a batch whose ids are distinct (the workers' case); row by row otherwise.
            if outcomes.count > 1, Set(outcomes.map(\.id)).count == outcomes.count {
                try db.run("""
                    UPDATE outbox SET state = o.state, apns_id = coalesce(o.apns_id, outbox.apns_id), status = o.status, reason = o.reason,
                        next_attempt_at = coalesce(o.next_attempt_at, outbox.next_attempt_at), lease_until = NULL, updated_at = $1
                    FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::float8[]) AS o(id, state, apns_id, status, reason, next_attempt_at)
                    WHERE outbox.id = o.id AND outbox.state = 'sending'
                    """, [time(now), .integerArray(outcomes.map(\.id)), .textArray(outcomes.map(\.state.rawValue)), .textArray(outcomes.map(\.apnsID)),
                          .integerArray(outcomes.map { $0.status.map(Int64.init) }), .textArray(outcomes.map(\.reason)),
                          .realArray(outcomes.map { $0.nextAttemptAt?.timeIntervalSince1970 })])
                return
            }
            for o in outcomes {
                try db.run("""
                    UPDATE outbox SET state = $1, apns_id = coalesce($2, apns_id), status = $3, reason = $4, next_attempt_at = coalesce($5, next_attempt_at),
                        lease_until = NULL, updated_at = $6 WHERE id = $7 AND state = 'sending'
                    """, [.text(o.state.rawValue), .from(o.apnsID), .from(o.status), .from(o.reason), .from(o.nextAttemptAt?.timeIntervalSince1970), time(now), .integer(o.id)])
            }
        }
    }

    /// An UPDATE recording `rows` verdicts (6 parameters each, after `$1`, the time) of rows still
    /// `sending` (a row released meanwhile keeps its state).
    private static func recordUpdate(rows: Int) -> String {
        """
        UPDATE outbox SET state = v.column2, apns_id = coalesce(v.column3, outbox.apns_id), status = v.column4, reason = v.column5,
            next_attempt_at = coalesce(v.column6, outbox.next_attempt_at), lease_until = NULL, updated_at = $1
        FROM (VALUES \(SQLTransaction.rows(rows, width: 6, from: 2))) AS v
        WHERE outbox.id = v.column1 AND outbox.state = 'sending'
        """
    }

    private static let recordUpdate64 = recordUpdate(rows: 64)
    private static let recordUpdate8 = recordUpdate(rows: 8)
    private static let recordUpdate1 = recordUpdate(rows: 1)

    func releaseExpiredLeases(now: Date) throws -> Int {
        try release(expiredOnly: true, now: now)
    }

    func releaseAllLeases(now: Date) throws -> Int {
        try release(expiredOnly: false, now: now)
    }

    /// Queues the `sending` rows (with `expiredOnly`, those past their lease) again, except an
    /// update to a token that a newer update for the same activity and device replaced while it
    /// was on the wire (waiting, or released with it): that one is superseded, as it would have
    /// been had it still been waiting. Queuing it would break the rule of one waiting update per
    /// activity and device, and fail the claim that releases it. On PostgreSQL, rows another
    /// instance is releasing or claiming at this moment are skipped (it handles them).
    private func release(expiredOnly: Bool, now: Date) throws -> Int {
        // The rows released (for a row alias): `sending`, and with `expiredOnly` past their lease.
        func released(_ alias: String) -> String { "\(alias).state = 'sending'" + (expiredOnly ? " AND \(alias).lease_until < $1" : "") }
        switch dialect {
        case .sqlite:
            let superseded = try db.run("""
                UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', lease_until = NULL, updated_at = $1
                WHERE \(released("outbox")) AND event = 'update' AND target = 'token' AND (
                    EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = outbox.activity_id AND w.device_id = outbox.device_id
                            AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                    OR EXISTS (SELECT 1 FROM outbox n WHERE \(released("n"))
                            AND n.event = 'update' AND n.target = 'token' AND n.activity_id = outbox.activity_id AND n.device_id = outbox.device_id AND n.id > outbox.id))
                """, [time(now)])
            let queued = try db.run("UPDATE outbox SET state = 'queued', lease_until = NULL, updated_at = $1 WHERE \(released("outbox"))", [time(now)])
            return superseded + queued
        case .postgres:
            return try db.run("""
                WITH released AS MATERIALIZED (
                    SELECT id, activity_id, device_id, event = 'update' AND target = 'token' AS is_update
                    FROM outbox WHERE \(released("outbox")) FOR UPDATE SKIP LOCKED),
                replaced AS (
                    SELECT r.id FROM released r WHERE r.is_update AND (
                        EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = r.activity_id AND w.device_id = r.device_id
                                AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                        OR EXISTS (SELECT 1 FROM released n WHERE n.is_update AND n.activity_id = r.activity_id AND n.device_id = r.device_id AND n.id > r.id)))
                UPDATE outbox SET
                    state = CASE WHEN outbox.id IN (SELECT id FROM replaced) THEN 'superseded' ELSE 'queued' END,
                    reason = CASE WHEN outbox.id IN (SELECT id FROM replaced) THEN 'a newer update replaced it' ELSE outbox.reason END,
                    lease_until = NULL, updated_at = $1
                FROM released WHERE outbox.id = released.id
                """, [time(now)])
        }
    }

    func nextDue() throws -> Date? {
        try db.queryOne("SELECT min(next_attempt_at) AS t FROM outbox WHERE state IN ('queued', 'retrying')", []).flatMap { optionalDate($0, "t") }
    }

    func deliveries(activityID: String, limit: Int) throws -> [DeliveryRecord] {
        try db.query("SELECT * FROM outbox WHERE activity_id = $1 ORDER BY id DESC LIMIT $2", [.text(activityID), .integer(Int64(limit))]).map(deliveryRecord)
    }

    func deliveries(activityID: String, deviceID: String, limit: Int) throws -> [DeliveryRecord] {
        try db.query("SELECT * FROM outbox WHERE activity_id = $1 AND device_id = $2 ORDER BY id DESC LIMIT $3",
                     [.text(activityID), .text(deviceID), .integer(Int64(limit))]).map(deliveryRecord)
    }

    func deliveryCounts(activityID: String) throws -> [DeliveryState: Int] {
        try counts(db.query("SELECT state, count(*) AS n FROM outbox WHERE activity_id = $1 GROUP BY state", [.text(activityID)]))
    }

    func hasWaiting(activityID: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS n FROM outbox WHERE activity_id = $1 AND \(dialect.waitingCondition) LIMIT 1", [.text(activityID)]) != nil
    }

    func outboxCounts() throws -> [DeliveryState: Int] {
        try counts(db.query("SELECT state, count(*) AS n FROM outbox GROUP BY state", []))
    }

    func immediateCount(activityID: String, deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM outbox WHERE activity_id = $1 AND device_id = $2 AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= $3",
                  [.text(activityID), .text(deviceID), time(since)])
    }

    func immediateCounts(activityID: String, since: Date) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try db.forEachRow("""
            SELECT device_id, count(*) AS n FROM outbox
            WHERE activity_id = $1 AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= $2 GROUP BY device_id
            """, [.text(activityID), time(since)]) { row in
            if let device = row.string("device_id") { counts[device] = row.int("n") ?? 0 }
        }
        return counts
    }

    func startCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM outbox WHERE device_id = $1 AND target = 'push-to-start' AND created_at >= $2",
                  [.text(deviceID), time(since)])
    }

    func wasPushStarted(activityID: String, deviceID: String, since: Date) throws -> Bool {
        try db.queryOne("SELECT id FROM outbox WHERE activity_id = $1 AND device_id = $2 AND target = 'push-to-start' AND created_at >= $3 LIMIT 1",
                        [.text(activityID), .text(deviceID), time(since)]) != nil
    }

    func markDisplayed(activityID: String, deviceID: String, at: Date) throws -> Bool {
        try db.run("""
            UPDATE outbox SET displayed_at = $1, updated_at = $1 WHERE id = (
                SELECT id FROM outbox WHERE activity_id = $2 AND device_id = $3 AND state = 'sent' ORDER BY id DESC LIMIT 1)
            """, [time(at), .text(activityID), .text(deviceID)]) > 0
    }
}

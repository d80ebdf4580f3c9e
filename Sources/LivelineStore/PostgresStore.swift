import Foundation
import LivelinePostgres
import Synchronization

/// The shared store: one PostgreSQL database that several service instances use at once.
///
/// Each instance holds one connection, its writes serialized by a lock. Outbox rows are claimed
/// with `FOR UPDATE SKIP LOCKED`, so instances claim disjoint rows without waiting for each other,
/// and a claim is a lease: when an instance dies, another one queues its rows again once the lease
/// expires (`releaseExpiredLeases`). Migrations run under an advisory lock, so instances starting
/// together migrate once. A lost connection fails the transaction with `StoreError.isUnavailable`
/// (the API answers 503) and the next transaction reconnects. Each send notifies channel
/// `liveline_outbox` (`pg_notify`, delivered at commit), so instances that `observeSharedWork`
/// wake at once for work another instance accepted.
///
/// Confinement: `connection` is used only while `lock` is held.
public final class PostgresStore: Store, @unchecked Sendable {
    private let lock = NSLock()
    private let connection: PostgresConnection
    /// The connection string as given, for the listener's connection; never printed.
    private let url: String
    private let listener = Mutex<PostgresListener?>(nil)
    /// The notification channel a send notifies.
    static let workChannel = "liveline_outbox"
    /// The channel a key's revocation or expiry notifies, and its listener.
    static let keysChannel = "liveline_keys"
    private let keyListener = Mutex<PostgresListener?>(nil)
    /// The advisory lock id of the bootstrap admin key ("LLBOOT" in ASCII).
    static let bootstrapLock: Int64 = 0x4C4C_424F_4F54
    /// The connection string with its password as `***`.
    public let location: String
    /// Several instances share the database.
    public var isShared: Bool { true }

    /// Connects to `url` (`postgres://…`, `postgresql://…` or libpq's `keyword=value` form) and
    /// applies the migrations the database lacks.
    ///
    /// - Throws: `StoreError` naming the redacted URL: unavailable when the server cannot be
    ///   reached or refuses the connection; a migration failure otherwise.
    public init(url: String, options: PostgresConnection.Options = PostgresConnection.Options()) throws(StoreError) {
        self.url = url
        do {
            connection = try PostgresConnection(url, options: options)
        } catch {
            throw StoreError(error.message, isUnavailable: true)
        }
        location = connection.location
        do {
            try connection.migrate(Migrations.postgres)
        } catch {
            connection.close()
            throw StoreError("cannot migrate the database '\(location)': \(error.message)", isUnavailable: error.isConnectionLost)
        }
    }

    public func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        if connection.isClosed { throw StoreError("the database '\(location)' is closed", isUnavailable: true) }
        do {
            return try connection.transaction { try body(PostgresTransaction(db: connection)) }
        } catch let error as PostgresError where error.isConnectionLost {
            throw StoreError(error.message, isUnavailable: true)
        }
    }

    /// `LISTEN liveline_outbox` on a connection and a thread of its own (`PostgresListener`).
    @discardableResult
    public func observeSharedWork(_ wake: @escaping @Sendable () -> Void) -> Bool {
        guard let made = try? PostgresListener(url, channel: Self.workChannel, onNotify: wake) else { return false }
        let previous = listener.withLock { current -> PostgresListener? in
            defer { current = made }
            return current
        }
        previous?.stop()
        return true
    }

    /// `LISTEN liveline_keys` on a connection and a thread of its own.
    @discardableResult
    public func observeKeyChanges(_ changed: @escaping @Sendable () -> Void) -> Bool {
        guard let made = try? PostgresListener(url, channel: Self.keysChannel, onNotify: changed) else { return false }
        let previous = keyListener.withLock { current -> PostgresListener? in
            defer { current = made }
            return current
        }
        previous?.stop()
        return true
    }

    public func close() {
        let keyObserver = keyListener.withLock { current -> PostgresListener? in
            defer { current = nil }
            return current
        }
        keyObserver?.stop()
        let observer = listener.withLock { current -> PostgresListener? in
            defer { current = nil }
            return current
        }
        observer?.stop()
        lock.lock()
        defer { lock.unlock() }
        connection.close()
    }

    /// libpq's version.
    public static var libraryVersion: String { PostgresConnection.libraryVersion }

    /// The names of the migrations the code knows, in order (the same as SQLite's).
    public static var migrationNames: [String] { Migrations.postgres.map(\.name) }
}

/// The store's operations on one open transaction, in PostgreSQL's dialect; each does what
/// `SQLiteTransaction`'s method of the same name does.
struct PostgresTransaction: StoreTransaction, RecordDecoding {
    let db: PostgresConnection

    // MARK: Keys

    func insertKey(_ key: APIKeyRecord) throws {
        try db.run("INSERT INTO api_keys (id, scope, hash, name, created_at, bundle_id, apps, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                   [.text(key.id), .text(key.scope.rawValue), .text(key.hash), .from(key.name), time(key.createdAt),
                    .from(key.bundleID), .from(key.apps?.joined(separator: ",")), key.expiresAt.map(time) ?? .null, key.revokedAt.map(time) ?? .null])
    }

    func key(hash: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE hash = $1", [.text(hash)]).map(keyRecord)
    }

    func keyCount() throws -> Int { try count("SELECT count(*) AS n FROM api_keys", []) }

    // MARK: Key lifecycle (migration 5-key-lifecycle)

    func key(id: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE id = $1", [.text(id)]).map(keyRecord)
    }

    func keys(after: String?, limit: Int) throws -> [APIKeyRecord] {
        try db.query("SELECT * FROM api_keys WHERE id > $1 ORDER BY id LIMIT $2", [.text(after ?? ""), .integer(Int64(limit))]).map(keyRecord)
    }

    /// Revokes and notifies `liveline_keys` (delivered at commit) so other instances drop their cached keys.
    func revokeKey(id: String, at: Date) throws -> Bool {
        let changed = try db.run("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [time(at), .text(id)]) > 0
        if changed { try db.run("SELECT pg_notify($1, '')", [.text(PostgresStore.keysChannel)]) }
        return changed
    }

    func expireKey(id: String, at: Date) throws -> Bool {
        let changed = try db.run("UPDATE api_keys SET expires_at = $1 WHERE id = $2 AND (expires_at IS NULL OR expires_at > $1)", [time(at), .text(id)]) > 0
        if changed { try db.run("SELECT pg_notify($1, '')", [.text(PostgresStore.keysChannel)]) }
        return changed
    }

    /// A transaction-scoped advisory lock: an instance starting at the same time waits here
    /// until this transaction commits, then sees its key.
    func lockForBootstrap() throws {
        try db.run("SELECT pg_advisory_xact_lock($1)", [.integer(PostgresStore.bootstrapLock)])
    }

    // MARK: Apps

    func upsertApp(_ app: AppRecord) throws {
        try db.run("""
            INSERT INTO apps (bundle_id, team_id, key_id, key_pem, environment, created_at, environments) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (bundle_id) DO UPDATE SET team_id = excluded.team_id, key_id = excluded.key_id,
                key_pem = excluded.key_pem, environment = excluded.environment, environments = excluded.environments
            """, [.text(app.bundleID), .text(app.teamID), .text(app.keyID), .text(app.keyPEM), .text(app.environment), time(app.createdAt),
                  .from(app.environments?.joined(separator: ","))])
    }

    func app(bundleID: String) throws -> AppRecord? {
        try db.queryOne("SELECT * FROM apps WHERE bundle_id = $1", [.text(bundleID)]).map(appRecord)
    }

    func apps() throws -> [AppRecord] { try db.query("SELECT * FROM apps ORDER BY bundle_id", []).map(appRecord) }


    // MARK: Devices and tokens

    func upsertDevice(_ device: DeviceRecord) throws {
        try db.run("""
            INSERT INTO devices (device_id, bundle_id, ios_version, user_id, frequent_updates, updated_at, user_verified) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (device_id) DO UPDATE SET bundle_id = excluded.bundle_id, ios_version = excluded.ios_version,
                user_id = excluded.user_id, frequent_updates = excluded.frequent_updates, updated_at = excluded.updated_at,
                user_verified = excluded.user_verified
            """, [.text(device.deviceID), .text(device.bundleID), .text(device.iosVersion), .from(device.userID),
                  .integer(device.frequentUpdates ? 1 : 0), time(device.updatedAt), .integer(device.userVerified ? 1 : 0)])
    }

    func device(_ deviceID: String) throws -> DeviceRecord? {
        try db.queryOne("SELECT * FROM devices WHERE device_id = $1", [.text(deviceID)]).map(deviceRecord)
    }

    func devices(userIDs: [String]) throws -> [DeviceRecord] {
        var result: [DeviceRecord] = []
        for user in userIDs {
            result += try db.query("SELECT * FROM devices WHERE user_id = $1 AND user_verified = 1 ORDER BY device_id", [.text(user)]).map(deviceRecord)
        }
        return result
    }

    func deleteDevice(_ deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE device_id = $1", [.text(deviceID)])
        return try db.run("DELETE FROM devices WHERE device_id = $1", [.text(deviceID)]) > 0
    }


    func setPushToStartToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO push_to_start_tokens (device_id, attributes_type, token, registered_at, environment, refused_at, refusal) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (device_id, attributes_type) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.deviceID), .text(token.scope), .text(token.token), time(token.registeredAt)] + Self.hygiene(token))
    }

    func pushToStartToken(deviceID: String, attributesType: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM push_to_start_tokens WHERE device_id = $1 AND attributes_type = $2", [.text(deviceID), .text(attributesType)]).map {
            tokenRecord($0, scope: "attributes_type")
        }
    }

    func deletePushToStartToken(deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM push_to_start_tokens WHERE device_id = $1 AND token = $2", [.text(deviceID), .text(token)]) > 0
    }

    func setActivityToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO activity_tokens (activity_id, device_id, token, registered_at, environment, refused_at, refusal) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (activity_id, device_id) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.scope), .text(token.deviceID), .text(token.token), time(token.registeredAt)] + Self.hygiene(token))
    }

    func activityTokens(activityID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = $1 ORDER BY device_id", [.text(activityID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityToken(activityID: String, deviceID: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM activity_tokens WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTargets(activityID: String) throws -> [(token: TokenRecord, device: DeviceRecord?)] {
        try db.query("""
            SELECT t.activity_id, t.device_id, t.token, t.registered_at, t.environment, t.refused_at, t.refusal, d.bundle_id, d.ios_version, d.user_id, d.frequent_updates, d.updated_at
            FROM activity_tokens t LEFT JOIN devices d ON d.device_id = t.device_id WHERE t.activity_id = $1 ORDER BY t.device_id
            """, [.text(activityID)]).map { row in
            (tokenRecord(row, scope: "activity_id"), row.string("ios_version") == nil ? nil : deviceRecord(row))
        }
    }

    func deleteActivityTokens(activityID: String) throws -> Int {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1", [.text(activityID)])
    }

    func deleteActivityToken(activityID: String, deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1 AND device_id = $2", [.text(activityID), .text(deviceID)]) > 0
    }

    func deleteActivityToken(activityID: String, deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = $1 AND device_id = $2 AND token = $3", [.text(activityID), .text(deviceID), .text(token)]) > 0
    }

    func tokenCount() throws -> Int {
        try count("SELECT (SELECT count(*) FROM activity_tokens) + (SELECT count(*) FROM push_to_start_tokens) AS n", [])
    }

    // MARK: Activities

    func upsertActivity(_ a: ActivityRecord) throws {
        try db.run("""
            INSERT INTO activities (activity_id, bundle_id, attributes_type, channel_id, started_at, ended_at, last_timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (activity_id) DO UPDATE SET bundle_id = excluded.bundle_id, attributes_type = excluded.attributes_type,
                channel_id = excluded.channel_id, started_at = excluded.started_at, ended_at = excluded.ended_at, last_timestamp = excluded.last_timestamp
            """, [.text(a.activityID), .text(a.bundleID), .text(a.attributesType), .from(a.channelID), time(a.startedAt),
                  .from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970)])
    }

    func activity(_ activityID: String) throws -> ActivityRecord? {
        try db.queryOne("SELECT * FROM activities WHERE activity_id = $1", [.text(activityID)]).map {
            ActivityRecord(activityID: $0.string("activity_id") ?? "", bundleID: $0.string("bundle_id") ?? "", attributesType: $0.string("attributes_type") ?? "",
                           channelID: $0.string("channel_id"), startedAt: date($0, "started_at"), endedAt: optionalDate($0, "ended_at"),
                           lastTimestamp: optionalDate($0, "last_timestamp"))
        }
    }

    func recentActivityIDs(limit: Int) throws -> [String] {
        try db.query("SELECT activity_id FROM activities ORDER BY started_at DESC, activity_id LIMIT $1", [.integer(Int64(limit))]).compactMap { $0.string("activity_id") }
    }

    // MARK: Sends and the outbox

    /// Also takes a transaction-scoped advisory lock on the activity: two instances sending to the
    /// same activity at once supersede each other's rows in turn instead of both inserting a
    /// waiting update for one device (which the unique index would refuse).
    func lockActivity(_ activityID: String) throws {
        try db.run("SELECT pg_advisory_xact_lock(1, hashtext($1))", [.text(activityID)])
    }

    func insertSend(_ send: SendRecord, deliveries: [NewDelivery], now: Date) throws -> (id: Int64, superseded: Int) {
        try lockActivity(send.activityID)
        let id = try db.queryOne("INSERT INTO sends (activity_id, event, bundle_id, body, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                                 [.text(send.activityID), .text(send.event), .text(send.bundleID), .bytea(send.body), time(now)])?.int64("id") ?? 0
        let devices = send.event == "update" ? deliveries.filter { $0.target == .token }.compactMap(\.deviceID) : []
        var superseded = 0
        if Set(devices).count == devices.count {
            // Each device once (a fan-out): one statement supersedes, one inserts every row, in order.
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
                try db.run("SELECT pg_notify($1, '')", [.text(PostgresStore.workChannel)])
            }
            return (id, superseded)
        }
        // A device twice in one update: row by row, as SQLite does (the second supersedes the first).
        for d in deliveries {
            if send.event == "update", d.target == .token, let device = d.deviceID {
                superseded += try db.run("""
                    UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = $1
                    WHERE activity_id = $2 AND device_id = $3 AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                    """, [time(now), .text(send.activityID), .text(device)])
            }
            try db.run("""
                INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, note, state, next_attempt_at, created_at, updated_at, environment)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10, $10, $11)
                """, [.integer(id), .text(send.activityID), .text(send.event), .from(d.deviceID), .text(d.target.rawValue), .text(d.token),
                      .integer(Int64(d.priority)), .from(d.note), time(d.notBefore), time(now), .from(d.environment)])
        }
        if !deliveries.isEmpty { try db.run("SELECT pg_notify($1, '')", [.text(PostgresStore.workChannel)]) }
        return (id, superseded)
    }

    func send(_ id: Int64) throws -> SendRecord? {
        try db.queryOne("SELECT * FROM sends WHERE id = $1", [.integer(id)]).map {
            SendRecord(id: $0.int64("id") ?? 0, activityID: $0.string("activity_id") ?? "", event: $0.string("event") ?? "",
                       bundleID: $0.string("bundle_id") ?? "", body: $0.bytes("body") ?? [], createdAt: date($0, "created_at"))
        }
    }

    /// `FOR UPDATE SKIP LOCKED`: rows another instance is claiming right now are passed over, not waited for.
    func claimDue(now: Date, limit: Int, leaseUntil: Date) throws -> [DeliveryRecord] {
        let rows = try db.query("""
            WITH due AS MATERIALIZED (
                SELECT id FROM outbox WHERE state IN ('queued', 'retrying') AND next_attempt_at <= $3
                ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
            UPDATE outbox SET state = 'sending', attempts = outbox.attempts + 1, lease_until = $1, updated_at = $2
            FROM due WHERE outbox.id = due.id
            RETURNING outbox.*
            """, [time(leaseUntil), time(now), time(now), .integer(Int64(limit))])
        return rows.map(deliveryRecord).sorted { $0.id < $1.id }
    }

    /// One statement for a batch whose ids are distinct (the workers' case); row by row otherwise.
    func record(_ outcomes: [DeliveryOutcome], now: Date) throws {
        try supersedeReplacedRetries(outcomes, now: now)  // +Budget.swift: coalesced, not a unique-index failure
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

    /// Rows another instance is releasing or claiming at this moment are skipped (it handles them).
    func releaseExpiredLeases(now: Date) throws -> Int {
        try release("state = 'sending' AND lease_until < $2", [time(now), time(now)])
    }

    func releaseAllLeases(now: Date) throws -> Int {
        try release("state = 'sending'", [time(now)])
    }

    /// Queues the rows `condition` selects again, except an update to a token that a newer update
    /// for the same activity and device replaced while it was on the wire (waiting, or released
    /// with it): that one is superseded, as it would have been had it still been waiting. Queuing
    /// it would break the rule of one waiting update per activity and device, and fail the claim.
    private func release(_ condition: String, _ bindings: [PostgresValue]) throws -> Int {
        try db.run("""
            WITH released AS MATERIALIZED (
                SELECT id, activity_id, device_id, event = 'update' AND target = 'token' AS is_update
                FROM outbox WHERE \(condition) FOR UPDATE SKIP LOCKED),
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
            """, bindings)
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
        try db.queryOne("SELECT 1 AS n FROM outbox WHERE activity_id = $1 AND state IN ('queued', 'sending', 'retrying') LIMIT 1", [.text(activityID)]) != nil
    }

    func activityTokens(activityID: String, limit: Int) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = $1 ORDER BY device_id LIMIT $2", [.text(activityID), .integer(Int64(limit))]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTokenCount(activityID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM activity_tokens WHERE activity_id = $1", [.text(activityID)])
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
        for row in try db.query("""
            SELECT device_id, count(*) AS n FROM outbox
            WHERE activity_id = $1 AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= $2 GROUP BY device_id
            """, [.text(activityID), time(since)]) {
            if let device = row.string("device_id") { counts[device] = row.int("n") ?? 0 }
        }
        return counts
    }

    func startCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM outbox WHERE device_id = $1 AND target = 'push-to-start' AND created_at >= $2",
                  [.text(deviceID), time(since)])
    }

    func markDisplayed(activityID: String, deviceID: String, at: Date) throws -> Bool {
        try db.run("""
            UPDATE outbox SET displayed_at = $1, updated_at = $1 WHERE id = (
                SELECT id FROM outbox WHERE activity_id = $2 AND device_id = $3 AND state = 'sent' ORDER BY id DESC LIMIT 1)
            """, [time(at), .text(activityID), .text(deviceID)]) > 0
    }


    // MARK: Channels

    func insertChannel(_ c: ChannelRecord) throws {
        try db.run("INSERT INTO channels (channel_id, bundle_id, storage_policy, created_at, activity_id) VALUES ($1, $2, $3, $4, $5)",
                   [.text(c.channelID), .text(c.bundleID), .integer(Int64(c.storagePolicy)), time(c.createdAt), .from(c.activityID)])
    }

    func channel(_ channelID: String) throws -> ChannelRecord? {
        try db.queryOne("SELECT * FROM channels WHERE channel_id = $1", [.text(channelID)]).map(channelRecord)
    }

    func channels(bundleID: String?) throws -> [ChannelRecord] {
        if let bundleID {
            return try db.query("SELECT * FROM channels WHERE bundle_id = $1 ORDER BY created_at, channel_id", [.text(bundleID)]).map(channelRecord)
        }
        return try db.query("SELECT * FROM channels ORDER BY created_at, channel_id", []).map(channelRecord)
    }

    func deleteChannel(_ channelID: String) throws -> Bool {
        try db.run("DELETE FROM channels WHERE channel_id = $1", [.text(channelID)]) > 0
    }

    func channelCount(bundleID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM channels WHERE bundle_id = $1", [.text(bundleID)])
    }


    // MARK: Idempotency

    func idempotentAnswer(keyID: String, key: String) throws -> IdempotentAnswer? {
        try db.queryOne("SELECT request_hash, status, body FROM idempotency WHERE key_id = $1 AND idempotency_key = $2", [.text(keyID), .text(key)]).map {
            IdempotentAnswer(requestHash: $0.string("request_hash") ?? "", status: $0.int("status") ?? 200, body: $0.bytes("body") ?? [])
        }
    }

    func saveIdempotentAnswer(keyID: String, key: String, answer: IdempotentAnswer, now: Date) throws {
        try db.run("INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status, body = excluded.body",
                   [.text(keyID), .text(key), .text(answer.requestHash), .integer(Int64(answer.status)), .bytea(answer.body), time(now)])
    }

    // MARK: Interactions

    /// `ON CONFLICT DO NOTHING`: two instances storing the same tap at once store it once.
    func insertInteraction(activityID: String, deviceID: String?, idempotencyKey: String, body: [UInt8], now: Date) throws -> (InteractionRecord, created: Bool) {
        if let inserted = try db.queryOne("""
            INSERT INTO interactions (activity_id, device_id, idempotency_key, body, created_at, webhook_state, next_attempt_at)
            VALUES ($1, $2, $3, $4, $5, 'pending', $5)
            ON CONFLICT (idempotency_key) DO NOTHING
            RETURNING *
            """, [.text(activityID), .from(deviceID), .text(idempotencyKey), .bytea(body), time(now)]) {
            return (interactionRecord(inserted), true)
        }
        guard let existing = try db.queryOne("SELECT * FROM interactions WHERE idempotency_key = $1", [.text(idempotencyKey)]) else {
            throw PostgresError(sqlState: nil, message: "an interaction conflicted on its idempotency key but cannot be read back")
        }
        return (interactionRecord(existing), false)
    }

    func interactions(activityID: String, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = $1 ORDER BY id LIMIT $2", [.text(activityID), .integer(Int64(limit))]).map(interactionRecord)
    }

    func dueInteractions(now: Date, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2",
                     [time(now), .integer(Int64(limit))]).map(interactionRecord)
    }

    func recordWebhook(id: Int64, state: String, attempts: Int, nextAttemptAt: Date, error: String?) throws {
        try db.run("UPDATE interactions SET webhook_state = $1, attempts = $2, next_attempt_at = $3, last_error = $4 WHERE id = $5",
                   [.text(state), .integer(Int64(attempts)), time(nextAttemptAt), .from(error), .integer(id)])
    }


    // MARK: Helpers

    /// A token row; `scope` names the column holding the attributes type or the activity id.

    // MARK: Trust: installations, user binding, activity holders (the trust branch's block)

    /// A replaced installation (a claim gave it a new secret) notifies `liveline_keys` (delivered
    /// at commit) so other instances drop their cached installations.
    func insertInstallation(_ installation: InstallationRecord) throws {
        let replaces = try db.queryOne("SELECT 1 FROM installations WHERE installation_id = $1", [.text(installation.installationID)]) != nil
        if replaces { try db.run("SELECT pg_notify($1, '')", [.text(PostgresStore.keysChannel)]) }
        try db.run("INSERT INTO installations (installation_id, bundle_id, secret_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (installation_id) DO UPDATE SET bundle_id = excluded.bundle_id, secret_hash = excluded.secret_hash, created_at = excluded.created_at",
                   [.text(installation.installationID), .text(installation.bundleID), .text(installation.secretHash), time(installation.createdAt)])
    }

    func installation(secretHash: String) throws -> InstallationRecord? {
        try db.queryOne("SELECT * FROM installations WHERE secret_hash = $1", [.text(secretHash)]).map { row in
            InstallationRecord(installationID: row.string("installation_id") ?? "", bundleID: row.string("bundle_id") ?? "",
                               secretHash: row.string("secret_hash") ?? "", createdAt: date(row, "created_at"))
        }
    }

    func setUserTokenSecret(bundleID: String, secret: String, now: Date) throws {
        try db.run("""
            INSERT INTO user_token_secrets (bundle_id, secret, previous_secret, updated_at) VALUES ($1, $2, NULL, $3)
            ON CONFLICT (bundle_id) DO UPDATE SET previous_secret = CASE WHEN user_token_secrets.secret = excluded.secret
                THEN user_token_secrets.previous_secret ELSE user_token_secrets.secret END, secret = excluded.secret, updated_at = excluded.updated_at
            """, [.text(bundleID), .text(secret), time(now)])
    }

    func userTokenSecrets(bundleID: String) throws -> [String] {
        guard let row = try db.queryOne("SELECT secret, previous_secret FROM user_token_secrets WHERE bundle_id = $1", [.text(bundleID)]) else { return [] }
        return [row.string("secret"), row.string("previous_secret")].compactMap { $0 }
    }

    func verifiedDeviceCount(userID: String, excluding deviceID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM devices WHERE user_id = $1 AND user_verified = 1 AND device_id <> $2", [.text(userID), .text(deviceID)])
    }

    func deviceHoldsToken(deviceID: String, token: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS n FROM push_to_start_tokens WHERE device_id = $1 AND token = $2 UNION ALL SELECT 1 AS n FROM activity_tokens WHERE device_id = $3 AND token = $4 LIMIT 1", [.text(deviceID), .text(token), .text(deviceID), .text(token)]) != nil
    }

    func wasPushStarted(activityID: String, deviceID: String, since: Date) throws -> Bool {
        try db.queryOne("SELECT id FROM outbox WHERE activity_id = $1 AND device_id = $2 AND target = 'push-to-start' AND created_at >= $3 LIMIT 1",
                        [.text(activityID), .text(deviceID), time(since)]) != nil
    }

    func interactionCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM interactions WHERE device_id = $1 AND created_at >= $2", [.text(deviceID), time(since)])
    }

    func deleteInteractions(before: Date) throws -> Int {
        try db.run("DELETE FROM interactions WHERE created_at < $1 AND webhook_state <> 'pending'", [time(before)])
    }

    func claimIdempotencyKey(keyID: String, key: String, requestHash: String, now: Date) throws -> IdempotentAnswer? {
        let claimed = try db.run("""
            INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES ($1, $2, $3, 0, $4, $5)
            ON CONFLICT (key_id, idempotency_key) DO NOTHING
            """, [.text(keyID), .text(key), .text(requestHash), .bytea([]), time(now)])
        if claimed > 0 { return nil }
        return try idempotentAnswer(keyID: keyID, key: key)
    }

    func interactions(activityID: String, after: Int64, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = $1 AND id > $2 ORDER BY id LIMIT $3", [.text(activityID), .integer(after), .integer(Int64(limit))]).map(interactionRecord)
    }

    // MARK: Token hygiene (migration 6-token-environment)

    /// The environment and refusal columns of a token row.
    private static func hygiene(_ token: TokenRecord) -> [PostgresValue] {
        [.from(token.environment), .from(token.refusedAt?.timeIntervalSince1970), .from(token.refusal)]
    }

    func pushToStartTokens(deviceID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM push_to_start_tokens WHERE device_id = $1 ORDER BY attributes_type", [.text(deviceID)]).map { tokenRecord($0, scope: "attributes_type") }
    }

    func refusePushToStartToken(deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE push_to_start_tokens SET refused_at = $1, refusal = $2 WHERE device_id = $3 AND token = $4",
                   [time(at), .text(reason), .text(deviceID), .text(token)]) > 0
    }

    func refuseActivityToken(activityID: String, deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE activity_tokens SET refused_at = $1, refusal = $2 WHERE activity_id = $3 AND device_id = $4 AND token = $5",
                   [time(at), .text(reason), .text(activityID), .text(deviceID), .text(token)]) > 0
    }

    private func count(_ sql: String, _ bindings: [PostgresValue]) throws -> Int {
        try db.queryOne(sql, bindings)?.int("n") ?? 0
    }

    private func time(_ date: Date) -> PostgresValue { .real(date.timeIntervalSince1970) }
}

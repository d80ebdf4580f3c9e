import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LivelineSQLite

/// The embedded store: one SQLite file in WAL mode, one connection, writes serialized and
/// committed in groups (`GroupCommit`).
///
/// Confinement: `database` is used only while `lock` is held.
public final class SQLiteStore: Store, @unchecked Sendable {
    private let lock = NSLock()
    private let database: SQLiteDatabase
    private let group = GroupCommit()
    public let location: String

    /// Opens (or creates) the database at `path` and applies the migrations it lacks.
    public init(path: String, synchronous: SQLiteDatabase.Options.Synchronous = .normal) throws(StoreError) {
        location = path
        var options = SQLiteDatabase.Options()
        options.synchronous = synchronous
        // One service instance per file: the lock enforces it, and commits skip shared memory.
        options.exclusive = true
        options.busyTimeout = .seconds(1)
        // A fan-out writes one outbox row (and five index entries) per token in one transaction:
        // 64 MiB of page cache keeps 100,000 of them from spilling mid-transaction.
        options.cacheSizeKiB = 64 * 1024
        try Self.ownerOnly(path)
        do {
            database = try SQLiteDatabase(path: path, options: options)
        } catch {
            if error.isBusy { throw Self.inUse(path) }
            throw StoreError("cannot open the database '\(path)': \(error.message)", isUnavailable: true)
        }
        do {
            // Secrets at rest: content a write replaces or deletes (a .p8 key sealed at start) is
            // zeroed in its page when that costs no extra I/O, so a plain key does not linger.
            _ = try database.query("PRAGMA secure_delete=FAST")
            try database.migrate(Migrations.sqlite)
        } catch {
            database.close()
            if error.isBusy { throw Self.inUse(path) }
            throw StoreError("cannot migrate the database '\(path)': \(error.message)")
        }
    }

    // MARK: File modes (secrets at rest)

    /// Creates the database file readable by its owner only (0600) before SQLite opens it (SQLite
    /// gives its -wal and -shm files the database file's mode), and takes group and other access
    /// away from an existing database and its -wal and -shm files.
    static func ownerOnly(_ path: String) throws(StoreError) {
        guard path != ":memory:", !path.hasPrefix("file:") else { return }
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = Glibc.close(fd)
            return
        }
        guard errno == EEXIST else { return }  // SQLite reports why it cannot open it
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_mode & 0o077 != 0 else { continue }
            guard chmod(file, info.st_mode & 0o700) == 0 else {
                throw StoreError("cannot make the database file '\(file)' readable by its owner only (chmod 0600): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func inUse(_ path: String) -> StoreError {
        StoreError("the database '\(path)' is in use by another process (another liveline serve?): one instance per SQLite file; several instances need PostgreSQL", isUnavailable: true)
    }

    /// Runs `body` in a transaction shared with the writers that arrive at the same time (see
    /// `GroupCommit`): each body runs in a savepoint of its own, and the batch commits once.
    public func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let (job, result) = Self.job(database, body)
            try group.submit(job) { [self] next in try runBatch(next) }
            return try result.get()
        }
    }

    /// `write`, suspending instead of blocking while another batch commits: the calling thread
    /// (an HTTP event loop) serves other requests meanwhile, and their writes share the next
    /// commit. Without a batch running it runs at once on the calling thread, as `write` does.
    public func writeAsync<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let (job, result) = Self.job(database, body)
        try await group.submitAsync(job) { [self] next in try runBatch(next) }
        return try result.get()
    }

    /// A group-commit job running `body` (in a savepoint of its own when the batch asks), and
    /// where its result lands.
    private static func job<T>(_ database: SQLiteDatabase, _ body: @escaping (any StoreTransaction) throws -> T) -> (GroupCommit.Job, Outcome<T>) {
        let result = Outcome<T>()
        let job = GroupCommit.Job { savepoint in
            do {
                let tx = SQLiteTransaction(db: database)
                result.value = .success(savepoint ? try database.transaction { try body(tx) } : try body(tx))
                return true
            } catch {
                result.value = .failure(error)
                return false
            }
        }
        return (job, result)
    }

    /// The leader's part: one transaction around the jobs `next` hands out.
    private func runBatch(_ next: () -> GroupCommit.Job?) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let first = next() else { return }
        if database.isClosed { throw StoreError("the database '\(location)' is closed", isUnavailable: true) }
        do {
            try database.transaction {
                // The first body has the transaction to itself so far: if it throws, rolling the
                // whole transaction back undoes only its work, and the batch ends with it.
                guard first.run(false) else { throw FirstBodyFailed() }
                while let job = next() {
                    _ = job.run(true)
                    // After SQLITE_FULL, SQLITE_IOERR and the like SQLite has rolled the whole
                    // transaction back: the batch must fail, not carry on in a new one.
                    guard database.isInTransaction else {
                        throw StoreError("the database '\(location)' rolled the transaction back after an error; nothing of it was kept", isUnavailable: true)
                    }
                }
            }
        } catch is FirstBodyFailed {
            return
        }
    }

    /// The first body of a batch threw (its error is in its own result).
    private struct FirstBodyFailed: Error {}

    /// Writers queued behind the running batch (for tests).
    var groupCommitPending: Int { group.pending }

    /// Batches committed and the transactions they carried.
    public var groupCommitCounts: (batches: Int, transactions: Int) {
        let c = group.counts
        return (c.batches, c.jobs)
    }

    public func close() {
        lock.lock()
        defer { lock.unlock() }
        database.close()
    }

    /// The SQLite library's version.
    public static var libraryVersion: String { SQLiteDatabase.libraryVersion }

    /// The names of the migrations the code knows, in order.
    public static var migrationNames: [String] { Migrations.sqlite.map(\.name) }
}

/// A job's result, written by the leader's thread before the job is marked finished (under the
/// group's lock) and read by its caller after.
private final class Outcome<T>: @unchecked Sendable {
    var value: Result<T, any Error>?

    /// The body's result, or its error; an error too if the batch ended before the body ran.
    func get() throws -> T {
        guard let value else { throw StoreError("the transaction ended before its body ran") }
        return try value.get()
    }
}

/// The store's operations on one open transaction.
struct SQLiteTransaction: StoreTransaction, RecordDecoding {
    let db: SQLiteDatabase

    /// A row not yet final, written as `outbox_waiting_by_activity`'s condition so SQLite uses that index.
    static let waitingCondition = "(state = 'queued' OR state = 'sending' OR state = 'retrying')"

    // MARK: Keys

    func insertKey(_ key: APIKeyRecord) throws {
        try db.run("INSERT INTO api_keys (id, scope, hash, name, created_at, bundle_id, apps, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [.text(key.id), .text(key.scope.rawValue), .text(key.hash), .from(key.name), .real(key.createdAt.timeIntervalSince1970),
                    .from(key.bundleID), .from(key.apps?.joined(separator: ",")), key.expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null,
                    key.revokedAt.map { .real($0.timeIntervalSince1970) } ?? .null])
    }

    func key(hash: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE hash = ?", [.text(hash)]).map(keyRecord)
    }

    func keyCount() throws -> Int { try count("SELECT count(*) AS n FROM api_keys", []) }

    // MARK: Key lifecycle (migration 5-key-lifecycle)

    func key(id: String) throws -> APIKeyRecord? {
        try db.queryOne("SELECT * FROM api_keys WHERE id = ?", [.text(id)]).map(keyRecord)
    }

    func keys(after: String?, limit: Int) throws -> [APIKeyRecord] {
        try db.query("SELECT * FROM api_keys WHERE id > ? ORDER BY id LIMIT ?", [.text(after ?? ""), .integer(Int64(limit))]).map(keyRecord)
    }

    func revokeKey(id: String, at: Date) throws -> Bool {
        try db.run("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.real(at.timeIntervalSince1970), .text(id)]) > 0
    }

    func expireKey(id: String, at: Date) throws -> Bool {
        try db.run("UPDATE api_keys SET expires_at = ? WHERE id = ? AND (expires_at IS NULL OR expires_at > ?)",
                   [.real(at.timeIntervalSince1970), .text(id), .real(at.timeIntervalSince1970)]) > 0
    }

    /// SQLite: the file's exclusive lock already makes this instance the only writer.
    func lockForBootstrap() throws {}

    // MARK: Apps

    func upsertApp(_ app: AppRecord) throws {
        try db.run("""
            INSERT INTO apps (bundle_id, team_id, key_id, key_pem, environment, created_at, environments) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (bundle_id) DO UPDATE SET team_id = excluded.team_id, key_id = excluded.key_id,
                key_pem = excluded.key_pem, environment = excluded.environment, environments = excluded.environments
            """, [.text(app.bundleID), .text(app.teamID), .text(app.keyID), .text(app.keyPEM), .text(app.environment), .real(app.createdAt.timeIntervalSince1970),
                  .from(app.environments?.joined(separator: ","))])
    }

    func app(bundleID: String) throws -> AppRecord? {
        try db.queryOne("SELECT * FROM apps WHERE bundle_id = ?", [.text(bundleID)]).map(appRecord)
    }

    func apps() throws -> [AppRecord] { try db.query("SELECT * FROM apps ORDER BY bundle_id", []).map(appRecord) }


    // MARK: Devices and tokens

    func upsertDevice(_ device: DeviceRecord) throws {
        try db.run("""
            INSERT INTO devices (device_id, bundle_id, ios_version, user_id, frequent_updates, updated_at, user_verified) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id) DO UPDATE SET bundle_id = excluded.bundle_id, ios_version = excluded.ios_version,
                user_id = excluded.user_id, frequent_updates = excluded.frequent_updates, updated_at = excluded.updated_at,
                user_verified = excluded.user_verified
            """, [.text(device.deviceID), .text(device.bundleID), .text(device.iosVersion), .from(device.userID),
                  .integer(device.frequentUpdates ? 1 : 0), .real(device.updatedAt.timeIntervalSince1970), .integer(device.userVerified ? 1 : 0)])
    }

    func device(_ deviceID: String) throws -> DeviceRecord? {
        try db.queryOne("SELECT * FROM devices WHERE device_id = ?", [.text(deviceID)]).map(deviceRecord)
    }

    func devices(userIDs: [String]) throws -> [DeviceRecord] {
        var result: [DeviceRecord] = []
        for user in userIDs {
            result += try db.query("SELECT * FROM devices WHERE user_id = ? AND user_verified = 1 ORDER BY device_id", [.text(user)]).map(deviceRecord)
        }
        return result
    }

    func deleteDevice(_ deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE device_id = ?", [.text(deviceID)])
        return try db.run("DELETE FROM devices WHERE device_id = ?", [.text(deviceID)]) > 0
    }


    func setPushToStartToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO push_to_start_tokens (device_id, attributes_type, token, registered_at, environment, refused_at, refusal) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (device_id, attributes_type) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.deviceID), .text(token.scope), .text(token.token), .real(token.registeredAt.timeIntervalSince1970)] + Self.hygiene(token))
    }

    func pushToStartToken(deviceID: String, attributesType: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM push_to_start_tokens WHERE device_id = ? AND attributes_type = ?", [.text(deviceID), .text(attributesType)]).map {
            tokenRecord($0, scope: "attributes_type")
        }
    }

    func deletePushToStartToken(deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM push_to_start_tokens WHERE device_id = ? AND token = ?", [.text(deviceID), .text(token)]) > 0
    }

    func setActivityToken(_ token: TokenRecord) throws {
        try db.run("""
            INSERT INTO activity_tokens (activity_id, device_id, token, registered_at, environment, refused_at, refusal) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id, device_id) DO UPDATE SET token = excluded.token, registered_at = excluded.registered_at,
                environment = excluded.environment, refused_at = excluded.refused_at, refusal = excluded.refusal
            """, [.text(token.scope), .text(token.deviceID), .text(token.token), .real(token.registeredAt.timeIntervalSince1970)] + Self.hygiene(token))
    }

    func activityTokens(activityID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = ? ORDER BY device_id", [.text(activityID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityToken(activityID: String, deviceID: String) throws -> TokenRecord? {
        try db.queryOne("SELECT * FROM activity_tokens WHERE activity_id = ? AND device_id = ?", [.text(activityID), .text(deviceID)]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTargets(activityID: String) throws -> [(token: TokenRecord, device: DeviceRecord?)] {
        try db.query("""
            SELECT t.activity_id, t.device_id, t.token, t.registered_at, t.environment, t.refused_at, t.refusal, d.bundle_id, d.ios_version, d.user_id, d.frequent_updates, d.updated_at
            FROM activity_tokens t LEFT JOIN devices d ON d.device_id = t.device_id WHERE t.activity_id = ? ORDER BY t.device_id
            """, [.text(activityID)]).map { row in
            (tokenRecord(row, scope: "activity_id"), row.string("ios_version") == nil ? nil : deviceRecord(row))
        }
    }

    func deleteActivityTokens(activityID: String) throws -> Int {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = ?", [.text(activityID)])
    }

    func deleteActivityToken(activityID: String, deviceID: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = ? AND device_id = ?", [.text(activityID), .text(deviceID)]) > 0
    }

    func deleteActivityToken(activityID: String, deviceID: String, token: String) throws -> Bool {
        try db.run("DELETE FROM activity_tokens WHERE activity_id = ? AND device_id = ? AND token = ?", [.text(activityID), .text(deviceID), .text(token)]) > 0
    }

    func tokenCount() throws -> Int {
        try count("SELECT (SELECT count(*) FROM activity_tokens) + (SELECT count(*) FROM push_to_start_tokens) AS n", [])
    }

    // MARK: Activities

    func upsertActivity(_ a: ActivityRecord) throws {
        try db.run("""
            INSERT INTO activities (activity_id, bundle_id, attributes_type, channel_id, started_at, ended_at, last_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id) DO UPDATE SET bundle_id = excluded.bundle_id, attributes_type = excluded.attributes_type,
                channel_id = excluded.channel_id, started_at = excluded.started_at, ended_at = excluded.ended_at, last_timestamp = excluded.last_timestamp
            """, [.text(a.activityID), .text(a.bundleID), .text(a.attributesType), .from(a.channelID), .real(a.startedAt.timeIntervalSince1970),
                  .from(a.endedAt?.timeIntervalSince1970), .from(a.lastTimestamp?.timeIntervalSince1970)])
    }

    func activity(_ activityID: String) throws -> ActivityRecord? {
        try db.queryOne("SELECT * FROM activities WHERE activity_id = ?", [.text(activityID)]).map {
            ActivityRecord(activityID: $0.string("activity_id") ?? "", bundleID: $0.string("bundle_id") ?? "", attributesType: $0.string("attributes_type") ?? "",
                           channelID: $0.string("channel_id"), startedAt: date($0, "started_at"), endedAt: optionalDate($0, "ended_at"),
                           lastTimestamp: optionalDate($0, "last_timestamp"))
        }
    }

    func recentActivityIDs(limit: Int) throws -> [String] {
        try db.query("SELECT activity_id FROM activities ORDER BY started_at DESC, activity_id LIMIT ?", [.integer(Int64(limit))]).compactMap { $0.string("activity_id") }
    }

    // MARK: Sends and the outbox

    func insertSend(_ send: SendRecord, deliveries: [NewDelivery], now: Date) throws -> (id: Int64, superseded: Int) {
        try db.run("INSERT INTO sends (activity_id, event, bundle_id, body, created_at) VALUES (?, ?, ?, ?, ?)",
                   [.text(send.activityID), .text(send.event), .text(send.bundleID), .blob(send.body), .real(now.timeIntervalSince1970)])
        let id = db.lastInsertRowID
        let t = now.timeIntervalSince1970
        var superseded = 0
        let updateDevices = send.event == "update" ? deliveries.filter { $0.target == .token }.compactMap(\.deviceID) : []
        if Set(updateDevices).count != updateDevices.count {
            // A device twice in one update: row by row, each superseding the one before.
            for d in deliveries {
                if send.event == "update", d.target == .token, let device = d.deviceID {
                    superseded += try db.run("""
                        UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = ?
                        WHERE activity_id = ? AND device_id = ? AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                        """, [.real(t), .text(send.activityID), .text(device)])
                }
                try db.run(Self.outboxInsert(rows: 1), Self.outboxBindings(id, send, [d], t))
            }
            return (id, superseded)
        }
        if !updateDevices.isEmpty {
            // The updates still waiting for this activity, by device: one query (the terms are the
            // partial unique index's own), then only the rows this send replaces.
            var waiting: [String: Int64] = [:]
            try db.forEachRow("""
                SELECT id, device_id FROM outbox
                WHERE activity_id = ? AND state IN ('queued', 'retrying') AND event = 'update' AND target = 'token'
                """, [.text(send.activityID)]) { row in
                if let device = row.string("device_id"), let rowID = row.int64("id") { waiting[device] = rowID }
            }
            if !waiting.isEmpty {
                for d in deliveries where d.target == .token {
                    guard let device = d.deviceID, let rowID = waiting[device] else { continue }
                    superseded += try db.run("UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', updated_at = ? WHERE id = ?",
                                             [.real(t), .integer(rowID)])
                }
            }
        }
        // Many rows a statement: a fan-out inserts tens of thousands.
        var rest = deliveries[...]
        for size in [64, 8, 1] {
            let sql = Self.outboxInsert(rows: size)
            while rest.count >= size {
                try db.run(sql, Self.outboxBindings(id, send, rest.prefix(size), t))
                rest = rest.dropFirst(size)
            }
        }
        return (id, superseded)
    }

    /// The values of `outboxInsert` for `deliveries` of send `id`, created at `t`.
    private static func outboxBindings(_ id: Int64, _ send: SendRecord, _ deliveries: some Collection<NewDelivery>, _ t: Double) -> [SQLiteValue] {
        var bindings: [SQLiteValue] = []
        bindings.reserveCapacity(deliveries.count * 12)
        for d in deliveries {
            bindings += [.integer(id), .text(send.activityID), .text(send.event), .from(d.deviceID), .text(d.target.rawValue), .text(d.token),
                         .integer(Int64(d.priority)), .from(d.note), .real(d.notBefore.timeIntervalSince1970), .real(t), .real(t), .from(d.environment)]
        }
        return bindings
    }

    /// An INSERT of `rows` outbox rows, each queued.
    private static func outboxInsert(rows: Int) -> String {
        "INSERT INTO outbox (send_id, activity_id, event, device_id, target, token, priority, note, state, next_attempt_at, created_at, updated_at, environment) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    func send(_ id: Int64) throws -> SendRecord? {
        try db.queryOne("SELECT * FROM sends WHERE id = ?", [.integer(id)]).map {
            SendRecord(id: $0.int64("id") ?? 0, activityID: $0.string("activity_id") ?? "", event: $0.string("event") ?? "",
                       bundleID: $0.string("bundle_id") ?? "", body: $0.blob("body") ?? [], createdAt: date($0, "created_at"))
        }
    }

    func claimDue(now: Date, limit: Int, leaseUntil: Date) throws -> [DeliveryRecord] {
        let rows = try db.query("""
            UPDATE outbox SET state = 'sending', attempts = attempts + 1, lease_until = ?, updated_at = ?
            WHERE id IN (SELECT id FROM outbox WHERE state IN ('queued', 'retrying') AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?)
            RETURNING *
            """, [.real(leaseUntil.timeIntervalSince1970), .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970), .integer(Int64(limit))])
        return rows.map(deliveryRecord).sorted { $0.id < $1.id }
    }

    func record(_ outcomes: [DeliveryOutcome], now: Date) throws {
        try supersedeReplacedRetries(outcomes, now: now)  // +Budget.swift: coalesced, not a unique-index failure
        // 64 verdicts a statement (UPDATE … FROM VALUES): a fan-out records tens of thousands.
        var rest = outcomes[...]
        for size in [64, 8, 1] {
            let sql = Self.recordUpdate(rows: size)
            while rest.count >= size {
                var bindings: [SQLiteValue] = [.real(now.timeIntervalSince1970)]
                bindings.reserveCapacity(1 + size * 6)
                for o in rest.prefix(size) {
                    bindings += [.integer(o.id), .text(o.state.rawValue), .from(o.apnsID), .from(o.status), .from(o.reason), .from(o.nextAttemptAt?.timeIntervalSince1970)]
                }
                try db.run(sql, bindings)
                rest = rest.dropFirst(size)
            }
        }
    }

    /// An UPDATE recording `rows` verdicts of rows still `sending` (a row released meanwhile keeps its state).
    private static func recordUpdate(rows: Int) -> String {
        """
        UPDATE outbox SET state = v.column2, apns_id = coalesce(v.column3, outbox.apns_id), status = v.column4, reason = v.column5,
            next_attempt_at = coalesce(v.column6, outbox.next_attempt_at), lease_until = NULL, updated_at = ?
        FROM (VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))) AS v
        WHERE outbox.id = v.column1 AND outbox.state = 'sending'
        """
    }

    func releaseExpiredLeases(now: Date) throws -> Int {
        try release(expiredOnly: true, now: now)
    }

    func releaseAllLeases(now: Date) throws -> Int {
        try release(expiredOnly: false, now: now)
    }

    /// Queues the `sending` rows (with `expiredOnly`, those past their lease) again, except an update to a token
    /// that a newer update for the same activity and device replaced while it was on the wire
    /// (waiting, or released with it): that one is superseded, as it would have been had it still
    /// been waiting. Queuing it would break the rule of one waiting update per activity and
    /// device, and fail the claim that releases it.
    private func release(expiredOnly: Bool, now: Date) throws -> Int {
        let t = SQLiteValue.real(now.timeIntervalSince1970)
        // The rows released: `sending`, and with `expiredOnly` past their lease (for a row alias).
        func released(_ alias: String) -> String { "\(alias).state = 'sending'" + (expiredOnly ? " AND \(alias).lease_until < ?" : "") }
        let lease: [SQLiteValue] = expiredOnly ? [t] : []
        let superseded = try db.run("""
            UPDATE outbox SET state = 'superseded', reason = 'a newer update replaced it', lease_until = NULL, updated_at = ?
            WHERE \(released("outbox")) AND event = 'update' AND target = 'token' AND (
                EXISTS (SELECT 1 FROM outbox w WHERE w.activity_id = outbox.activity_id AND w.device_id = outbox.device_id
                        AND w.state IN ('queued', 'retrying') AND w.event = 'update' AND w.target = 'token')
                OR EXISTS (SELECT 1 FROM outbox n WHERE \(released("n"))
                        AND n.event = 'update' AND n.target = 'token' AND n.activity_id = outbox.activity_id AND n.device_id = outbox.device_id AND n.id > outbox.id))
            """, [t] + lease + lease)
        let queued = try db.run("UPDATE outbox SET state = 'queued', lease_until = NULL, updated_at = ? WHERE \(released("outbox"))", [t] + lease)
        return superseded + queued
    }

    func nextDue() throws -> Date? {
        try db.queryOne("SELECT min(next_attempt_at) AS t FROM outbox WHERE state IN ('queued', 'retrying')", []).flatMap { optionalDate($0, "t") }
    }

    func deliveries(activityID: String, limit: Int) throws -> [DeliveryRecord] {
        try db.query("SELECT * FROM outbox WHERE activity_id = ? ORDER BY id DESC LIMIT ?", [.text(activityID), .integer(Int64(limit))]).map(deliveryRecord)
    }

    /// One connection and serialized writes: nobody else writes during this transaction.
    func lockActivity(_ activityID: String) throws {}

    func deliveries(activityID: String, deviceID: String, limit: Int) throws -> [DeliveryRecord] {
        try db.query("SELECT * FROM outbox WHERE activity_id = ? AND device_id = ? ORDER BY id DESC LIMIT ?",
                     [.text(activityID), .text(deviceID), .integer(Int64(limit))]).map(deliveryRecord)
    }

    func deliveryCounts(activityID: String) throws -> [DeliveryState: Int] {
        try counts(db.query("SELECT state, count(*) AS n FROM outbox WHERE activity_id = ? GROUP BY state", [.text(activityID)]))
    }

    func hasWaiting(activityID: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS n FROM outbox WHERE activity_id = ? AND \(Self.waitingCondition) LIMIT 1", [.text(activityID)]) != nil
    }

    func activityTokens(activityID: String, limit: Int) throws -> [TokenRecord] {
        try db.query("SELECT * FROM activity_tokens WHERE activity_id = ? ORDER BY device_id LIMIT ?", [.text(activityID), .integer(Int64(limit))]).map { tokenRecord($0, scope: "activity_id") }
    }

    func activityTokenCount(activityID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM activity_tokens WHERE activity_id = ?", [.text(activityID)])
    }

    func outboxCounts() throws -> [DeliveryState: Int] {
        try counts(db.query("SELECT state, count(*) AS n FROM outbox GROUP BY state", []))
    }


    func immediateCount(activityID: String, deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM outbox WHERE activity_id = ? AND device_id = ? AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= ?",
                  [.text(activityID), .text(deviceID), .real(since.timeIntervalSince1970)])
    }

    func immediateCounts(activityID: String, since: Date) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try db.forEachRow("""
            SELECT device_id, count(*) AS n FROM outbox
            WHERE activity_id = ? AND target = 'token' AND priority = 10 AND state <> 'superseded' AND created_at >= ? GROUP BY device_id
            """, [.text(activityID), .real(since.timeIntervalSince1970)]) { row in
            if let device = row.string("device_id") { counts[device] = row.int("n") ?? 0 }
        }
        return counts
    }

    func startCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM outbox WHERE device_id = ? AND target = 'push-to-start' AND created_at >= ?",
                  [.text(deviceID), .real(since.timeIntervalSince1970)])
    }

    func markDisplayed(activityID: String, deviceID: String, at: Date) throws -> Bool {
        try db.run("""
            UPDATE outbox SET displayed_at = ?, updated_at = ? WHERE id = (
                SELECT id FROM outbox WHERE activity_id = ? AND device_id = ? AND state = 'sent' ORDER BY id DESC LIMIT 1)
            """, [.real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970), .text(activityID), .text(deviceID)]) > 0
    }


    // MARK: Channels

    func insertChannel(_ c: ChannelRecord) throws {
        try db.run("INSERT INTO channels (channel_id, bundle_id, storage_policy, created_at, activity_id) VALUES (?, ?, ?, ?, ?)",
                   [.text(c.channelID), .text(c.bundleID), .integer(Int64(c.storagePolicy)), .real(c.createdAt.timeIntervalSince1970), .from(c.activityID)])
    }

    func channel(_ channelID: String) throws -> ChannelRecord? {
        try db.queryOne("SELECT * FROM channels WHERE channel_id = ?", [.text(channelID)]).map(channelRecord)
    }

    func channels(bundleID: String?) throws -> [ChannelRecord] {
        if let bundleID {
            return try db.query("SELECT * FROM channels WHERE bundle_id = ? ORDER BY created_at, channel_id", [.text(bundleID)]).map(channelRecord)
        }
        return try db.query("SELECT * FROM channels ORDER BY created_at, channel_id", []).map(channelRecord)
    }

    func deleteChannel(_ channelID: String) throws -> Bool {
        try db.run("DELETE FROM channels WHERE channel_id = ?", [.text(channelID)]) > 0
    }

    func channelCount(bundleID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM channels WHERE bundle_id = ?", [.text(bundleID)])
    }


    // MARK: Idempotency

    func idempotentAnswer(keyID: String, key: String) throws -> IdempotentAnswer? {
        try db.queryOne("SELECT request_hash, status, body FROM idempotency WHERE key_id = ? AND idempotency_key = ?", [.text(keyID), .text(key)]).map {
            IdempotentAnswer(requestHash: $0.string("request_hash") ?? "", status: $0.int("status") ?? 200, body: $0.blob("body") ?? [])
        }
    }

    func saveIdempotentAnswer(keyID: String, key: String, answer: IdempotentAnswer, now: Date) throws {
        try db.run("INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, status = excluded.status, body = excluded.body",
                   [.text(keyID), .text(key), .text(answer.requestHash), .integer(Int64(answer.status)), .blob(answer.body), .real(now.timeIntervalSince1970)])
    }

    // MARK: Interactions

    func insertInteraction(activityID: String, deviceID: String?, idempotencyKey: String, body: [UInt8], now: Date) throws -> (InteractionRecord, created: Bool) {
        if let existing = try db.queryOne("SELECT * FROM interactions WHERE idempotency_key = ?", [.text(idempotencyKey)]) {
            return (interactionRecord(existing), false)
        }
        try db.run("""
            INSERT INTO interactions (activity_id, device_id, idempotency_key, body, created_at, webhook_state, next_attempt_at)
            VALUES (?, ?, ?, ?, ?, 'pending', ?)
            """, [.text(activityID), .from(deviceID), .text(idempotencyKey), .blob(body), .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970)])
        let row = try db.queryOne("SELECT * FROM interactions WHERE id = ?", [.integer(db.lastInsertRowID)])
        return (row.map(interactionRecord)!, true)
    }

    func interactions(activityID: String, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = ? ORDER BY id LIMIT ?", [.text(activityID), .integer(Int64(limit))]).map(interactionRecord)
    }

    func dueInteractions(now: Date, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE webhook_state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
                     [.real(now.timeIntervalSince1970), .integer(Int64(limit))]).map(interactionRecord)
    }

    func recordWebhook(id: Int64, state: String, attempts: Int, nextAttemptAt: Date, error: String?) throws {
        try db.run("UPDATE interactions SET webhook_state = ?, attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                   [.text(state), .integer(Int64(attempts)), .real(nextAttemptAt.timeIntervalSince1970), .from(error), .integer(id)])
    }


    // MARK: Helpers

    /// A token row; `scope` names the column holding the attributes type or the activity id.

    // MARK: Trust: installations, user binding, activity holders (the trust branch's block)

    func insertInstallation(_ installation: InstallationRecord) throws {
        try db.run("INSERT INTO installations (installation_id, bundle_id, secret_hash, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (installation_id) DO UPDATE SET bundle_id = excluded.bundle_id, secret_hash = excluded.secret_hash, created_at = excluded.created_at",
                   [.text(installation.installationID), .text(installation.bundleID), .text(installation.secretHash), .real(installation.createdAt.timeIntervalSince1970)])
    }

    func installation(secretHash: String) throws -> InstallationRecord? {
        try db.queryOne("SELECT * FROM installations WHERE secret_hash = ?", [.text(secretHash)]).map { row in
            InstallationRecord(installationID: row.string("installation_id") ?? "", bundleID: row.string("bundle_id") ?? "",
                               secretHash: row.string("secret_hash") ?? "", createdAt: date(row, "created_at"))
        }
    }

    func setUserTokenSecret(bundleID: String, secret: String, now: Date) throws {
        try db.run("""
            INSERT INTO user_token_secrets (bundle_id, secret, previous_secret, updated_at) VALUES (?, ?, NULL, ?)
            ON CONFLICT (bundle_id) DO UPDATE SET previous_secret = CASE WHEN user_token_secrets.secret = excluded.secret
                THEN user_token_secrets.previous_secret ELSE user_token_secrets.secret END, secret = excluded.secret, updated_at = excluded.updated_at
            """, [.text(bundleID), .text(secret), .real(now.timeIntervalSince1970)])
    }

    func userTokenSecrets(bundleID: String) throws -> [String] {
        guard let row = try db.queryOne("SELECT secret, previous_secret FROM user_token_secrets WHERE bundle_id = ?", [.text(bundleID)]) else { return [] }
        return [row.string("secret"), row.string("previous_secret")].compactMap { $0 }
    }

    func verifiedDeviceCount(userID: String, excluding deviceID: String) throws -> Int {
        try count("SELECT count(*) AS n FROM devices WHERE user_id = ? AND user_verified = 1 AND device_id <> ?", [.text(userID), .text(deviceID)])
    }

    func deviceHoldsToken(deviceID: String, token: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS n FROM push_to_start_tokens WHERE device_id = ? AND token = ? UNION ALL SELECT 1 AS n FROM activity_tokens WHERE device_id = ? AND token = ? LIMIT 1", [.text(deviceID), .text(token), .text(deviceID), .text(token)]) != nil
    }

    func wasPushStarted(activityID: String, deviceID: String, since: Date) throws -> Bool {
        try db.queryOne("SELECT id FROM outbox WHERE activity_id = ? AND device_id = ? AND target = 'push-to-start' AND created_at >= ? LIMIT 1",
                        [.text(activityID), .text(deviceID), .real(since.timeIntervalSince1970)]) != nil
    }

    func interactionCount(deviceID: String, since: Date) throws -> Int {
        try count("SELECT count(*) AS n FROM interactions WHERE device_id = ? AND created_at >= ?", [.text(deviceID), .real(since.timeIntervalSince1970)])
    }

    func deleteInteractions(before: Date) throws -> Int {
        try db.run("DELETE FROM interactions WHERE created_at < ? AND webhook_state <> 'pending'", [.real(before.timeIntervalSince1970)])
    }

    func claimIdempotencyKey(keyID: String, key: String, requestHash: String, now: Date) throws -> IdempotentAnswer? {
        let claimed = try db.run("""
            INSERT INTO idempotency (key_id, idempotency_key, request_hash, status, body, created_at) VALUES (?, ?, ?, 0, ?, ?)
            ON CONFLICT (key_id, idempotency_key) DO NOTHING
            """, [.text(keyID), .text(key), .text(requestHash), .blob([]), .real(now.timeIntervalSince1970)])
        if claimed > 0 { return nil }
        return try idempotentAnswer(keyID: keyID, key: key)
    }

    func interactions(activityID: String, after: Int64, limit: Int) throws -> [InteractionRecord] {
        try db.query("SELECT * FROM interactions WHERE activity_id = ? AND id > ? ORDER BY id LIMIT ?", [.text(activityID), .integer(after), .integer(Int64(limit))]).map(interactionRecord)
    }

    // MARK: Token hygiene (migration 6-token-environment)

    /// The environment and refusal columns of a token row.
    private static func hygiene(_ token: TokenRecord) -> [SQLiteValue] {
        [.from(token.environment), .from(token.refusedAt?.timeIntervalSince1970), .from(token.refusal)]
    }

    func pushToStartTokens(deviceID: String) throws -> [TokenRecord] {
        try db.query("SELECT * FROM push_to_start_tokens WHERE device_id = ? ORDER BY attributes_type", [.text(deviceID)]).map { tokenRecord($0, scope: "attributes_type") }
    }

    func refusePushToStartToken(deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE push_to_start_tokens SET refused_at = ?, refusal = ? WHERE device_id = ? AND token = ?",
                   [.real(at.timeIntervalSince1970), .text(reason), .text(deviceID), .text(token)]) > 0
    }

    func refuseActivityToken(activityID: String, deviceID: String, token: String, at: Date, reason: String) throws -> Bool {
        try db.run("UPDATE activity_tokens SET refused_at = ?, refusal = ? WHERE activity_id = ? AND device_id = ? AND token = ?",
                   [.real(at.timeIntervalSince1970), .text(reason), .text(activityID), .text(deviceID), .text(token)]) > 0
    }

    private func count(_ sql: String, _ bindings: [SQLiteValue]) throws -> Int {
        try db.queryOne(sql, bindings)?.int("n") ?? 0
    }

}

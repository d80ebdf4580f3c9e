import Foundation

/// What went wrong in the store: a database error (with the statement, never the bound values),
/// or the database being unavailable.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// The database cannot be reached or opened; the API answers 503.
    public var isUnavailable: Bool
    public init(_ message: String, isUnavailable: Bool = false) {
        self.message = message
        self.isUnavailable = isUnavailable
    }
    public var description: String { message }
}

/// The service's storage: the token registry, the outbox and the records beside them.
///
/// Every read and write goes through one transaction: an error thrown inside the body, by the
/// store or by the caller, rolls back everything the body did. No SQL lives outside the store.
///
/// Module: LivelineStore owns the service's storage: this protocol, its one transaction
/// implementation (`SQLTransaction`, by concern in `SQLTransaction+*.swift`, with `SQLDialect` for
/// what the databases really differ in), the stores that own the connections (`SQLiteStore`,
/// `PostgresStore`), their schema and group commit. It imports LivelineSQL, LivelineSQLite and
/// LivelinePostgres only; it must never import the service, APNs, HTTP or the payload contract: it
/// stores bytes and records, and the service gives them meaning.
public protocol Store: Sendable {
    /// Runs `body` in one write transaction.
    func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T
    /// `write` for async callers: a store that commits in groups suspends the caller while
    /// another group commits, instead of blocking its thread.
    func writeAsync<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T
    /// Where the data lives, for people (a path; never a password).
    var location: String { get }
    /// Closes the store; later calls fail.
    func close()
    /// Whether other service instances may use the same database at once (PostgreSQL): then rows
    /// left sending are another instance's until their lease expires, not this one's to release at start.
    var isShared: Bool { get }
    /// Calls `wake` whenever another instance sharing the database commits new work, until
    /// `close()`. Returns whether it can; without it, other instances' work waits for the next poll.
    @discardableResult
    func observeSharedWork(_ wake: @escaping @Sendable () -> Void) -> Bool
    /// Calls `changed` whenever another instance revokes, expires or rotates a key or replaces an
    /// installation's secret, until `close()`. Returns whether it can (PostgreSQL); callers keep a
    /// short cache otherwise.
    @discardableResult
    func observeKeyChanges(_ changed: @escaping @Sendable () -> Void) -> Bool
}

extension Store {
    /// A store without group commit runs the transaction on the caller's thread.
    public func writeAsync<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        try write(body)
    }

    /// One instance per database (SQLite's exclusive file lock).
    public var isShared: Bool { false }
    /// Nobody else adds work to an unshared database.
    @discardableResult
    public func observeSharedWork(_ wake: @escaping @Sendable () -> Void) -> Bool { false }
    /// Nobody else changes keys in an unshared database.
    @discardableResult
    public func observeKeyChanges(_ changed: @escaping @Sendable () -> Void) -> Bool { false }
}

/// The operations available inside a transaction.
public protocol StoreTransaction {
    // MARK: Keys
    func insertKey(_ key: APIKeyRecord) throws
    func key(hash: String) throws -> APIKeyRecord?
    func keyCount() throws -> Int
    // Key lifecycle (migration 5-key-lifecycle)
    func key(id: String) throws -> APIKeyRecord?
    /// Keys ordered by id, after `after` (a page's last id), at most `limit`.
    func keys(after: String?, limit: Int) throws -> [APIKeyRecord]
    /// Sets `revokedAt` (when not yet revoked) and tells other instances (PostgreSQL: `liveline_keys`).
    func revokeKey(id: String, at: Date) throws -> Bool
    /// Sets `expiresAt` to `at` unless it is already earlier, and tells other instances.
    func expireKey(id: String, at: Date) throws -> Bool
    /// Holds the database's own lock for the bootstrap admin key until the transaction ends, so
    /// instances starting together make one key (PostgreSQL: an advisory lock; SQLite: the file's lock).
    func lockForBootstrap() throws

    // MARK: Apps
    func upsertApp(_ app: AppRecord) throws
    func app(bundleID: String) throws -> AppRecord?
    func apps() throws -> [AppRecord]

    // MARK: Devices and tokens
    func upsertDevice(_ device: DeviceRecord) throws
    func device(_ deviceID: String) throws -> DeviceRecord?
    func devices(userIDs: [String]) throws -> [DeviceRecord]
    func deleteDevice(_ deviceID: String) throws -> Bool
    func setPushToStartToken(_ token: TokenRecord) throws
    func pushToStartToken(deviceID: String, attributesType: String) throws -> TokenRecord?
    /// Removes the push-to-start token only if it is still `token` (the device may have rotated it).
    func deletePushToStartToken(deviceID: String, token: String) throws -> Bool
    func setActivityToken(_ token: TokenRecord) throws
    func activityTokens(activityID: String) throws -> [TokenRecord]
    func activityToken(activityID: String, deviceID: String) throws -> TokenRecord?
    /// The activity's update tokens with their devices, for a fan-out.
    func activityTargets(activityID: String) throws -> [(token: TokenRecord, device: DeviceRecord?)]
    func deleteActivityToken(activityID: String, deviceID: String) throws -> Bool
    /// Forgets every update token of an activity (it is started again); returns how many.
    func deleteActivityTokens(activityID: String) throws -> Int
    /// Removes an update token only if it is still `token`.
    func deleteActivityToken(activityID: String, deviceID: String, token: String) throws -> Bool
    func tokenCount() throws -> Int
    // Token hygiene (migration 6-token-environment)
    /// Every push-to-start token of a device, by attributes type.
    func pushToStartTokens(deviceID: String) throws -> [TokenRecord]
    /// Marks the push-to-start token refused (APNs answered BadDeviceToken) if it is still `token`; it is kept.
    func refusePushToStartToken(deviceID: String, token: String, at: Date, reason: String) throws -> Bool
    /// Marks the update token refused if it is still `token`; it is kept.
    func refuseActivityToken(activityID: String, deviceID: String, token: String, at: Date, reason: String) throws -> Bool

    // MARK: Activities
    func upsertActivity(_ activity: ActivityRecord) throws
    func activity(_ activityID: String) throws -> ActivityRecord?
    /// The ids of the `limit` most recently started activities, newest first.
    func recentActivityIDs(limit: Int) throws -> [String]

    // MARK: Sends and the outbox
    /// Stores a send and one outbox row per delivery. For an update, a row still waiting for the
    /// same activity and device is marked superseded first. Returns the send's id and how many rows it superseded.
    func insertSend(_ send: SendRecord, deliveries: [NewDelivery], now: Date) throws -> (id: Int64, superseded: Int)
    /// Holds the activity's lock (the one `insertSend` takes) until the transaction ends, so what is
    /// read next is not changed by another instance's send to it before this one commits (a start
    /// judging who already holds the activity). SQLite's writes are serialized already.
    func lockActivity(_ activityID: String) throws
    func send(_ id: Int64) throws -> SendRecord?
    /// Takes up to `limit` due rows (queued or retrying, `nextAttemptAt <= now`), oldest first, and
    /// marks them sending under a lease until `leaseUntil`.
    func claimDue(now: Date, limit: Int, leaseUntil: Date) throws -> [DeliveryRecord]
    func record(_ outcomes: [DeliveryOutcome], now: Date) throws
    /// Rows left sending by a worker that died: back to queued. Returns how many.
    func releaseExpiredLeases(now: Date) throws -> Int
    /// Every row still sending back to queued (a single instance starting up). Returns how many.
    func releaseAllLeases(now: Date) throws -> Int
    /// The earliest `nextAttemptAt` of a waiting row.
    func nextDue() throws -> Date?
    func deliveries(activityID: String, limit: Int) throws -> [DeliveryRecord]
    /// One device's rows of the activity, newest first (the index `outbox_by_activity`).
    func deliveries(activityID: String, deviceID: String, limit: Int) throws -> [DeliveryRecord]
    func deliveryCounts(activityID: String) throws -> [DeliveryState: Int]
    /// Whether a row of the activity is not yet final (queued, sending, retrying): one index
    /// probe, not a count, since `?wait` asks it every 25 ms during a fan-out of any size.
    func hasWaiting(activityID: String) throws -> Bool
    func activityTokens(activityID: String, limit: Int) throws -> [TokenRecord]
    func activityTokenCount(activityID: String) throws -> Int
    func outboxCounts() throws -> [DeliveryState: Int]
    /// Priority-10 update-token rows created for this activity and device since `since` (what spends ActivityKit's update budget).
    func immediateCount(activityID: String, deviceID: String, since: Date) throws -> Int
    /// `immediateCount` for every device of the activity at once (a device without rows is absent).
    func immediateCounts(activityID: String, since: Date) throws -> [String: Int]
    /// Push-to-start rows created for this device since `since`.
    func startCount(deviceID: String, since: Date) throws -> Int
    /// Marks the newest sent row for this activity and device displayed; returns whether one was.
    func markDisplayed(activityID: String, deviceID: String, at: Date) throws -> Bool

    // MARK: Budget ledger (migration 8-budget-ledger; BudgetSQL.swift)
    /// Records what sends did to budgets beyond their own outbox rows.
    func insertBudgetCharges(_ charges: [BudgetCharge]) throws
    /// Records a broadcast's charge (`deviceID` nil) for every running activity on `channelID`.
    func insertBroadcastCharges(sendID: Int64, channelID: String, kind: BudgetCharge.Kind, note: String?, now: Date) throws
    /// Who follows `channelID` at `now` and who of them spent the budget: priority-10 update rows to
    /// its token since `since`, plus the activity's broadcasts since `since` or since the device began
    /// to hold it, against `budget` (`frequentBudget` for devices with frequent updates). At most `limit` listed.
    func channelBudgetUse(channelID: String, now: Date, since: Date, budget: Int, frequentBudget: Int, limit: Int) throws -> ChannelBudgetUse
    /// A device's ledger lines: priority-10 pushes (its token rows, and with `followsChannels` the
    /// broadcasts of the activities it holds) and pushes lowered to 5 since `immediateSince`;
    /// push-to-starts since `startSince`; updates coalesced since `immediateSince` (at most `limit`
    /// of each of the last two, newest first).
    func budgetEntries(deviceID: String, followsChannels: Bool, immediateSince: Date, startSince: Date, limit: Int) throws -> [BudgetEntry]

    // MARK: Channels
    func insertChannel(_ channel: ChannelRecord) throws
    func channel(_ channelID: String) throws -> ChannelRecord?
    func channels(bundleID: String?) throws -> [ChannelRecord]
    func deleteChannel(_ channelID: String) throws -> Bool
    func channelCount(bundleID: String) throws -> Int

    // MARK: Idempotency
    func idempotentAnswer(keyID: String, key: String) throws -> IdempotentAnswer?
    func saveIdempotentAnswer(keyID: String, key: String, answer: IdempotentAnswer, now: Date) throws

    // MARK: Interactions
    /// Stores an interaction unless one with the same idempotency key exists; returns the stored one.
    func insertInteraction(activityID: String, deviceID: String?, idempotencyKey: String, body: [UInt8], now: Date) throws -> (InteractionRecord, created: Bool)
    func interactions(activityID: String, limit: Int) throws -> [InteractionRecord]
    func dueInteractions(now: Date, limit: Int) throws -> [InteractionRecord]
    func recordWebhook(id: Int64, state: String, attempts: Int, nextAttemptAt: Date, error: String?) throws

    // MARK: Trust: installations, user binding, activity holders (the trust branch's block)
    /// Stores an installation; a claimed device's installation replaces the one it had (and tells
    /// other instances, PostgreSQL: `liveline_keys`, as key changes do).
    func insertInstallation(_ installation: InstallationRecord) throws
    func installation(secretHash: String) throws -> InstallationRecord?
    /// Sets the app's HS256 secret for user tokens and activity grants; the one it replaces stays
    /// valid as the previous secret until the next rotation.
    func setUserTokenSecret(bundleID: String, secret: String, now: Date) throws
    /// The app's user-token secrets, newest first (at most two).
    func userTokenSecrets(bundleID: String) throws -> [String]
    /// Devices whose `userID` is `userID` and verified, other than `excluding`.
    func verifiedDeviceCount(userID: String, excluding deviceID: String) throws -> Int
    /// Whether `token` is currently one of the device's push-to-start or update tokens.
    func deviceHoldsToken(deviceID: String, token: String) throws -> Bool
    /// Whether the service push-started `activityID` on `deviceID` since `since` (a push-to-start outbox row).
    func wasPushStarted(activityID: String, deviceID: String, since: Date) throws -> Bool
    /// Interactions a device posted since `since`.
    func interactionCount(deviceID: String, since: Date) throws -> Int
    /// Deletes interactions created before `before` whose webhook is done (delivered or failed); returns how many.
    func deleteInteractions(before: Date) throws -> Int
    /// Claims `key` for the credential `keyID` inside the caller's transaction: `nil` when this
    /// request is the first with it (a placeholder is stored; `saveIdempotentAnswer` fills it), else
    /// the answer stored by the request that claimed it. On PostgreSQL a concurrent claimer waits
    /// for the first one's commit, so two requests with one key never both run.
    func claimIdempotencyKey(keyID: String, key: String, requestHash: String, now: Date) throws -> IdempotentAnswer?
    /// A page of interactions after id `after`, oldest first.
    func interactions(activityID: String, after: Int64, limit: Int) throws -> [InteractionRecord]

    // MARK: Device reports (migration 7-activity-status; SQLTransaction+DeviceReports.swift)
    /// Stores a device's report about an activity (a decode failure) in place of its previous
    /// report of the same kind; returns it with its id.
    func replaceDeviceReport(_ report: DeviceReportRecord) throws -> DeviceReportRecord
    /// The activity's reports: one per device and kind, oldest first.
    func deviceReports(activityID: String) throws -> [DeviceReportRecord]

    // MARK: App builds and schema versions (migration 10-app-builds)
    /// Replaces what the device reported of its app (an empty record removes it).
    func setDeviceBuild(_ build: DeviceBuildRecord) throws
    func deviceBuild(deviceID: String) throws -> DeviceBuildRecord?
    /// The devices holding an update token for the activity that reported a version of `attributesType`;
    /// with `pushStarted`, also those a push-to-start of the activity was queued for (they may follow its channel).
    func installedVersions(activityID: String, attributesType: String, pushStarted: Bool) throws -> [InstalledVersion]
    /// The same for the devices `deviceIDs` (a start's audience).
    func installedVersions(deviceIDs: [String], attributesType: String) throws -> [InstalledVersion]
    /// How many devices report each version of `attributesType`, with their builds.
    func versionPopulations(attributesType: String) throws -> [VersionPopulation]
    /// Stores a version; one already stored keeps its `createdAt` and is no longer retired.
    func upsertSchemaVersion(_ version: SchemaVersionRecord) throws
    func schemaVersion(attributesType: String, version: String) throws -> SchemaVersionRecord?
    /// Every stored version (of one type, or of all), ordered by type and creation.
    func schemaVersions(attributesType: String?) throws -> [SchemaVersionRecord]
    /// Whether a version not yet retired is stored for the type (a send's cheap first question).
    func hasActiveSchemaVersions(attributesType: String) throws -> Bool
    /// Sets `retiredAt` unless already retired; returns whether it changed.
    func retireSchemaVersion(attributesType: String, version: String, at: Date) throws -> Bool

    // MARK: Consistency: compare-and-set, rows given back, the webhook's lease (migration 9-webhook-lease)
    /// Sets the activity's `endedAt` and `lastTimestamp` to `updated`'s only if its `startedAt`,
    /// `endedAt` and `lastTimestamp` are still `expected`'s (read earlier): returns whether it did.
    /// A send that read the activity before another request ended or advanced it writes nothing.
    func setActivityTimes(_ updated: ActivityRecord, ifStill expected: ActivityRecord) throws -> Bool
    /// Claimed rows that were never sent (a store error before the push, or a client shut down
    /// under it): `retrying` at `nextAttemptAt`, with the attempt their claim counted given back.
    /// Only rows still `sending`; an older update whose device has a newer one waiting is superseded
    /// instead. Returns how many rows changed.
    func releaseUnsent(_ ids: [Int64], reason: String, nextAttemptAt: Date, now: Date) throws -> Int
    /// Claims up to `limit` pending interactions that are due and not under another claimant's live
    /// lease, for `claimant` until `leaseUntil`, counting an attempt each, in one statement: two
    /// claimants never get the same interaction while its lease lasts (PostgreSQL: `FOR UPDATE SKIP
    /// LOCKED`). A claimant's own leases do not hold it back (the one instance of an SQLite file,
    /// started again after a crash, takes back at once what it held).
    func claimWebhooks(by claimant: String, now: Date, limit: Int, leaseUntil: Date) throws -> [InteractionRecord]
    /// Records a claimed interaction's webhook attempt and ends the lease, only if `claimant` still
    /// holds it (another claimant took it over after the lease lapsed otherwise): returns whether it did.
    func completeWebhook(id: Int64, claimant: String, state: String, nextAttemptAt: Date, error: String?) throws -> Bool

    // MARK: Activity aliases (migration 12-activity-aliases)
    /// The alias `alias` of app `bundleID`, if one was recorded.
    func activityAlias(bundleID: String, alias: String) throws -> ActivityAliasRecord?
    /// Records an alias unless `(bundleID, alias)` is taken (the first one stays): returns whether it did.
    func insertActivityAlias(_ record: ActivityAliasRecord) throws -> Bool
    /// Every alias of an activity, by app and alias.
    func activityAliases(activityID: String) throws -> [ActivityAliasRecord]

    // MARK: On-demand channels of logical activities (migration 13-activity-channels)
    /// The channel the service created on demand for the activity, if it still has one.
    func activityChannel(activityID: String) throws -> ChannelRecord?
    /// Up to `limit` on-demand channels whose activity ended at or before `endedBefore`, or started
    /// at or before `startedBefore` (ActivityKit has ended it on the device), or is gone: due for deletion.
    func staleActivityChannels(endedBefore: Date, startedBefore: Date, limit: Int) throws -> [ChannelRecord]

    // MARK: Renewal past 8 hours (migration 14-activity-renewal)
    /// Records an activity's renewal opt-in and running generation (replacing the previous record).
    func setActivityRenewal(_ renewal: ActivityRenewalRecord) throws
    /// The activity's renewal record, if its start said `renew`.
    func activityRenewal(activityID: String) throws -> ActivityRenewalRecord?
    /// Up to `limit` activities that opted in and either started after `startedAfter` and at or before
    /// `startedBefore` and have not ended by `now` (a successor is due), or have a device renewal waiting or pending.
    func renewalCandidates(startedAfter: Date, startedBefore: Date, now: Date, limit: Int) throws -> [String]
    /// Records a device's renewal of one generation (replacing the record of the same generation).
    func upsertDeviceRenewal(_ renewal: DeviceRenewalRecord) throws
    /// Every device renewal of the activity, by generation and device.
    func deviceRenewals(activityID: String) throws -> [DeviceRenewalRecord]
    // MARK: Channel members (migration 16-channel-members)
    /// Records (or replaces) that a device's app-started activity follows the activity's channel.
    func setChannelMember(_ member: ChannelMemberRecord) throws
    /// The member row of one device for one activity.
    func channelMember(activityID: String, deviceID: String) throws -> ChannelMemberRecord?
    /// Every member of an activity, newest first.
    func channelMembers(activityID: String) throws -> [ChannelMemberRecord]
    /// Forgets a member (its activity ended on the phone): returns whether there was one.
    func deleteChannelMember(activityID: String, deviceID: String) throws -> Bool
    /// What each member of the running activities on `channelID` spent of its priority-10 budget
    /// since `since` (or since it joined), read only for activities with at least `atLeast`
    /// priority-10 broadcasts since `since`.
    func channelMemberSpending(channelID: String, now: Date, since: Date, atLeast: Int) throws -> [ChannelMemberSpending]
}

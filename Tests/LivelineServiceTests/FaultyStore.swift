import Foundation
import LivelineStore
import Synchronization

/// Faults to inject into a real store: `fail("send", times: 3)` makes the next three calls of
/// every transaction operation named `send` throw a `StoreError` (unavailable, as a dropped
/// connection does) before reaching the database; other calls go through untouched.
final class StoreFaults: Sendable {
    private struct State {
        var armed: [String: Int] = [:]
        var thrown: [String: Int] = [:]
    }
    private let state = Mutex(State())

    /// Makes the next `times` calls of `operation` throw.
    func fail(_ operation: String, times: Int) { state.withLock { $0.armed[operation, default: 0] += times } }
    /// How many faults `operation` has thrown so far.
    func thrown(_ operation: String) -> Int { state.withLock { $0.thrown[operation] ?? 0 } }
    /// How many armed faults of `operation` have not fired yet.
    func remaining(_ operation: String) -> Int { state.withLock { $0.armed[operation] ?? 0 } }

    func check(_ operation: String) throws {
        let fire = state.withLock { s -> Bool in
            guard let n = s.armed[operation], n > 0 else { return false }
            s.armed[operation] = n - 1
            s.thrown[operation, default: 0] += 1
            return true
        }
        if fire { throw StoreError("injected fault: \(operation) failed (the database is briefly unavailable)", isUnavailable: true) }
    }
}

/// A real store (SQLite or PostgreSQL) with faults injected on demand: every transaction runs in
/// the wrapped store, and each operation first asks `faults` whether to throw instead.
final class FaultyStore: Store {
    let inner: any Store
    let faults: StoreFaults

    init(_ inner: any Store, faults: StoreFaults = StoreFaults()) {
        self.inner = inner
        self.faults = faults
    }

    func write<T>(_ body: (any StoreTransaction) throws -> T) throws -> T {
        try inner.write { tx in try body(FaultyTransaction(inner: tx, faults: faults)) }
    }

    func writeAsync<T: Sendable>(_ body: @escaping @Sendable (any StoreTransaction) throws -> T) async throws -> T {
        let faults = faults
        return try await inner.writeAsync { tx in try body(FaultyTransaction(inner: tx, faults: faults)) }
    }

    var location: String { inner.location }
    func close() { inner.close() }
    var isShared: Bool { inner.isShared }
    @discardableResult
    func observeSharedWork(_ wake: @escaping @Sendable () -> Void) -> Bool { inner.observeSharedWork(wake) }
    @discardableResult
    func observeKeyChanges(_ changed: @escaping @Sendable () -> Void) -> Bool { inner.observeKeyChanges(changed) }
}

/// Forwards every operation to the real transaction after `faults.check` (generated from the
/// `StoreTransaction` protocol: one line an operation).
private struct FaultyTransaction: StoreTransaction {
    let inner: any StoreTransaction
    let faults: StoreFaults

    func insertKey(_ key: APIKeyRecord) throws { try faults.check("insertKey"); return try inner.insertKey(key) }
    func key(hash: String) throws -> APIKeyRecord? { try faults.check("key"); return try inner.key(hash: hash) }
    func keyCount() throws -> Int { try faults.check("keyCount"); return try inner.keyCount() }
    func key(id: String) throws -> APIKeyRecord? { try faults.check("key"); return try inner.key(id: id) }
    func keys(after: String?, limit: Int) throws -> [APIKeyRecord] { try faults.check("keys"); return try inner.keys(after: after, limit: limit) }
    func revokeKey(id: String, at: Date) throws -> Bool { try faults.check("revokeKey"); return try inner.revokeKey(id: id, at: at) }
    func expireKey(id: String, at: Date) throws -> Bool { try faults.check("expireKey"); return try inner.expireKey(id: id, at: at) }
    func lockForBootstrap() throws { try faults.check("lockForBootstrap"); return try inner.lockForBootstrap() }
    func upsertApp(_ app: AppRecord) throws { try faults.check("upsertApp"); return try inner.upsertApp(app) }
    func app(bundleID: String) throws -> AppRecord? { try faults.check("app"); return try inner.app(bundleID: bundleID) }
    func apps() throws -> [AppRecord] { try faults.check("apps"); return try inner.apps() }
    func upsertDevice(_ device: DeviceRecord) throws { try faults.check("upsertDevice"); return try inner.upsertDevice(device) }
    func device(_ deviceID: String) throws -> DeviceRecord? { try faults.check("device"); return try inner.device(deviceID) }
    func devices(userIDs: [String]) throws -> [DeviceRecord] { try faults.check("devices"); return try inner.devices(userIDs: userIDs) }
    func deleteDevice(_ deviceID: String) throws -> Bool { try faults.check("deleteDevice"); return try inner.deleteDevice(deviceID) }
    func setPushToStartToken(_ token: TokenRecord) throws { try faults.check("setPushToStartToken"); return try inner.setPushToStartToken(token) }
    func pushToStartToken(deviceID: String, attributesType: String) throws -> TokenRecord? { try faults.check("pushToStartToken"); return try inner.pushToStartToken(deviceID: deviceID, attributesType: attributesType) }
    func deletePushToStartToken(deviceID: String, token: String) throws -> Bool { try faults.check("deletePushToStartToken"); return try inner.deletePushToStartToken(deviceID: deviceID, token: token) }
    func setActivityToken(_ token: TokenRecord) throws { try faults.check("setActivityToken"); return try inner.setActivityToken(token) }
    func activityTokens(activityID: String) throws -> [TokenRecord] { try faults.check("activityTokens"); return try inner.activityTokens(activityID: activityID) }
    func activityToken(activityID: String, deviceID: String) throws -> TokenRecord? { try faults.check("activityToken"); return try inner.activityToken(activityID: activityID, deviceID: deviceID) }
    func activityTargets(activityID: String) throws -> [(token: TokenRecord, device: DeviceRecord?)] { try faults.check("activityTargets"); return try inner.activityTargets(activityID: activityID) }
    func deleteActivityToken(activityID: String, deviceID: String) throws -> Bool { try faults.check("deleteActivityToken"); return try inner.deleteActivityToken(activityID: activityID, deviceID: deviceID) }
    func deleteActivityTokens(activityID: String) throws -> Int { try faults.check("deleteActivityTokens"); return try inner.deleteActivityTokens(activityID: activityID) }
    func deleteActivityToken(activityID: String, deviceID: String, token: String) throws -> Bool { try faults.check("deleteActivityToken"); return try inner.deleteActivityToken(activityID: activityID, deviceID: deviceID, token: token) }
    func tokenCount() throws -> Int { try faults.check("tokenCount"); return try inner.tokenCount() }
    func pushToStartTokens(deviceID: String) throws -> [TokenRecord] { try faults.check("pushToStartTokens"); return try inner.pushToStartTokens(deviceID: deviceID) }
    func refusePushToStartToken(deviceID: String, token: String, at: Date, reason: String) throws -> Bool { try faults.check("refusePushToStartToken"); return try inner.refusePushToStartToken(deviceID: deviceID, token: token, at: at, reason: reason) }
    func refuseActivityToken(activityID: String, deviceID: String, token: String, at: Date, reason: String) throws -> Bool { try faults.check("refuseActivityToken"); return try inner.refuseActivityToken(activityID: activityID, deviceID: deviceID, token: token, at: at, reason: reason) }
    func upsertActivity(_ activity: ActivityRecord) throws { try faults.check("upsertActivity"); return try inner.upsertActivity(activity) }
    func activity(_ activityID: String) throws -> ActivityRecord? { try faults.check("activity"); return try inner.activity(activityID) }
    func recentActivityIDs(limit: Int) throws -> [String] { try faults.check("recentActivityIDs"); return try inner.recentActivityIDs(limit: limit) }
    func insertSend(_ send: SendRecord, deliveries: [NewDelivery], now: Date) throws -> (id: Int64, superseded: Int) { try faults.check("insertSend"); return try inner.insertSend(send, deliveries: deliveries, now: now) }
    func send(_ id: Int64) throws -> SendRecord? { try faults.check("send"); return try inner.send(id) }
    func claimDue(now: Date, limit: Int, leaseUntil: Date) throws -> [DeliveryRecord] { try faults.check("claimDue"); return try inner.claimDue(now: now, limit: limit, leaseUntil: leaseUntil) }
    func record(_ outcomes: [DeliveryOutcome], now: Date) throws { try faults.check("record"); return try inner.record(outcomes, now: now) }
    func releaseExpiredLeases(now: Date) throws -> Int { try faults.check("releaseExpiredLeases"); return try inner.releaseExpiredLeases(now: now) }
    func releaseAllLeases(now: Date) throws -> Int { try faults.check("releaseAllLeases"); return try inner.releaseAllLeases(now: now) }
    func nextDue() throws -> Date? { try faults.check("nextDue"); return try inner.nextDue() }
    func deliveries(activityID: String, limit: Int) throws -> [DeliveryRecord] { try faults.check("deliveries"); return try inner.deliveries(activityID: activityID, limit: limit) }
    func lockActivity(_ activityID: String) throws { try faults.check("lockActivity"); try inner.lockActivity(activityID) }
    func deliveries(activityID: String, deviceID: String, limit: Int) throws -> [DeliveryRecord] { try faults.check("deliveries"); return try inner.deliveries(activityID: activityID, deviceID: deviceID, limit: limit) }
    func deliveryCounts(activityID: String) throws -> [DeliveryState: Int] { try faults.check("deliveryCounts"); return try inner.deliveryCounts(activityID: activityID) }
    func hasWaiting(activityID: String) throws -> Bool { try faults.check("hasWaiting"); return try inner.hasWaiting(activityID: activityID) }
    func activityTokens(activityID: String, limit: Int) throws -> [TokenRecord] { try faults.check("activityTokens"); return try inner.activityTokens(activityID: activityID, limit: limit) }
    func activityTokenCount(activityID: String) throws -> Int { try faults.check("activityTokenCount"); return try inner.activityTokenCount(activityID: activityID) }
    func outboxCounts() throws -> [DeliveryState: Int] { try faults.check("outboxCounts"); return try inner.outboxCounts() }
    func immediateCount(activityID: String, deviceID: String, since: Date) throws -> Int { try faults.check("immediateCount"); return try inner.immediateCount(activityID: activityID, deviceID: deviceID, since: since) }
    func immediateCounts(activityID: String, since: Date) throws -> [String: Int] { try faults.check("immediateCounts"); return try inner.immediateCounts(activityID: activityID, since: since) }
    func startCount(deviceID: String, since: Date) throws -> Int { try faults.check("startCount"); return try inner.startCount(deviceID: deviceID, since: since) }
    func markDisplayed(activityID: String, deviceID: String, at: Date) throws -> Bool { try faults.check("markDisplayed"); return try inner.markDisplayed(activityID: activityID, deviceID: deviceID, at: at) }
    func insertChannel(_ channel: ChannelRecord) throws { try faults.check("insertChannel"); return try inner.insertChannel(channel) }
    func channel(_ channelID: String) throws -> ChannelRecord? { try faults.check("channel"); return try inner.channel(channelID) }
    func channels(bundleID: String?) throws -> [ChannelRecord] { try faults.check("channels"); return try inner.channels(bundleID: bundleID) }
    func deleteChannel(_ channelID: String) throws -> Bool { try faults.check("deleteChannel"); return try inner.deleteChannel(channelID) }
    func channelCount(bundleID: String) throws -> Int { try faults.check("channelCount"); return try inner.channelCount(bundleID: bundleID) }
    func idempotentAnswer(keyID: String, key: String) throws -> IdempotentAnswer? { try faults.check("idempotentAnswer"); return try inner.idempotentAnswer(keyID: keyID, key: key) }
    func saveIdempotentAnswer(keyID: String, key: String, answer: IdempotentAnswer, now: Date) throws { try faults.check("saveIdempotentAnswer"); return try inner.saveIdempotentAnswer(keyID: keyID, key: key, answer: answer, now: now) }
    func insertInteraction(activityID: String, deviceID: String?, idempotencyKey: String, body: [UInt8], now: Date) throws -> (InteractionRecord, created: Bool) { try faults.check("insertInteraction"); return try inner.insertInteraction(activityID: activityID, deviceID: deviceID, idempotencyKey: idempotencyKey, body: body, now: now) }
    func interactions(activityID: String, limit: Int) throws -> [InteractionRecord] { try faults.check("interactions"); return try inner.interactions(activityID: activityID, limit: limit) }
    func dueInteractions(now: Date, limit: Int) throws -> [InteractionRecord] { try faults.check("dueInteractions"); return try inner.dueInteractions(now: now, limit: limit) }
    func recordWebhook(id: Int64, state: String, attempts: Int, nextAttemptAt: Date, error: String?) throws { try faults.check("recordWebhook"); return try inner.recordWebhook(id: id, state: state, attempts: attempts, nextAttemptAt: nextAttemptAt, error: error) }
    func insertInstallation(_ installation: InstallationRecord) throws { try faults.check("insertInstallation"); return try inner.insertInstallation(installation) }
    func installation(secretHash: String) throws -> InstallationRecord? { try faults.check("installation"); return try inner.installation(secretHash: secretHash) }
    func setUserTokenSecret(bundleID: String, secret: String, now: Date) throws { try faults.check("setUserTokenSecret"); return try inner.setUserTokenSecret(bundleID: bundleID, secret: secret, now: now) }
    func userTokenSecrets(bundleID: String) throws -> [String] { try faults.check("userTokenSecrets"); return try inner.userTokenSecrets(bundleID: bundleID) }
    func verifiedDeviceCount(userID: String, excluding deviceID: String) throws -> Int { try faults.check("verifiedDeviceCount"); return try inner.verifiedDeviceCount(userID: userID, excluding: deviceID) }
    func deviceHoldsToken(deviceID: String, token: String) throws -> Bool { try faults.check("deviceHoldsToken"); return try inner.deviceHoldsToken(deviceID: deviceID, token: token) }
    func wasPushStarted(activityID: String, deviceID: String, since: Date) throws -> Bool { try faults.check("wasPushStarted"); return try inner.wasPushStarted(activityID: activityID, deviceID: deviceID, since: since) }
    func interactionCount(deviceID: String, since: Date) throws -> Int { try faults.check("interactionCount"); return try inner.interactionCount(deviceID: deviceID, since: since) }
    func deleteInteractions(before: Date) throws -> Int { try faults.check("deleteInteractions"); return try inner.deleteInteractions(before: before) }
    func claimIdempotencyKey(keyID: String, key: String, requestHash: String, now: Date) throws -> IdempotentAnswer? { try faults.check("claimIdempotencyKey"); return try inner.claimIdempotencyKey(keyID: keyID, key: key, requestHash: requestHash, now: now) }
    func interactions(activityID: String, after: Int64, limit: Int) throws -> [InteractionRecord] { try faults.check("interactions"); return try inner.interactions(activityID: activityID, after: after, limit: limit) }
    func replaceDeviceReport(_ report: DeviceReportRecord) throws -> DeviceReportRecord { try faults.check("replaceDeviceReport"); return try inner.replaceDeviceReport(report) }
    func deviceReports(activityID: String) throws -> [DeviceReportRecord] { try faults.check("deviceReports"); return try inner.deviceReports(activityID: activityID) }
    func setDeviceBuild(_ build: DeviceBuildRecord) throws { try faults.check("setDeviceBuild"); return try inner.setDeviceBuild(build) }
    func deviceBuild(deviceID: String) throws -> DeviceBuildRecord? { try faults.check("deviceBuild"); return try inner.deviceBuild(deviceID: deviceID) }
    func installedVersions(activityID: String, attributesType: String, pushStarted: Bool) throws -> [InstalledVersion] { try faults.check("installedVersions"); return try inner.installedVersions(activityID: activityID, attributesType: attributesType, pushStarted: pushStarted) }
    func installedVersions(deviceIDs: [String], attributesType: String) throws -> [InstalledVersion] { try faults.check("installedVersions"); return try inner.installedVersions(deviceIDs: deviceIDs, attributesType: attributesType) }
    func versionPopulations(attributesType: String) throws -> [VersionPopulation] { try faults.check("versionPopulations"); return try inner.versionPopulations(attributesType: attributesType) }
    func upsertSchemaVersion(_ version: SchemaVersionRecord) throws { try faults.check("upsertSchemaVersion"); return try inner.upsertSchemaVersion(version) }
    func schemaVersion(attributesType: String, version: String) throws -> SchemaVersionRecord? { try faults.check("schemaVersion"); return try inner.schemaVersion(attributesType: attributesType, version: version) }
    func schemaVersions(attributesType: String?) throws -> [SchemaVersionRecord] { try faults.check("schemaVersions"); return try inner.schemaVersions(attributesType: attributesType) }
    func hasActiveSchemaVersions(attributesType: String) throws -> Bool { try faults.check("hasActiveSchemaVersions"); return try inner.hasActiveSchemaVersions(attributesType: attributesType) }
    func retireSchemaVersion(attributesType: String, version: String, at: Date) throws -> Bool { try faults.check("retireSchemaVersion"); return try inner.retireSchemaVersion(attributesType: attributesType, version: version, at: at) }
    func setActivityTimes(_ updated: ActivityRecord, ifStill expected: ActivityRecord) throws -> Bool { try faults.check("setActivityTimes"); return try inner.setActivityTimes(updated, ifStill: expected) }
    func releaseUnsent(_ ids: [Int64], reason: String, nextAttemptAt: Date, now: Date) throws -> Int { try faults.check("releaseUnsent"); return try inner.releaseUnsent(ids, reason: reason, nextAttemptAt: nextAttemptAt, now: now) }
    func claimWebhooks(by claimant: String, now: Date, limit: Int, leaseUntil: Date) throws -> [InteractionRecord] { try faults.check("claimWebhooks"); return try inner.claimWebhooks(by: claimant, now: now, limit: limit, leaseUntil: leaseUntil) }
    func completeWebhook(id: Int64, claimant: String, state: String, nextAttemptAt: Date, error: String?) throws -> Bool { try faults.check("completeWebhook"); return try inner.completeWebhook(id: id, claimant: claimant, state: state, nextAttemptAt: nextAttemptAt, error: error) }
    func insertBudgetCharges(_ charges: [BudgetCharge]) throws { try faults.check("insertBudgetCharges"); return try inner.insertBudgetCharges(charges) }
    func insertBroadcastCharges(sendID: Int64, channelID: String, kind: BudgetCharge.Kind, note: String?, now: Date) throws { try faults.check("insertBroadcastCharges"); return try inner.insertBroadcastCharges(sendID: sendID, channelID: channelID, kind: kind, note: note, now: now) }
    func channelBudgetUse(channelID: String, now: Date, since: Date, budget: Int, frequentBudget: Int, limit: Int) throws -> ChannelBudgetUse { try faults.check("channelBudgetUse"); return try inner.channelBudgetUse(channelID: channelID, now: now, since: since, budget: budget, frequentBudget: frequentBudget, limit: limit) }
    func budgetEntries(deviceID: String, followsChannels: Bool, immediateSince: Date, startSince: Date, limit: Int) throws -> [BudgetEntry] { try faults.check("budgetEntries"); return try inner.budgetEntries(deviceID: deviceID, followsChannels: followsChannels, immediateSince: immediateSince, startSince: startSince, limit: limit) }
    func activityAlias(bundleID: String, alias: String) throws -> ActivityAliasRecord? { try faults.check("activityAlias"); return try inner.activityAlias(bundleID: bundleID, alias: alias) }
    func insertActivityAlias(_ record: ActivityAliasRecord) throws -> Bool { try faults.check("insertActivityAlias"); return try inner.insertActivityAlias(record) }
    func activityAliases(activityID: String) throws -> [ActivityAliasRecord] { try faults.check("activityAliases"); return try inner.activityAliases(activityID: activityID) }
    func activityChannel(activityID: String) throws -> ChannelRecord? { try faults.check("activityChannel"); return try inner.activityChannel(activityID: activityID) }
    func staleActivityChannels(endedBefore: Date, startedBefore: Date, limit: Int) throws -> [ChannelRecord] { try faults.check("staleActivityChannels"); return try inner.staleActivityChannels(endedBefore: endedBefore, startedBefore: startedBefore, limit: limit) }
    func setActivityRenewal(_ renewal: ActivityRenewalRecord) throws { try faults.check("setActivityRenewal"); try inner.setActivityRenewal(renewal) }
    func activityRenewal(activityID: String) throws -> ActivityRenewalRecord? { try faults.check("activityRenewal"); return try inner.activityRenewal(activityID: activityID) }
    func renewalCandidates(startedAfter: Date, startedBefore: Date, now: Date, limit: Int) throws -> [String] { try faults.check("renewalCandidates"); return try inner.renewalCandidates(startedAfter: startedAfter, startedBefore: startedBefore, now: now, limit: limit) }
    func upsertDeviceRenewal(_ renewal: DeviceRenewalRecord) throws { try faults.check("upsertDeviceRenewal"); try inner.upsertDeviceRenewal(renewal) }
    func deviceRenewals(activityID: String) throws -> [DeviceRenewalRecord] { try faults.check("deviceRenewals"); return try inner.deviceRenewals(activityID: activityID) }
    func setChannelMember(_ member: ChannelMemberRecord) throws { try faults.check("setChannelMember"); try inner.setChannelMember(member) }
    func channelMember(activityID: String, deviceID: String) throws -> ChannelMemberRecord? { try faults.check("channelMember"); return try inner.channelMember(activityID: activityID, deviceID: deviceID) }
    func channelMembers(activityID: String) throws -> [ChannelMemberRecord] { try faults.check("channelMembers"); return try inner.channelMembers(activityID: activityID) }
    func deleteChannelMember(activityID: String, deviceID: String) throws -> Bool { try faults.check("deleteChannelMember"); return try inner.deleteChannelMember(activityID: activityID, deviceID: deviceID) }
    func channelMemberSpending(channelID: String, now: Date, since: Date, atLeast: Int) throws -> [ChannelMemberSpending] {
        try faults.check("channelMemberSpending"); return try inner.channelMemberSpending(channelID: channelID, now: now, since: since, atLeast: atLeast)
    }
}

import Foundation
import LivelineCore

/// Keeps the service in step with this device's tokens, through failures and relaunches.
///
/// Every change goes first to a queue on disk (`directory/liveline-uploads.json`, replaced
/// atomically), then to the service by `drain(within:)`. Only the newest operation per token slot
/// is kept (a rotation replaces a token not yet sent; a deletion replaces an upload); a token the
/// service already holds is not sent again. Failures that may pass (no answer, 408, 429, 5xx,
/// 401/403) wait with exponential backoff and jitter; a new uploader on the same directory resumes
/// them after a relaunch. Token uploads wait until the device is registered, and a 404
/// `unknown-device` registers it again. Interactions keep their idempotency key, are never
/// coalesced, and a key the service has is never queued again.
public actor TokenUploader {
    /// What one `drain` did.
    public struct DrainReport: Sendable, Equatable {
        /// Operations the service accepted, as summaries (ids and token prefixes).
        public var sent: [String] = []
        /// Operations dropped because the service refused them for good (a 4xx other than the
        /// retryable ones), with the error.
        public var dropped: [String] = []
        /// Operations still queued when the drain stopped (the deadline, or nothing due before it).
        public var remaining = 0
        /// When the earliest remaining operation is due; schedule the next wake for then.
        public var nextAttempt: Date?
    }

    public nonisolated let deviceID: String
    private var client: LivelineAppClient
    private let file: StateFile<UploadState>
    private let environment: UploaderEnvironment
    private let backoff: RetryBackoff
    private var state: UploadState
    private var running: Task<DrainReport, Never>?
    private static let deliveredLimit = 500

    /// - Parameters:
    ///   - directory: where the queue lives (the app's container or an App Group's; a directory on
    ///     Linux). Two uploaders must not share one at the same time.
    ///   - client: the service.
    ///   - deviceID: this install's id, the same one `registerDevice` gets.
    ///   - backoff: retry delays.
    ///   - environment: clock, randomness, sleeping and logging.
    /// - Throws: when the directory cannot be created.
    public init(directory: URL, client: LivelineAppClient, deviceID: String, backoff: RetryBackoff = RetryBackoff(),
                environment: UploaderEnvironment = UploaderEnvironment()) throws {
        self.deviceID = deviceID
        self.client = Self.keepingCredential(client, in: directory)
        self.backoff = backoff
        self.environment = environment
        file = try StateFile(directory: directory, name: "liveline-uploads.json")
        clientStore = self.client.secretStore
        state = file.load(log: environment.log) ?? UploadState()
    }

    /// Points later requests at another service address or key (queued work is kept).
    public func setClient(_ client: LivelineAppClient) {
        self.client = Self.keepingCredential(client, in: file.url.deletingLastPathComponent())
    }

    /// Off iOS (no Keychain), a client with the default store keeps its installation credential
    /// beside the queue, in `liveline-installation.json` (mode 0600), so a relaunch keeps it.
    private static func keepingCredential(_ client: LivelineAppClient, in directory: URL) -> LivelineAppClient {
        #if canImport(Security) && os(iOS)
        return client
        #else
        guard client.usesDefaultStore else { return client }
        var client = client
        client.secretStore = FileSecretStore(url: directory.appendingPathComponent("liveline-installation.json"))
        return client
        #endif
    }

    /// This install's installation id once the service issued one (the id the backend addresses
    /// and user tokens name).
    public nonisolated var installationID: String? { clientStore.load()?.installationID }
    private nonisolated let clientStore: any SecretStore

    // MARK: - Enqueueing

    /// Registers (or updates) the device; sent before any token.
    public func registerDevice(_ registration: DeviceRegistration) {
        precondition(registration.deviceID == deviceID, "the uploader is for device \(deviceID)")
        let op = UploadOperation.registerDevice(registration)
        if state.device == registration && state.pending[op.key] == nil { return }
        enqueue(op)
    }

    /// The push-to-start token for an attributes type. An empty token is ignored: ActivityKit has
    /// none yet, and the service keeps the one it has.
    public func setPushToStartToken(_ token: String, attributesType: String) {
        guard !token.isEmpty else { return }
        enqueueToken(.pushToStartToken(token: token, attributesType: attributesType, deviceID: deviceID), token: token)
    }

    /// The update token of a logical activity on this device. `deviceActivityID`: the phone's own
    /// ActivityKit `Activity.id`; sent with the token, the service resolves it to `activityID` for this
    /// installation (taps, receipts and decode failures reported under it land on the logical
    /// activity). Sent only when it is a UUID other than `activityID` (the service refuses anything
    /// else); one the service refuses as an alias (409 `alias-taken`, `too-many-aliases`) costs the
    /// token nothing: it is sent again without it.
    public func setActivityToken(_ token: String, activityID: String, attributesType: String? = nil, deviceActivityID: String? = nil) {
        guard !token.isEmpty else { return }
        let alias = deviceActivityID.flatMap { UUID(uuidString: $0) != nil && $0 != activityID ? $0 : nil }
        enqueueToken(.activityToken(token: token, activityID: activityID, deviceID: deviceID, attributesType: attributesType, deviceActivityID: alias), token: token)
    }

    /// The activity ended or was dismissed: its token must leave the service.
    public func deleteActivityToken(activityID: String) {
        let op = UploadOperation.deleteActivityToken(activityID: activityID, deviceID: deviceID)
        // Nothing of ours on the service (never confirmed, nothing on its way) or already going: done.
        if state.confirmed[op.key] == nil {
            switch state.pending[op.key]?.operation {
            case nil, .deleteActivityToken?: return
            default: break
            }
        }
        enqueue(op)
    }

    /// An activity the app started itself with `pushType: .channel(channelID)` (iOS 18) follows the
    /// channel the backend bound to `activityID`: it has no update token, so this report is how the
    /// service counts it (status, budget, older builds). Sent once per channel; the service accepts it
    /// only for an activity the installation holds (the client asks `activityGrantProvider` on 404).
    public func setChannelMember(activityID: String, channelID: String, deviceActivityID: String? = nil) {
        guard !channelID.isEmpty else { return }
        let alias = deviceActivityID.flatMap { UUID(uuidString: $0) != nil && $0 != activityID ? $0 : nil }
        enqueueToken(.channelMember(activityID: activityID, channelID: channelID, deviceID: deviceID, deviceActivityID: alias), token: channelID)
    }

    /// The app-started channel activity ended or was dismissed.
    public func deleteChannelMember(activityID: String) {
        let op = UploadOperation.deleteChannelMember(activityID: activityID, deviceID: deviceID)
        if state.confirmed[op.key] == nil {
            switch state.pending[op.key]?.operation {
            case nil, .deleteChannelMember?: return
            default: break
            }
        }
        enqueue(op)
    }

    /// A tap to deliver once. A key already delivered or queued is ignored.
    public func postInteraction(_ interaction: Interaction) {
        let op = UploadOperation.interaction(interaction)
        guard !state.delivered.contains(interaction.idempotencyKey), state.pending[op.key] == nil else { return }
        enqueue(op)
    }

    /// The activity displayed its newest content.
    public func postReceipt(activityID: String, displayedAt: Date? = nil) {
        enqueue(.receipt(activityID: activityID, deviceID: deviceID, displayedAt: displayedAt ?? environment.now()))
    }

    /// The app's attributes type could not decode a content state of the activity (`error`: the
    /// decoder's message, without the content itself).
    public func postDecodeFailure(activityID: String, error: String, failedAt: Date? = nil) {
        enqueue(.decodeFailure(activityID: activityID, deviceID: deviceID, failedAt: failedAt ?? environment.now(), error: error))
    }

    /// Deletes every update token this device gave the service (or may have, if the app was killed
    /// before the answer) for an activity not in `running`: they were left behind by activities
    /// that ended while the app was not running.
    public func reconcile(runningActivityIDs running: Set<String>) {
        var stale = Set<String>()
        for token in state.confirmed.values { if let id = token.activityID, !running.contains(id) { stale.insert(id) } }
        for entry in state.pending.values {
            if case .activityToken(_, let id, _, _, _) = entry.operation, !running.contains(id) { stale.insert(id) }
        }
        for id in stale.sorted() { deleteActivityToken(activityID: id) }
    }

    /// Logical activities whose update token the service holds or is about to get.
    public var registeredActivityIDs: Set<String> {
        var ids = Set(state.confirmed.values.compactMap(\.activityID))
        for entry in state.pending.values {
            switch entry.operation {
            case .activityToken(_, let id, _, _, _): ids.insert(id)
            case .deleteActivityToken(let id, _): ids.remove(id)
            default: break
            }
        }
        return ids
    }

    /// What is queued, oldest first (for diagnostics and tests).
    public var pending: [UploadOperation] {
        state.pending.values.sorted { $0.sequence < $1.sequence }.map(\.operation)
    }

    private func enqueueToken(_ op: UploadOperation, token: String) {
        // Sent once: a token the service holds is not sent again (ActivityKit re-delivers it),
        // except a push-to-start token last reported long ago (the service expires unseen ones).
        if let confirmed = state.confirmed[op.key], confirmed.token == token, confirmed.deviceActivityID == op.deviceActivityID, !isDueForReport(op) {
            if state.pending[op.key] != nil { state.pending[op.key] = nil; persist() }
            return
        }
        if case let existing? = state.pending[op.key]?.operation, existing == op { return }
        enqueue(op)
    }

    /// A push-to-start token is reported again once `pushToStartReportInterval` has passed since
    /// the service last confirmed it: the service skips push-to-start tokens it has not seen for a
    /// configured time (30 days by default), so an app that launches keeps its token in use.
    public static let pushToStartReportInterval: TimeInterval = 24 * 3600

    private func isDueForReport(_ op: UploadOperation) -> Bool {
        guard case .pushToStartToken = op, let confirmed = state.confirmed[op.key] else { return false }
        guard let at = confirmed.confirmedAt else { return true }
        return environment.now().timeIntervalSince(at) >= Self.pushToStartReportInterval
    }

    private func enqueue(_ op: UploadOperation) {
        state.sequence += 1
        // A replacement starts fresh: the new token has not failed yet.
        state.pending[op.key] = PendingUpload(operation: op, sequence: state.sequence, attempts: 0, notBefore: environment.now(), queuedAt: environment.now())
        persist()
        environment.log("LivelineKit: queued \(op.summary)")
    }

    private func persist() {
        do { try file.save(state) } catch { environment.log("LivelineKit: cannot save the upload queue: \(error)") }
    }

    // MARK: - Sending

    /// Sends what is due, waiting out backoff while the deadline allows, and returns before
    /// `within` has passed (give it less than the ~30 s the system grants a background wake).
    /// Calls made while one runs wait for it and then run themselves.
    @discardableResult
    public func drain(within budget: Duration = .seconds(25)) async -> DrainReport {
        while let current = running { _ = await current.value }
        let task = Task {
            let report = await self.run(until: environment.now().addingTimeInterval(RetryBackoff.seconds(budget)))
            // Cleared by the run itself, before anyone waiting on it resumes: they then start their own.
            running = nil
            return report
        }
        running = task
        return await task.value
    }

    private func run(until deadline: Date) async -> DrainReport {
        var report = DrainReport()
        while !Task.isCancelled {
            let now = environment.now()
            guard now < deadline else { break }
            let blocked = deviceBlocked
            let ready = state.pending.values.filter { !(blocked && $0.operation.needsDevice) }
            let due = ready.filter { $0.notBefore <= now }.sorted(by: Self.order)
            guard let entry = due.first else {
                guard let next = ready.map(\.notBefore).min(), next < deadline else { break }
                await environment.sleep(.milliseconds(max(1, Int(next.timeIntervalSince(now) * 1000))))
                continue
            }
            await send(entry, into: &report)
        }
        report.remaining = state.pending.count
        report.nextAttempt = nextAttempt
        return report
    }

    /// When the earliest queued operation may go: a token waiting for the device goes after it, and
    /// with no registration given at all, nothing is due until the app gives one.
    public var nextAttempt: Date? {
        let device = state.pending["device|\(deviceID)"]?.notBefore
        let blocked = deviceBlocked
        return state.pending.values.compactMap { entry -> Date? in
            guard blocked && entry.operation.needsDevice else { return entry.notBefore }
            return device.map { max($0, entry.notBefore) }
        }.min()
    }

    /// Token uploads wait while the device's registration is queued or was never given.
    private var deviceBlocked: Bool {
        state.pending["device|\(deviceID)"] != nil || state.device == nil
    }

    /// Device first, then deletions and tokens, oldest first.
    private static func order(_ a: PendingUpload, _ b: PendingUpload) -> Bool {
        func rank(_ op: UploadOperation) -> Int { if case .registerDevice = op { 0 } else { 1 } }
        return (rank(a.operation), a.sequence) < (rank(b.operation), b.sequence)
    }

    private func send(_ entry: PendingUpload, into report: inout DrainReport) async {
        let op = entry.operation
        let client = self.client
        do throws(LivelineAppError) {
            switch op {
            case .registerDevice(let d): try await client.registerDevice(d)
            case .pushToStartToken(let t, let type, let device): try await client.putPushToStartToken(t, attributesType: type, deviceID: device)
            case .activityToken(let t, let activity, let device, let type, let alias): try await client.putActivityToken(t, activityID: activity, deviceID: device, attributesType: type, deviceActivityID: alias)
            case .deleteActivityToken(let activity, let device): try await client.deleteActivityToken(activityID: activity, deviceID: device)
            case .interaction(let i): try await client.postInteraction(i)
            case .receipt(let activity, let device, let at): try await client.postReceipt(activityID: activity, deviceID: device, displayedAt: at)
            case .decodeFailure(let activity, let device, let at, let error): try await client.postDecodeFailure(activityID: activity, deviceID: device, error: error, failedAt: at)
            case .channelMember(let activity, let channel, let device, let alias):
                try await client.putChannelMember(activityID: activity, channelID: channel, deviceID: device, deviceActivityID: alias)
            case .deleteChannelMember(let activity, let device): try await client.deleteChannelMember(activityID: activity, deviceID: device)
            }
            succeeded(entry)
            report.sent.append(op.summary)
            environment.log("LivelineKit: sent \(op.summary)")
        } catch {
            failed(entry, error, into: &report)
        }
    }

    private func succeeded(_ entry: PendingUpload) {
        let op = entry.operation
        switch op {
        case .registerDevice(let d): state.device = d
        case .pushToStartToken(let t, _, let device): state.confirmed[op.key] = ConfirmedToken(token: t, activityID: nil, deviceID: device, confirmedAt: environment.now())
        case .activityToken(let t, let activity, let device, _, let alias): state.confirmed[op.key] = ConfirmedToken(token: t, activityID: activity, deviceID: device, deviceActivityID: alias)
        case .deleteActivityToken: state.confirmed[op.key] = nil
        case .interaction(let i):
            state.delivered.append(i.idempotencyKey)
            if state.delivered.count > Self.deliveredLimit { state.delivered.removeFirst(state.delivered.count - Self.deliveredLimit) }
        case .receipt, .decodeFailure: break
        // Kept as a confirmed "token" (the channel id, no activityID): not sent again, and never taken for an update token.
        case .channelMember(_, let channel, let device, let alias):
            state.confirmed[op.key] = ConfirmedToken(token: channel, activityID: nil, deviceID: device, deviceActivityID: alias)
        case .deleteChannelMember: state.confirmed[op.key] = nil
        }
        // Replaced while on the wire: the newer one stays queued.
        if state.pending[op.key]?.sequence == entry.sequence { state.pending[op.key] = nil }
        persist()
    }

    private func failed(_ entry: PendingUpload, _ error: LivelineAppError, into report: inout DrainReport) {
        let op = entry.operation
        guard state.pending[op.key]?.sequence == entry.sequence else { return }
        if error.isUnknownDevice, let device = state.device ?? registrationQueued {
            // The service lost or never had the device: register it again, then this token.
            state.device = nil
            if state.pending["device|\(deviceID)"] == nil { enqueue(.registerDevice(device)) }
            retry(entry, error)
        } else if error.isRetryable || error.isUnknownDevice {
            retry(entry, error)
        } else if op.mayResolveLater(error), environment.now().timeIntervalSince(entry.queuedAt ?? environment.now()) < Self.unresolvedActivityRetry {
            // Reported under the phone's activity id, whose alias comes with a token not yet on the service.
            var entry = entry
            if entry.queuedAt == nil { entry.queuedAt = environment.now() }
            retry(entry, error)
        } else {
            state.pending[op.key] = nil
            report.dropped.append("\(op.summary): \(error)")
            environment.log("LivelineKit: dropped \(op.summary): \(error)")
        }
        persist()
    }

    /// How long a tap, receipt or decode failure answered 404 `not-found` is kept and retried (with
    /// backoff) after it was queued, before it is dropped: it may name the phone's own activity id,
    /// which the service resolves once the token that reports it arrives (queued, or not issued yet).
    public static let unresolvedActivityRetry: TimeInterval = 24 * 3600

    private var registrationQueued: DeviceRegistration? {
        if case .registerDevice(let d)? = state.pending["device|\(deviceID)"]?.operation { d } else { nil }
    }

    private func retry(_ entry: PendingUpload, _ error: LivelineAppError) {
        var entry = entry
        entry.attempts += 1
        var delay = backoff.delay(afterAttempts: entry.attempts, random: environment.random())
        // The service said how long (429 over the rate limit, 503): not sooner.
        if let wait = error.retryAfter, RetryBackoff.seconds(delay) < wait { delay = .milliseconds(Int(wait * 1000)) }
        entry.notBefore = environment.now().addingTimeInterval(RetryBackoff.seconds(delay))
        state.pending[entry.operation.key] = entry
        environment.log("LivelineKit: \(entry.operation.summary) failed (\(error)); attempt \(entry.attempts + 1) in \(delay)")
    }
}

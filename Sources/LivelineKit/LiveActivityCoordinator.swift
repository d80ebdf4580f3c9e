import Foundation
import LivelineCore

/// Keeps the service in step with the device's Live Activities: the device's registration, each
/// attributes type's push-to-start token, each activity's update token under its logical id, and
/// the deletion of that token when the activity ends, is dismissed or is past ActivityKit's 8 hours.
///
/// Call `start()` as early as possible at every launch, background launches included: it reads the
/// current tokens and activities directly (the streams may never yield when the system woke the app
/// for a token), deletes the tokens of activities that ended while the app was not running, and
/// then observes the streams. Decisions live here; the ActivityKit adapter only forwards values.
///
/// Module: LivelineKit owns the app side: the app API client, the token uploader and this
/// coordinator over ActivityKit. It imports LivelineCore only, with Foundation, and must build for
/// iOS: it must never import the simulator, the service, the store, the transport or a C library.
public actor LiveActivityCoordinator {
    /// What the coordinator does, beyond the activity kinds it watches.
    public struct Configuration: Sendable {
        /// This device, as `PUT /v1/devices` registers it (`frequentUpdates` follows the authorization).
        public var device: DeviceRegistration
        /// ActivityKit ends an activity 8 hours after it started; its token is deleted then.
        public var maximumActivityAge: TimeInterval = 8 * 3600
        /// Post a receipt for each content update an activity displays.
        public var sendsReceipts = false
        /// Drain the uploader after each change (on by default; tests drain themselves).
        public var drainsAutomatically = true
        /// The budget of each automatic drain.
        public var drainBudget: Duration = .seconds(25)
        /// The logical activity id of a device activity; by default the `livelineActivityID` member
        /// of its attributes. Activities it returns nil for are left alone.
        public var logicalID: @Sendable (any LiveActivity) -> String? = { $0.attributes[ActivitySchema.activityIDKey]?.stringValue }

        public init(device: DeviceRegistration) { self.device = device }
    }

    /// What the coordinator remembers of one device activity, on disk.
    struct Record: Sendable, Codable, Equatable {
        var logicalID: String
        var attributesType: String
        var firstSeen: Date
        var over: Bool
        var token: String?
        /// Scheduled and not started yet (iOS 26 `.pending`): tracked, no token yet, and ActivityKit's
        /// age limit counts from its start (`firstSeen` is reset then), not from when it was seen.
        var pending: Bool? = nil
        /// The channel it follows: the app started it with `pushType: .channel(id)` (iOS 18) and said so
        /// (`followsChannel`); ActivityKit's `Activity` does not expose it.
        var channelID: String? = nil
    }

    struct State: Sendable, Codable {
        var activities: [String: Record] = [:]
        /// Channels the app named for activities not observed yet, by `Activity.id`.
        var channels: [String: String]? = nil
    }

    private let uploader: TokenUploader
    private let kinds: [any LiveActivityKind]
    private let authorization: (any LiveActivityAuthorization)?
    private var configuration: Configuration
    private let file: StateFile<State>
    private let now: @Sendable () -> Date
    private let log: @Sendable (String) -> Void
    private var state: State
    private var observed = Set<String>()
    private var tasks: [Task<Void, Never>] = []
    private var started = false
    /// Stream elements handled so far (for tests and diagnostics).
    public private(set) var handledEvents = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    /// - Parameters:
    ///   - uploader: where changes go.
    ///   - kinds: one per attributes type the app uses.
    ///   - authorization: the frequent-updates switch, when the app uses it.
    ///   - configuration: the device and the policies.
    ///   - directory: where the coordinator's memory of activities lives (the uploader's directory is fine).
    ///   - now: the clock (for the 8-hour limit).
    ///   - log: lines with ids and token prefixes only.
    public init(uploader: TokenUploader, kinds: [any LiveActivityKind], authorization: (any LiveActivityAuthorization)? = nil,
                configuration: Configuration, directory: URL, now: @escaping @Sendable () -> Date = { Date() },
                log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        precondition(configuration.device.deviceID == uploader.deviceID, "the coordinator and the uploader must be for one device")
        self.uploader = uploader
        self.kinds = kinds
        self.authorization = authorization
        self.configuration = configuration
        self.now = now
        self.log = log
        file = try StateFile(directory: directory, name: "liveline-activities.json")
        state = file.load(log: log) ?? State()
    }

    /// Registers the device, reads every current token and activity, deletes tokens of activities
    /// no longer running, then observes the streams. Returns once all of that is queued and the
    /// observers are attached. Calling it again does nothing.
    public func start() async {
        guard !started else { return }
        started = true
        var device = configuration.device
        if let authorization { device.frequentUpdates = authorization.frequentPushesEnabled }
        configuration.device = device
        await uploader.registerDevice(device)

        // Forget ended activities after a day: by then no stream of theirs yields any more.
        let cutoff = now().addingTimeInterval(-(configuration.maximumActivityAge + 24 * 3600))
        state.activities = state.activities.filter { !$0.value.over || $0.value.firstSeen > cutoff }

        var running = Set<String>()
        for kind in kinds {
            if let token = kind.pushToStartToken, !token.isEmpty {
                await uploader.setPushToStartToken(token.hexString, attributesType: kind.attributesType)
            }
            for activity in kind.activities {
                running.insert(activity.id)
                await observe(activity, kind: kind.attributesType)
            }
        }
        // Activities the app remembers but ActivityKit no longer runs ended while it was not running.
        for (id, record) in state.activities where !record.over && !running.contains(id) {
            await end(id, because: "no longer running at launch")
        }
        await expireOld()
        let live = Set(state.activities.values.filter { !$0.over }.map(\.logicalID))
        await uploader.reconcile(runningActivityIDs: live)
        persist()

        for kind in kinds {
            let type = kind.attributesType
            let tokens = kind.pushToStartTokenUpdates, updates = kind.activityUpdates
            tasks.append(Task { [weak self] in
                for await token in tokens { await self?.pushToStartTokenEvent(token, kind: type) }
            })
            tasks.append(Task { [weak self] in
                for await activity in updates { await self?.activityEvent(activity, kind: type) }
            })
        }
        if let authorization {
            let updates = authorization.frequentPushEnablementUpdates, enablement = authorization.activityEnablementUpdates
            tasks.append(Task { [weak self] in
                for await enabled in updates { await self?.frequentUpdatesEvent(enabled) }
            })
            tasks.append(Task { [weak self] in
                for await enabled in enablement { await self?.enablementEvent(enabled) }
            })
        }
        kick()
    }

    /// Stops observing (the queue stays on disk).
    public func stop() {
        for task in tasks { task.cancel() }
        tasks = []
    }

    /// A tap in an activity: delivered once, with its idempotency key.
    public func recordInteraction(_ interaction: Interaction) async {
        await uploader.postInteraction(interaction)
        kick()
    }

    /// The app's attributes type failed to decode a content state of the device activity
    /// `activityID` (for instance a widget extension that decodes with its own `init(from:)` and
    /// hands the error over): the service's status of the logical activity gives it as the reason.
    public func reportDecodeFailure(activityID: String, error: String) async {
        guard let record = state.activities[activityID] else {
            log("LivelineKit: decode failure for unknown activity \(activityID) not reported")
            return
        }
        await uploader.postDecodeFailure(activityID: record.logicalID, error: error, failedAt: now())
        kick()
    }

    /// Returns once `count` stream elements have been handled in all.
    public func waitForEvents(_ count: Int) async {
        guard handledEvents < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    /// The logical ids of activities running on the device, as the coordinator sees them.
    public var runningActivityIDs: Set<String> {
        Set(state.activities.values.filter { !$0.over }.map(\.logicalID))
    }

    // MARK: - Events

    private func handled() {
        handledEvents += 1
        let ready = waiters.filter { $0.0 <= handledEvents }
        waiters.removeAll { $0.0 <= handledEvents }
        for waiter in ready { waiter.1.resume() }
    }

    private func pushToStartTokenEvent(_ token: Data, kind: String) async {
        if !token.isEmpty { await uploader.setPushToStartToken(token.hexString, attributesType: kind) }
        kick()
        handled()
    }

    private func activityEvent(_ activity: any LiveActivity, kind: String) async {
        await expireOld()
        await observe(activity, kind: kind)
        persist()
        kick()
        handled()
    }

    private func tokenEvent(_ token: Data, activityID: String) async {
        await expireOld()
        await tokenIssued(token, activityID: activityID)
        persist()
        kick()
        handled()
    }

    private func stateEvent(_ activityState: LiveActivityState, activityID: String) async {
        if activityState.isOver { await end(activityID, because: "\(activityState.rawValue) on the device") }
        else if activityState != .pending { started(activityID) }
        await expireOld()
        persist()
        kick()
        handled()
    }

    private func contentEvent(activityID: String) async {
        if let record = state.activities[activityID], !record.over {
            await uploader.postReceipt(activityID: record.logicalID)
            kick()
        }
        handled()
    }

    private func decodeFailureEvent(activityID: String, error: String) async {
        await reportDecodeFailure(activityID: activityID, error: error)
        handled()
    }

    private func frequentUpdatesEvent(_ enabled: Bool) async {
        if configuration.device.frequentUpdates != enabled {
            configuration.device.frequentUpdates = enabled
            await uploader.registerDevice(configuration.device)
            kick()
        }
        handled()
    }

    /// Live Activities switched back on in Settings: tokens issued meanwhile may not have been
    /// yielded, so the current ones are read again (switched off, ActivityKit ends the activities
    /// itself and their states say so).
    private func enablementEvent(_ enabled: Bool) async {
        if enabled {
            for kind in kinds {
                if let token = kind.pushToStartToken, !token.isEmpty {
                    await uploader.setPushToStartToken(token.hexString, attributesType: kind.attributesType)
                }
                for activity in kind.activities {
                    if observed.contains(activity.id), let token = activity.pushToken { await tokenIssued(token, activityID: activity.id) }
                    else { await observe(activity, kind: kind.attributesType) }
                }
            }
            persist()
            kick()
        } else {
            log("LivelineKit: Live Activities switched off for the app")
        }
        handled()
    }

    // MARK: - Decisions

    private func observe(_ activity: any LiveActivity, kind: String) async {
        // activityUpdates also yields activities already read from `activities`.
        guard !observed.contains(activity.id) else { return }
        // An ended activity's streams can yield again: it is never registered again.
        if state.activities[activity.id]?.over == true { return }
        guard let logical = configuration.logicalID(activity) else {
            log("LivelineKit: activity \(activity.id) has no logical id (\(ActivitySchema.activityIDKey)); left alone")
            return
        }
        observed.insert(activity.id)
        if state.activities[activity.id] == nil {
            state.activities[activity.id] = Record(logicalID: logical, attributesType: kind, firstSeen: now(), over: false, token: nil,
                                                   pending: activity.activityState == .pending ? true : nil, channelID: state.channels?[activity.id])
            if let channel = state.channels?.removeValue(forKey: activity.id) {
                log("LivelineKit: activity \(activity.id) (\(logical)) follows channel \(channel)")
                await uploadWinner(for: logical)
            }
        } else if activity.activityState != .pending && !activity.activityState.isOver {
            started(activity.id)
        }
        if activity.activityState.isOver {
            await end(activity.id, because: "\(activity.activityState.rawValue) when first seen")
            return
        }
        if let token = activity.pushToken { await tokenIssued(token, activityID: activity.id) }
        let id = activity.id
        let tokens = activity.pushTokenUpdates, states = activity.activityStateUpdates
        tasks.append(Task { [weak self] in
            for await token in tokens { await self?.tokenEvent(token, activityID: id) }
        })
        tasks.append(Task { [weak self] in
            for await s in states { await self?.stateEvent(s, activityID: id) }
        })
        let failures = activity.contentDecodeFailures
        tasks.append(Task { [weak self] in
            for await error in failures { await self?.decodeFailureEvent(activityID: id, error: error) }
        })
        if configuration.sendsReceipts {
            let contents = activity.contentUpdates
            tasks.append(Task { [weak self] in
                for await _ in contents { await self?.contentEvent(activityID: id) }
            })
        }
    }

    private func tokenIssued(_ token: Data, activityID: String) async {
        guard var record = state.activities[activityID], !record.over, !token.isEmpty else { return }
        record.token = token.hexString
        state.activities[activityID] = record
        await uploadWinner(for: record.logicalID)
    }

    /// A scheduled activity started: its 8 hours count from now. Its token comes on the stream.
    private func started(_ activityID: String) {
        guard var record = state.activities[activityID], record.pending == true else { return }
        record.pending = nil
        record.firstSeen = now()
        state.activities[activityID] = record
    }

    private func end(_ activityID: String, because reason: String) async {
        guard var record = state.activities[activityID], !record.over else { return }
        record.over = true
        state.activities[activityID] = record
        log("LivelineKit: activity \(activityID) (\(record.logicalID)) is over: \(reason)")
        await uploadWinner(for: record.logicalID)
    }

    /// One logical id, one token per device: with duplicates, the newest running activity's token
    /// is registered; when none is left running, the token is deleted.
    private func uploadWinner(for logicalID: String) async {
        let candidates = state.activities.filter { $0.value.logicalID == logicalID && !$0.value.over }
        await uploadMember(for: logicalID, candidates)
        if candidates.isEmpty {
            await uploader.deleteActivityToken(activityID: logicalID)
            return
        }
        let withToken = candidates.filter { $0.value.token != nil }
        guard let winner = withToken.max(by: { ($0.value.firstSeen, $0.key) < ($1.value.firstSeen, $1.key) }) else {
            // Those left have no token yet: the ended one's token must not stay behind meanwhile.
            await uploader.deleteActivityToken(activityID: logicalID)
            return
        }
        if candidates.count > 1 {
            log("LivelineKit: \(candidates.count) activities for \(logicalID); registering \(winner.key)'s token")
        }
        // The device's own activity id goes along: taps reported under it resolve to `logicalID`.
        await uploader.setActivityToken(winner.value.token!, activityID: logicalID, attributesType: winner.value.attributesType,
                                        deviceActivityID: winner.key)
    }

    // MARK: - App-started channel activities (iOS 18)

    /// The app started the activity `deviceActivityID` (`Activity.id`) itself with
    /// `pushType: .channel(channelID)`: it never gets an update token and only follows the channel the
    /// backend bound to its logical id. ActivityKit does not expose an activity's channel, so the app
    /// says it here, right after `Activity.request`; the coordinator reports it to the service
    /// (`PUT /v1/activities/{id}/channel-members/{deviceID}`) and withdraws it when the activity ends.
    public func followsChannel(_ channelID: String, deviceActivityID: String) async {
        guard !channelID.isEmpty else { return }
        if var record = state.activities[deviceActivityID] {
            guard !record.over, record.channelID != channelID else { return }
            record.channelID = channelID
            state.activities[deviceActivityID] = record
            await uploadWinner(for: record.logicalID)
        } else {
            // Not observed yet (the activity stream yields it a moment later): kept until it is.
            state.channels = (state.channels ?? [:]).merging([deviceActivityID: channelID]) { _, new in new }
        }
        persist()
        kick()
    }

    /// The channel member report of a logical id: the newest running activity on a channel, or none.
    private func uploadMember(for logicalID: String, _ candidates: [String: Record]) async {
        let onChannel = candidates.filter { $0.value.channelID != nil }
        if let member = onChannel.max(by: { ($0.value.firstSeen, $0.key) < ($1.value.firstSeen, $1.key) }) {
            await uploader.setChannelMember(activityID: logicalID, channelID: member.value.channelID!, deviceActivityID: member.key)
        } else {
            await uploader.deleteChannelMember(activityID: logicalID)
        }
    }

    /// Activities past ActivityKit's limit are over, even if no stream said so.
    private func expireOld() async {
        let limit = now().addingTimeInterval(-configuration.maximumActivityAge)
        for (id, record) in state.activities where !record.over && record.pending != true && record.firstSeen <= limit {
            await end(id, because: "older than \(Int(configuration.maximumActivityAge / 3600)) hours")
        }
    }

    private func persist() {
        do { try file.save(state) } catch { log("LivelineKit: cannot save the activity list: \(error)") }
    }

    private func kick() {
        guard configuration.drainsAutomatically else { return }
        let uploader = self.uploader, budget = configuration.drainBudget
        Task { await uploader.drain(within: budget) }
    }
}

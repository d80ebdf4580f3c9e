import Foundation
import LivelineCore
import LivelineCrypto

/// Everything the simulator holds, mutated only inside `Simulator`'s mutex.
struct SimulatorState: Sendable {
    struct AppInstall: Sendable {
        var bundleID: String
        var deviceToken: String
        var types: [String: ActivityType] = [:]
        var typeOrder: [String] = []
        var pushToStartTokens: [String: String] = [:]
        var supportsFrequentUpdates = false
        var frequentUpdatesEnabled = true
        /// Moments of push-to-starts within `pushToStartWindow` (SimulatorState+Budget.swift).
        var startLog: [Date] = []
        var installed = true
        /// Bodies of ordinary notifications, raw (parsed when inspected).
        var notifications: [[UInt8]] = []

        /// Keeps an ordinary notification's body (the oldest `keptNotifications` dropped at twice that).
        mutating func keep(notification body: [UInt8]) {
            notifications.append(body)
            if notifications.count > SimulatorState.keptNotifications * 2 {
                notifications.removeFirst(SimulatorState.keptNotifications)
            }
        }
    }

    struct DeviceRecord: Sendable {
        var id: String
        var name: String
        var osVersion: OSVersion
        var environment: APNSEnvironment
        var apps: [String: AppInstall] = [:]
        var appOrder: [String] = []
        /// Force-quit app, withheld update tokens (DeviceModes.swift).
        var modes = DeviceModes()
    }

    struct ActivityRecord: Sendable {
        var snapshot: ActivitySnapshot
        /// Moments of counted priority-10 updates within the last hour.
        var budgetLog: [Date] = []
        /// A scheduled activity started with `pushType: .token`: its token is issued when it starts.
        var issuesTokenAtStart = false
    }

    enum TokenKind: Sendable, Hashable {
        case device
        case pushToStart(attributesType: String)
        case activityUpdate(activityID: String)
    }

    struct TokenRecord: Sendable {
        var deviceID: String
        var bundleID: String
        var kind: TokenKind
        var environment: APNSEnvironment
        var deadAt: Date?
        var deadReason: APNSReason?
    }

    struct StoredMessage: Sendable {
        var body: [UInt8]
        var priority: Int
        var expiresAt: Date
    }

    struct ChannelRecord: Sendable {
        var id: String
        var bundleID: String
        var environment: APNSEnvironment
        var storagePolicy: Int
        var createdAt: Date
        var stored: StoredMessage?
    }

    var config: SimulatorConfiguration
    var rng: SeededGenerator
    var keysByID: [String: ProviderKey] = [:]
    var appsByBundle: [String: AppRegistration] = [:]

    var devices: [String: DeviceRecord] = [:]
    var deviceOrder: [String] = []
    var activities: ActivityTable
    var tokens: [String: TokenRecord] = [:]
    var channels: [String: ChannelRecord] = [:]
    var channelOrder: [String] = []
    var issuedChannelIDs: Set<String> = []

    /// The rules' results kept for repeated inputs, and the provider tokens already checked
    /// (at most `config.authorizationCacheCapacity`); its invalidation rules are its own.
    var memo: SimulatorMemo
    /// Rate-limit windows by token and by `channel:<id>`, at most `config.rateWindowCapacity`.
    var rateWindows: RateWindows
    /// Tokens replaced (rotated) or unregistered (uninstalled apps), oldest first: each still answers
    /// 410 until `config.retiredTokenCapacity` newer ones push it out.
    var retiredTokens = FIFOQueue<String>()
    var faults = FaultState()

    var log: [PushRecord] = []
    var logStart = 0
    var sequence = 0
    /// Events, a ring of at most `config.eventCapacity` starting at `eventStart` once full.
    var events: [SimulatorEvent] = []
    var eventStart = 0
    var acceptedCount = 0
    var rejectedCount = 0
    var droppedCount = 0
    /// Who listens to changes (`Simulator.changes()`).
    let feed = SimulatorFeed()

    init(config: SimulatorConfiguration) {
        self.config = config
        self.rng = SeededGenerator(seed: config.seed)
        self.activities = ActivityTable(rules: config.deviceRules)
        self.memo = SimulatorMemo(checkedTokenCapacity: config.authorizationCacheCapacity)
        self.rateWindows = RateWindows(capacity: config.rateWindowCapacity)
        for key in config.keys { keysByID[key.keyID] = key }
        for app in config.apps { appsByBundle[app.bundleID] = app }
    }

    /// The provider tokens already checked (the memo's; bounded by `config.authorizationCacheCapacity`).
    var jwtCache: BoundedCache<String, SimulatorMemo.CheckedToken> { memo.checkedTokens }

    // MARK: - Log and events

    mutating func record(_ make: (Int) -> PushRecord) {
        sequence += 1
        let entry = make(sequence)
        feed.publish(.push(entry, activities: entry.deliveries.compactMap { $0.activityID.flatMap { activities[$0]?.snapshot } }))
        switch entry.verdict {
        case .accepted: acceptedCount += 1
        case .rejected: rejectedCount += 1
        case .dropped: droppedCount += 1
        }
        if config.logCapacity <= 0 { return }
        if log.count >= config.logCapacity {
            log[logStart] = entry
            logStart = (logStart + 1) % log.count
        } else {
            log.append(entry)
        }
    }

    var orderedLog: [PushRecord] { Array(log[logStart...] + log[..<logStart]) }

    /// Keeps an event, the oldest dropped beyond `config.eventCapacity` (as `record` does for the log).
    mutating func emit(_ time: Date, _ deviceID: String, _ bundleID: String, _ kind: SimulatorEvent.Kind) {
        if config.eventCapacity <= 0 { return }
        let event = SimulatorEvent(time: time, deviceID: deviceID, bundleID: bundleID, kind: kind)
        feed.publish(.event(event))
        if events.count >= config.eventCapacity {
            events[eventStart] = event
            eventStart = (eventStart + 1) % events.count
        } else {
            events.append(event)
        }
    }

    var orderedEvents: [SimulatorEvent] { Array(events[eventStart...] + events[..<eventStart]) }

    // MARK: - Tokens

    mutating func newToken(hexBytes: Int) -> String {
        while true {
            let t = rng.hex(bytes: hexBytes)
            if tokens[t] == nil { return t }
        }
    }

    mutating func kill(token: String, at time: Date, reason: APNSReason) {
        guard tokens[token] != nil, tokens[token]!.deadAt == nil else { return }
        tokens[token]!.deadAt = time
        tokens[token]!.deadReason = reason
    }

    /// Keeps a token that was just killed (rotated away or unregistered) answering 410, and forgets
    /// the oldest such tokens beyond `config.retiredTokenCapacity`: they then answer like a token
    /// APNs never issued (400 `BadDeviceToken`).
    mutating func retire(token: String) {
        retiredTokens.append(token)
        while retiredTokens.count > max(0, config.retiredTokenCapacity), let oldest = retiredTokens.popFirst() {
            // Only a token still dead is forgotten (never one in use).
            guard tokens[oldest]?.deadAt != nil else { continue }
            tokens[oldest] = nil
            rateWindows.remove(oldest)
        }
    }

    // MARK: - Time

    /// Applies every time-based transition due by `now`, each stamped with the moment it was due,
    /// taking only the activities whose deadline has come; then drops dismissed activities past
    /// their retention.
    mutating func tick(_ now: Date) {
        let rules = config.deviceRules
        while let id = activities.popDue(now) {
            guard var record = activities[id] else { continue }
            if record.snapshot.state == .pending, record.snapshot.startedAt <= now { startScheduled(&record) }
            var s = record.snapshot
            let endLimit = s.startedAt.addingTimeInterval(rules.maxActiveDuration)
            let removeLimit = s.startedAt.addingTimeInterval(rules.maxTotalDuration)
            if s.state == .active, let stale = s.staleDate, stale <= now, stale < endLimit {
                s.state = .stale
                emit(stale, s.deviceID, s.bundleID, .activityState(activityID: id, state: .stale))
            }
            if s.state == .active || s.state == .stale, endLimit <= now {
                s.state = .ended
                s.endedAt = endLimit
                s.dismissalDate = min(s.dismissalDate ?? removeLimit, removeLimit)
                emit(endLimit, s.deviceID, s.bundleID, .activityState(activityID: id, state: .ended))
            }
            if s.state == .ended, let removal = s.dismissalDate, removal <= now {
                s.state = .dismissed
                if let token = s.pushToken { kill(token: token, at: removal, reason: .expiredToken) }
                emit(removal, s.deviceID, s.bundleID, .activityState(activityID: id, state: .dismissed))
            }
            record.snapshot = s
            activities[id] = record
        }
        pruneActivities(now)
    }

    /// Drops dismissed activities beyond `dismissedActivityCapacity` or older than
    /// `dismissedActivityRetention`, with their update tokens (which then answer like any unknown token).
    mutating func pruneActivities(_ now: Date) {
        let removed = activities.pruneDismissed(capacity: config.dismissedActivityCapacity, retention: config.dismissedActivityRetention, now: now)
        for record in removed {
            guard let token = record.snapshot.pushToken else { continue }
            tokens[token] = nil
            rateWindows.remove(token)
        }
    }
}

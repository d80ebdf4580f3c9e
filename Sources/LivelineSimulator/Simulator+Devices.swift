import Foundation
import LivelineCore

/// Setting up devices and apps, and what an app does on a device (start, end, rotate tokens).
extension Simulator {
    /// Adds an iPhone running `osVersion` whose tokens belong to `environment` (default: the simulator's).
    /// - Returns: the device id.
    @discardableResult
    public func addDevice(name: String, osVersion: OSVersion = "18.2", environment: APNSEnvironment? = nil, id: String? = nil) -> String {
        state.withLock { s in
            let deviceID = id ?? "device-\(s.deviceOrder.count + 1)"
            s.devices[deviceID] = SimulatorState.DeviceRecord(id: deviceID, name: name, osVersion: osVersion, environment: environment ?? s.config.environment)
            s.deviceOrder.append(deviceID)
            s.feed.publish(.device(deviceID))
            return deviceID
        }
    }

    /// Registers an app with APNs (its team decides which keys may push to it).
    public func register(_ app: AppRegistration) {
        state.withLock { $0.appsByBundle[app.bundleID] = app }
    }

    /// Adds a provider key after start-up.
    public func add(_ key: ProviderKey) {
        state.withLock { s in
            s.keysByID[key.keyID] = key
            s.memo.keysChanged()  // tokens refused for want of this key may verify now
        }
    }

    /// Installs `bundleID` on a device: issues its device token, registers its activity types (issuing
    /// a push-to-start token per type on iOS 17.2+). An app APNs does not know yet is registered under
    /// `teamID` (or the first key's team).
    ///
    /// - Throws: `SimulatorError` for an unknown device.
    @discardableResult
    public func install(
        _ bundleID: String, on deviceID: String, activityTypes: [ActivityType] = [], supportsFrequentUpdates: Bool = false, teamID: String? = nil
    ) throws(SimulatorError) -> InstalledAppSnapshot {
        let now = clock.now
        return try state.withLock { s throws(SimulatorError) in
            guard var device = s.devices[deviceID] else { throw SimulatorError(.unknownDevice, "no device \"\(deviceID)\"") }
            if s.appsByBundle[bundleID] == nil {
                s.appsByBundle[bundleID] = AppRegistration(bundleID: bundleID, teamID: teamID ?? s.config.keys.first?.teamID ?? "SIMTEAM001")
            }
            let token = s.newToken(hexBytes: 32)
            s.tokens[token] = SimulatorState.TokenRecord(deviceID: deviceID, bundleID: bundleID, kind: .device, environment: device.environment)
            var app = SimulatorState.AppInstall(bundleID: bundleID, deviceToken: token)
            app.supportsFrequentUpdates = supportsFrequentUpdates
            if device.apps[bundleID] == nil { device.appOrder.append(bundleID) }
            device.apps[bundleID] = app
            s.devices[deviceID] = device
            for type in activityTypes { s.registerType(type, bundleID: bundleID, deviceID: deviceID, now: now) }
            return s.appSnapshot(deviceID: deviceID, bundleID: bundleID)!
        }
    }

    /// Registers one more activity type for an installed app (issuing its push-to-start token on iOS 17.2+).
    public func registerActivityType(_ type: ActivityType, bundleID: String, on deviceID: String) throws(SimulatorError) {
        let now = clock.now
        try state.withLock { s throws(SimulatorError) in
            guard s.devices[deviceID]?.apps[bundleID]?.installed == true else {
                throw SimulatorError(.unknownApp, "\(bundleID) is not installed on \"\(deviceID)\"")
            }
            s.registerType(type, bundleID: bundleID, deviceID: deviceID, now: now)
        }
    }

    /// Uninstalls an app: its tokens answer 410 `Unregistered` from now on, its activities disappear.
    public func uninstall(_ bundleID: String, from deviceID: String) throws(SimulatorError) {
        let now = clock.now
        try state.withLock { s throws(SimulatorError) in
            guard s.devices[deviceID]?.apps[bundleID]?.installed == true else {
                throw SimulatorError(.unknownApp, "\(bundleID) is not installed on \"\(deviceID)\"")
            }
            s.devices[deviceID]!.apps[bundleID]!.installed = false
            for (token, record) in s.tokens where record.deviceID == deviceID && record.bundleID == bundleID && record.deadAt == nil {
                s.kill(token: token, at: now, reason: .unregistered)
                // Update tokens go with their activities; the device and push-to-start tokens are retired.
                if case .activityUpdate = record.kind { continue }
                s.retire(token: token)
            }
            for id in s.activities.notDismissed(deviceID: deviceID, bundleID: bundleID) {
                s.activities[id]!.snapshot.state = .dismissed
                s.emit(now, deviceID, bundleID, .activityState(activityID: id, state: .dismissed))
            }
            s.pruneActivities(now)
        }
    }

    /// The user's switch for frequent updates (`ActivityAuthorizationInfo.frequentPushesEnabled`).
    public func setFrequentUpdatesEnabled(_ enabled: Bool, bundleID: String, on deviceID: String) throws(SimulatorError) {
        try state.withLock { s throws(SimulatorError) in
            guard s.devices[deviceID]?.apps[bundleID] != nil else { throw SimulatorError(.unknownApp, "\(bundleID) is not installed on \"\(deviceID)\"") }
            s.devices[deviceID]!.apps[bundleID]!.frequentUpdatesEnabled = enabled
        }
    }

    /// How an app asks for push updates when it starts an activity itself.
    public enum PushMode: Sendable, Hashable {
        case none
        /// `pushType: .token`: an update token is issued.
        case token
        /// `pushType: .channel(id)` (iOS 18+).
        case channel(String)
    }

    /// Starts an activity from the app (ActivityKit's `Activity.request`), with the same checks a device makes.
    /// With a `start` later than the clock's now (iOS 26 `request(..., start:)`) the activity is
    /// `pending` until then, and its update token is issued only when it starts.
    ///
    /// - Throws: `SimulatorError` (`.unsupported`, `.targetMaximumExceeded`, `.decodingFailed`, `.unknownApp`).
    @discardableResult
    public func startActivity(
        on deviceID: String, bundleID: String, attributesType: String, attributes: JSONValue, contentState: JSONValue,
        pushMode: PushMode = .token, staleDate: Date? = nil, relevanceScore: Double? = nil, start: Date? = nil
    ) throws(SimulatorError) -> ActivitySnapshot {
        let now = clock.now
        return try state.withLock { s throws(SimulatorError) in
            s.tick(now)
            guard let device = s.devices[deviceID] else { throw SimulatorError(.unknownDevice, "no device \"\(deviceID)\"") }
            guard let app = device.apps[bundleID], app.installed else { throw SimulatorError(.unknownApp, "\(bundleID) is not installed on \"\(deviceID)\"") }
            if device.osVersion < .liveActivities { throw SimulatorError(.unsupported, "Live Activities need iOS 16.1; \"\(deviceID)\" runs \(device.osVersion)") }
            guard let type = app.types[attributesType] else {
                throw SimulatorError(.unknownApp, "\(bundleID) has not registered the activity type \"\(attributesType)\"")
            }
            if let e = type.attributesError(attributes) { throw SimulatorError(.decodingFailed, e) }
            if let e = type.contentStateError(contentState) { throw SimulatorError(.decodingFailed, e) }
            if start != nil, device.osVersion < .scheduledActivities {
                throw SimulatorError(.unsupported, "a scheduled start needs iOS 26; \"\(deviceID)\" runs \(device.osVersion)")
            }
            var channel: String?
            if case .channel(let id) = pushMode {
                if device.osVersion < .channels { throw SimulatorError(.unsupported, "channel push needs iOS 18; \"\(deviceID)\" runs \(device.osVersion)") }
                guard s.channels[id]?.bundleID == bundleID else { throw SimulatorError(.unsupported, "\"\(id)\" is not a channel of \(bundleID)") }
                channel = id
            }
            let running = s.activities.runningCount(deviceID: deviceID, bundleID: bundleID)
            if running >= s.config.deviceRules.maxActivitiesPerApp {
                throw SimulatorError(.targetMaximumExceeded, "\(bundleID) already has \(running) activities on \"\(deviceID)\"; the limit is \(s.config.deviceRules.maxActivitiesPerApp)")
            }
            let id = s.createActivity(
                deviceID: deviceID, bundleID: bundleID, type: attributesType, attributes: type.decodedAttributes(attributes), state: contentState, startedBy: "app",
                lastTimestamp: 0, staleDate: staleDate, relevance: relevanceScore, issueToken: pushMode == .token, channel: channel, alert: nil, now: now,
                start: start)
            return s.activities[id]!.snapshot
        }
    }

    /// Starts an activity of a Swift `ActivityAttributes` type from the app.
    @discardableResult
    public func startActivity<A: ActivityAttributes>(
        on deviceID: String, bundleID: String, attributes: A, contentState: A.ContentState, pushMode: PushMode = .token,
        staleDate: Date? = nil, relevanceScore: Double? = nil, start: Date? = nil
    ) throws(SimulatorError) -> ActivitySnapshot {
        let a: JSONValue
        let c: JSONValue
        do {
            a = try JSONValue(encoding: attributes)
            c = try JSONValue(encoding: contentState)
        } catch {
            throw SimulatorError(.decodingFailed, "cannot encode \(A.attributesType): \(error)")
        }
        return try startActivity(
            on: deviceID, bundleID: bundleID, attributesType: A.attributesType, attributes: a, contentState: c, pushMode: pushMode,
            staleDate: staleDate, relevanceScore: relevanceScore, start: start)
    }

    /// The user swipes the activity away: it ends and is dismissed at once; its token dies.
    public func dismissByUser(_ activityID: String) throws(SimulatorError) {
        let now = clock.now
        try state.withLock { s throws(SimulatorError) in
            s.tick(now)
            guard var a = s.activities[activityID]?.snapshot else { throw SimulatorError(.unknownActivity, "no activity \"\(activityID)\"") }
            guard a.state != .dismissed else { return }
            if a.endedAt == nil { a.endedAt = now }
            a.state = .dismissed
            a.dismissalDate = now
            if let t = a.pushToken { s.kill(token: t, at: now, reason: .expiredToken) }
            s.activities[activityID]!.snapshot = a
            s.emit(now, a.deviceID, a.bundleID, .activityState(activityID: activityID, state: .dismissed))
            s.pruneActivities(now)
        }
    }

    /// The system issues a new update token for the activity; the old one answers 410 `ExpiredToken`.
    /// - Returns: the new token.
    @discardableResult
    public func rotatePushToken(_ activityID: String) throws(SimulatorError) -> String {
        let now = clock.now
        return try state.withLock { s throws(SimulatorError) in
            guard let a = s.activities[activityID]?.snapshot, a.state != .dismissed else {
                throw SimulatorError(.unknownActivity, "no running activity \"\(activityID)\"")
            }
            guard let old = a.pushToken else { throw SimulatorError(.unsupported, "activity \"\(activityID)\" has no update token (not started with push)") }
            s.kill(token: old, at: now, reason: .expiredToken)
            s.retire(token: old)
            let token = s.newToken(hexBytes: 80)
            s.tokens[token] = SimulatorState.TokenRecord(deviceID: a.deviceID, bundleID: a.bundleID, kind: .activityUpdate(activityID: activityID), environment: s.devices[a.deviceID]!.environment)
            s.activities[activityID]!.snapshot.pushToken = token
            s.emit(now, a.deviceID, a.bundleID, .activityPushToken(activityID: activityID, token: token, rotated: true))
            return token
        }
    }

    /// The system reissues the push-to-start token for `attributesType`; the old one answers 410 `ExpiredToken`.
    @discardableResult
    public func rotatePushToStartToken(bundleID: String, attributesType: String, on deviceID: String) throws(SimulatorError) -> String {
        let now = clock.now
        return try state.withLock { s throws(SimulatorError) in
            guard let old = s.devices[deviceID]?.apps[bundleID]?.pushToStartTokens[attributesType] else {
                throw SimulatorError(.unknownApp, "\(bundleID) on \"\(deviceID)\" has no push-to-start token for \(attributesType)")
            }
            s.kill(token: old, at: now, reason: .expiredToken)
            s.retire(token: old)
            return s.issuePushToStartToken(bundleID: bundleID, type: attributesType, deviceID: deviceID, now: now, rotated: true)
        }
    }
}

extension SimulatorState {
    mutating func registerType(_ type: ActivityType, bundleID: String, deviceID: String, now: Date) {
        if devices[deviceID]!.apps[bundleID]!.types[type.name] == nil { devices[deviceID]!.apps[bundleID]!.typeOrder.append(type.name) }
        devices[deviceID]!.apps[bundleID]!.types[type.name] = type
        if devices[deviceID]!.osVersion >= .pushToStart, devices[deviceID]!.apps[bundleID]!.pushToStartTokens[type.name] == nil {
            _ = issuePushToStartToken(bundleID: bundleID, type: type.name, deviceID: deviceID, now: now, rotated: false)
        }
    }

    mutating func issuePushToStartToken(bundleID: String, type: String, deviceID: String, now: Date, rotated: Bool) -> String {
        let token = newToken(hexBytes: 80)
        tokens[token] = TokenRecord(deviceID: deviceID, bundleID: bundleID, kind: .pushToStart(attributesType: type), environment: devices[deviceID]!.environment)
        devices[deviceID]!.apps[bundleID]!.pushToStartTokens[type] = token
        emit(now, deviceID, bundleID, .pushToStartToken(attributesType: type, token: token))
        return token
    }

    func appSnapshot(deviceID: String, bundleID: String) -> InstalledAppSnapshot? {
        guard let app = devices[deviceID]?.apps[bundleID] else { return nil }
        return InstalledAppSnapshot(
            bundleID: bundleID, deviceToken: app.deviceToken, pushToStartTokens: app.pushToStartTokens, activityTypes: app.typeOrder,
            supportsFrequentUpdates: app.supportsFrequentUpdates, frequentUpdatesEnabled: app.frequentUpdatesEnabled, installed: app.installed,
            notifications: app.notifications.suffix(Self.keptNotifications).map { (try? JSONValue.parse($0)) ?? .string(String(decoding: $0, as: UTF8.self)) })
    }
}

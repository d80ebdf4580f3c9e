import Foundation
import LivelineCore

/// The device side: ActivityKit's rules (apns-protocol.md §7) applied to pushes APNs accepted.
extension SimulatorState {
    typealias Delivery = PushRecord.Delivery

    /// Ordinary notifications kept per app (oldest dropped first).
    static let keptNotifications = 100

    /// Delivers an accepted device push to the device that owns `token`.
    mutating func deliver(body: [UInt8], token: String, record: TokenRecord, pushType: SimulatorMemo.PushTypeFacts, priority: Int, now: Date) -> (event: String?, list: [Delivery]) {
        switch record.kind {
        case .device:
            if let problem = notificationProblem(body) {
                return (nil, [drop(record.deviceID, nil, .malformedPayload, problem)])
            }
            // By index, so the device and app records are changed in place rather than copied.
            if let d = devices.index(forKey: record.deviceID), let a = devices.values[d].apps.index(forKey: record.bundleID) {
                devices.values[d].apps.values[a].keep(notification: body)
            }
            return (nil, memo.deviceDeliveries(deviceID: record.deviceID, detail: pushType.deliveredDetail))
        case .pushToStart(let tokenType):
            let (json, push, event, failure) = parsePush(body)
            guard let json, let push else { return (event, [drop(record.deviceID, nil, .malformedPayload, failure)]) }
            guard push.event == .start else {
                return (event, [drop(record.deviceID, nil, .wrongEvent, "a push-to-start token only starts activities; got event \"\(push.event.rawValue)\"")])
            }
            return (event, [startByPush(push, json: json, deviceID: record.deviceID, bundleID: record.bundleID, tokenType: tokenType, now: now)])
        case .activityUpdate(let activityID):
            // Counted as the activity's drops, as every other push to it that the device ignores.
            let (json, push, event, failure) = parsePush(body)
            guard let json, let push else { return (event, [countDrop(activityID, drop(record.deviceID, activityID, .malformedPayload, failure))]) }
            if push.event == .start {
                return (event, [countDrop(activityID, drop(record.deviceID, activityID, .wrongEvent, "an update token cannot start an activity; send start to a push-to-start token"))])
            }
            return (event, [apply(push, json: json, to: activityID, priority: priority, now: now)])
        }
    }

    /// Why the device drops an ordinary notification (alert, background, VoIP, ...): iOS hands
    /// the app its body as a dictionary, so the body must be a JSON object, and `aps`, when there,
    /// an object. `nil` when it is delivered. The last body delivered is kept, so a sender that
    /// repeats one body has it parsed once.
    mutating func notificationProblem(_ body: [UInt8]) -> String? {
        if memo.isDeliverable(body) { return nil }
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { return error.description }
        guard case .object(let root) = json else { return "the body must be a JSON object, got \(json.typeName)" }
        if let aps = root["aps"], aps.objectValue == nil { return "aps must be an object, got \(aps.typeName)" }
        memo.rememberDeliverable(body)
        return nil
    }

    func drop(_ deviceID: String, _ activityID: String?, _ reason: DropReason, _ detail: String) -> Delivery {
        Delivery(deviceID: deviceID, activityID: activityID, dropReason: reason, detail: detail)
    }

    /// The body as JSON and as a Live Activity push, and its `aps.event` when readable; when it
    /// is neither, why not (the parse error names the line and column), for the drop's detail.
    private func parsePush(_ body: [UInt8]) -> (json: JSONValue?, push: LiveActivityPush?, event: String?, failure: String) {
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { return (nil, nil, nil, error.description) }
        let event = json["aps"]?["event"]?.stringValue
        do {
            return (json, try LiveActivityPush(body: json), event, "")
        } catch {
            return (json, nil, event, error.message)
        }
    }

    // MARK: - Start

    /// A push-to-start: the checks ActivityKit makes before an activity appears.
    mutating func startByPush(_ push: LiveActivityPush, json: JSONValue, deviceID: String, bundleID: String, tokenType: String, now: Date) -> Delivery {
        guard let device = devices[deviceID], let app = device.apps[bundleID] else {
            return drop(deviceID, nil, .malformedPayload, "the app is not installed")
        }
        if device.osVersion < .pushToStart {
            return drop(deviceID, nil, .unsupportedOS, "push-to-start needs iOS 17.2; the device runs \(device.osVersion)")
        }
        if device.modes.forceQuit {
            return drop(deviceID, nil, .forceQuitStart, "the app was force-quit: APNs answered 200 and the device never displays the push-to-start (Apple's known bug)")
        }
        guard push.alert != nil else {
            return drop(deviceID, nil, .missingAlert, "a push-to-start without \"alert\" is dropped by the device (APNs still answers 200)")
        }
        if let refusal = spendStartBudget(deviceID: deviceID, bundleID: bundleID, now: now) { return refusal }
        guard let typeName = push.attributesType else {
            return drop(deviceID, nil, .malformedPayload, "start has no \"attributes-type\"")
        }
        guard let type = app.types[typeName] else {
            let known = app.typeOrder.isEmpty ? "none" : app.typeOrder.joined(separator: ", ")
            return drop(deviceID, nil, .unknownAttributesType, "attributes-type \"\(typeName)\" is not registered by \(bundleID) (registered: \(known))")
        }
        guard let attributes = push.attributes else { return drop(deviceID, nil, .malformedPayload, "start has no \"attributes\" object") }
        guard let state = push.contentState else { return drop(deviceID, nil, .malformedPayload, "start has no \"content-state\" object") }
        guard let timestamp = push.timestamp else { return drop(deviceID, nil, .missingTimestamp, "start has no \"timestamp\"") }
        if let error = type.attributesError(.object(attributes)) { return drop(deviceID, nil, .decodingFailed, error) }
        if let error = type.contentStateError(.object(state)) { return drop(deviceID, nil, .decodingFailed, error) }
        let size = JSONValue.object(attributes).serializedSize + JSONValue.object(state).serializedSize
        if size > config.deviceRules.maxActivityDataBytes {
            return drop(deviceID, nil, .attributesTooLarge, "attributes plus content state are \(size) bytes; the device limit is \(config.deviceRules.maxActivityDataBytes)")
        }
        var channel: String?
        var issueToken = false
        switch push.startInput {
        case .channel(let id):
            if device.osVersion < .channels {
                return drop(deviceID, nil, .unsupportedOS, "input-push-channel needs iOS 18; the device runs \(device.osVersion), so the activity does not start")
            }
            guard let c = channels[id], c.bundleID == bundleID, c.environment == device.environment else {
                return drop(deviceID, nil, .unknownChannel, "input-push-channel \"\(id)\" is not a channel of \(bundleID) in \(device.environment.rawValue)")
            }
            channel = c.id
        case .pushToken:
            issueToken = true
        case .none:
            // iOS 17.2–17.x always hands the app an update token after a push-to-start; iOS 18 only when asked.
            issueToken = device.osVersion < .channels
        }
        let running = activities.runningCount(deviceID: deviceID, bundleID: bundleID)
        if running >= config.deviceRules.maxActivitiesPerApp {
            return drop(deviceID, nil, .targetMaximumExceeded, "\(bundleID) already has \(running) activities; the per-app limit is \(config.deviceRules.maxActivitiesPerApp)")
        }
        let id = createActivity(
            deviceID: deviceID, bundleID: bundleID, type: typeName, attributes: type.decodedAttributes(.object(attributes)), state: .object(state),
            startedBy: "push", lastTimestamp: timestamp.timeIntervalSince1970, staleDate: push.staleDate,
            relevance: push.relevanceScore, issueToken: issueToken, channel: channel, alert: json["aps"]?["alert"], now: now)
        if let channel, let stored = channels[channel]?.stored, stored.expiresAt > now {
            _ = apply(bodyBytes: stored.body, to: id, priority: stored.priority, now: now)
        }
        return Delivery(deviceID: deviceID, activityID: id, dropReason: nil, detail: "started \(typeName) activity \(id)")
    }

    /// Creates an activity and issues its tokens; returns its id.
    mutating func createActivity(
        deviceID: String, bundleID: String, type: String, attributes: JSONValue, state: JSONValue, startedBy: String,
        lastTimestamp: Double, staleDate: Date?, relevance: Double?, issueToken: Bool, channel: String?, alert: JSONValue?, now: Date,
        start: Date? = nil
    ) -> String {
        let id = rng.uuidString().uppercased()
        if let start, start > now {
            return createScheduled(
                id: id, deviceID: deviceID, bundleID: bundleID, type: type, attributes: attributes, state: state, startedBy: startedBy,
                staleDate: staleDate, relevance: relevance, issueToken: issueToken, channel: channel, start: start, now: now)
        }
        var token: String?
        // A device that withholds update tokens starts the activity and never hands out its token.
        if issueToken, devices[deviceID]?.modes.withholdsUpdateTokens != true {
            let t = newToken(hexBytes: 80)
            tokens[t] = TokenRecord(deviceID: deviceID, bundleID: bundleID, kind: .activityUpdate(activityID: id), environment: devices[deviceID]!.environment)
            token = t
        }
        let snapshot = ActivitySnapshot(
            id: id, deviceID: deviceID, bundleID: bundleID, attributesType: type, attributes: attributes, contentState: state,
            state: .active, pushToken: token, channelID: channel, startedAt: now, startedBy: startedBy, staleDate: staleDate,
            relevanceScore: relevance, endedAt: nil, dismissalDate: nil, lastTimestamp: lastTimestamp, updateCount: 0,
            droppedCount: 0, lastAlert: alert)
        activities[id] = ActivityRecord(snapshot: snapshot)
        emit(now, deviceID, bundleID, .activityState(activityID: id, state: .active))
        if let token { emit(now, deviceID, bundleID, .activityPushToken(activityID: id, token: token, rotated: false)) }
        return id
    }

    // MARK: - Update and end

    mutating func apply(bodyBytes: [UInt8], to activityID: String, priority: Int, now: Date) -> Delivery {
        let deviceID = activities[activityID]?.snapshot.deviceID ?? ""
        let (json, push, _, failure) = parsePush(bodyBytes)
        guard let json, let push else { return countDrop(activityID, drop(deviceID, activityID, .malformedPayload, failure)) }
        if push.event == .start { return countDrop(activityID, drop(deviceID, activityID, .wrongEvent, "a channel cannot start an activity")) }
        return apply(push, json: json, to: activityID, priority: priority, now: now)
    }

    private mutating func countDrop(_ activityID: String, _ delivery: Delivery) -> Delivery {
        activities[activityID]?.snapshot.droppedCount += 1
        return delivery
    }

    /// An update or end for one activity: ordering, end, decoding and budget rules, then the change.
    mutating func apply(_ push: LiveActivityPush, json: JSONValue, to activityID: String, priority: Int, now: Date) -> Delivery {
        guard var record = activities[activityID] else {
            return Delivery(deviceID: "", activityID: activityID, dropReason: .activityEnded, detail: "the activity no longer exists")
        }
        var s = record.snapshot
        let deviceID = s.deviceID
        if s.state == .ended || s.state == .dismissed {
            return countDrop(activityID, drop(deviceID, activityID, .activityEnded, "the activity ended at \(Self.iso(s.endedAt)); pushes after the end are ignored"))
        }
        guard let timestamp = push.timestamp?.timeIntervalSince1970 else {
            return countDrop(activityID, drop(deviceID, activityID, .missingTimestamp, "\(push.event.rawValue) has no \"timestamp\"; the device cannot order it"))
        }
        if timestamp <= s.lastTimestamp {
            return countDrop(activityID, drop(deviceID, activityID, .staleTimestamp,
                "timestamp \(JSONValue.javaScriptNumber(timestamp)) is not newer than the content shown (\(JSONValue.javaScriptNumber(s.lastTimestamp)))"))
        }
        let type = devices[deviceID]?.apps[s.bundleID]?.types[s.attributesType]
        if let state = push.contentState {
            if let error = type?.contentStateError(.object(state)) {
                activities[activityID]?.snapshot.decodeFailures += 1
                activities[activityID]?.snapshot.lastDecodeFailure = error
                return countDrop(activityID, drop(deviceID, activityID, .decodingFailed, error))
            }
        } else if push.event == .update {
            return countDrop(activityID, drop(deviceID, activityID, .malformedPayload, "update has no \"content-state\""))
        }
        if push.event == .update && priority == 10 {
            let app = devices[deviceID]?.apps[s.bundleID]
            let frequent = app?.supportsFrequentUpdates == true && app?.frequentUpdatesEnabled == true
            let budget = frequent ? config.deviceRules.frequentUpdateBudgetPerHour : config.deviceRules.updateBudgetPerHour
            record.budgetLog.removeAll { now.timeIntervalSince($0) >= 3600 }
            if record.budgetLog.count >= budget {
                activities[activityID] = record
                let next = record.budgetLog.first.map { Self.iso($0.addingTimeInterval(3600)) } ?? "later"
                return countDrop(activityID, drop(deviceID, activityID, .overBudget,
                    "\(budget) priority-10 updates in the last hour exhaust the budget\(frequent ? " (frequent updates on)" : ""); send priority 5 or wait until \(next)"))
            }
            record.budgetLog.append(now)
        }
        if let state = push.contentState { s.contentState = .object(state) }
        s.lastTimestamp = timestamp
        if let stale = push.staleDate {
            s.staleDate = stale
            if s.state == .stale, stale > now {
                s.state = .active
                emit(now, deviceID, s.bundleID, .activityState(activityID: activityID, state: .active))
            }
        }
        if let score = push.relevanceScore { s.relevanceScore = score }
        if let alert = json["aps"]?["alert"] { s.lastAlert = alert }
        var detail: String
        if push.event == .end {
            s.state = .ended
            s.endedAt = now
            let cap = s.startedAt.addingTimeInterval(config.deviceRules.maxTotalDuration)
            var removal: Date
            switch push.dismissal {
            case .systemDefault: removal = now.addingTimeInterval(config.deviceRules.defaultDismissalDelay)
            case .immediate: removal = now
            case .at(let d): removal = d <= now ? now : min(d, now.addingTimeInterval(config.deviceRules.defaultDismissalDelay))
            }
            removal = min(removal, cap)
            s.dismissalDate = removal
            emit(now, deviceID, s.bundleID, .activityState(activityID: activityID, state: .ended))
            detail = "ended; removal at \(Self.iso(removal))"
        } else {
            s.updateCount += 1
            detail = "updated"
        }
        if push.contentState != nil { emit(now, deviceID, s.bundleID, .contentUpdate(activityID: activityID)) }
        record.snapshot = s
        activities[activityID] = record
        tick(now)
        return Delivery(deviceID: deviceID, activityID: activityID, dropReason: nil, detail: detail)
    }

    static func iso(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(.iso8601)
    }
}

import Foundation
import LivelineCore

/// Looking at what the simulator holds: devices, activities, events, the push log, as values or JSON.
extension Simulator {
    /// Every device, in the order added.
    public func devices() -> [DeviceSnapshot] {
        state.withLock { s in
            s.deviceOrder.compactMap { id in
                guard let d = s.devices[id] else { return nil }
                return DeviceSnapshot(
                    id: id, name: d.name, osVersion: d.osVersion, environment: d.environment,
                    apps: d.appOrder.compactMap { s.appSnapshot(deviceID: id, bundleID: $0) }, modes: d.modes)
            }
        }
    }

    /// One installed app, with its current tokens.
    public func app(_ bundleID: String, on deviceID: String) -> InstalledAppSnapshot? {
        state.withLock { $0.appSnapshot(deviceID: deviceID, bundleID: bundleID) }
    }

    /// Every activity as of the clock's current time, in start order; dismissed ones only until their
    /// retention (`dismissedActivityCapacity`, `dismissedActivityRetention`) has passed.
    public func activities() -> [ActivitySnapshot] {
        let now = clock.now
        return state.withLock { s in
            s.tick(now)
            return s.activities.inStartOrder.map(\.snapshot)
        }
    }

    /// One activity as of now.
    public func activity(_ id: String) -> ActivitySnapshot? {
        let now = clock.now
        return state.withLock { s in
            s.tick(now)
            return s.activities[id]?.snapshot
        }
    }

    /// Token and state events, oldest first (at most `eventCapacity`).
    public func events() -> [SimulatorEvent] {
        let now = clock.now
        return state.withLock { s in
            s.tick(now)
            return s.orderedEvents
        }
    }

    /// The push log, oldest first (at most `logCapacity` records).
    public func log() -> [PushRecord] { state.withLock { $0.orderedLog } }

    /// Pushes accepted (and applied), rejected, and accepted-but-dropped, since start.
    public var counts: (accepted: Int, rejected: Int, dropped: Int) {
        state.withLock { ($0.acceptedCount, $0.rejectedCount, $0.droppedCount) }
    }

    // MARK: - JSON

    /// `GET /simulator/v1/status`.
    public func statusJSON() -> JSONValue {
        state.withLock { s in
            let c = (s.acceptedCount, s.rejectedCount, s.droppedCount)
            return [
                "environment": .string(s.config.environment.rawValue),
                "time": .string(SimulatorState.iso(clock.now)),
                "keys": .array(s.keysByID.values.sorted { $0.keyID < $1.keyID }.map { k in
                    ["keyID": .string(k.keyID), "teamID": .string(k.teamID), "scope": .string(k.scope.rawValue)]
                }),
                "apps": .array(s.appsByBundle.values.sorted { $0.bundleID < $1.bundleID }.map { a in
                    ["bundleID": .string(a.bundleID), "teamID": .string(a.teamID), "broadcastEnabled": .bool(a.broadcastEnabled)]
                }),
                "devices": .number(Double(s.deviceOrder.count)),
                "activities": .number(Double(s.activities.count)),
                "channels": .number(Double(s.channelOrder.count)),
                "pushes": ["accepted": .number(Double(c.0)), "rejected": .number(Double(c.1)), "dropped": .number(Double(c.2))],
            ]
        }
    }

    /// `GET /simulator/v1/devices`: devices, apps and full tokens (the simulator's own, so clients can use them).
    public func devicesJSON() -> JSONValue {
        .array(devices().map { d in
            [
                "id": .string(d.id), "name": .string(d.name), "iOS": .string(d.osVersion.description),
                "environment": .string(d.environment.rawValue), "modes": d.modes.json,
                "apps": .array(d.apps.map { a in
                    var tokens = JSONObject()
                    for t in a.activityTypes { if let token = a.pushToStartTokens[t] { tokens[t] = .string(token) } }
                    return [
                        "bundleID": .string(a.bundleID), "deviceToken": .string(a.deviceToken), "installed": .bool(a.installed),
                        "activityTypes": .array(a.activityTypes.map(JSONValue.string)), "pushToStartTokens": .object(tokens),
                        "frequentUpdates": .bool(a.supportsFrequentUpdates && a.frequentUpdatesEnabled),
                        "notifications": .number(Double(a.notifications.count)),
                    ]
                }),
            ]
        })
    }

    /// `GET /simulator/v1/activities`.
    public func activitiesJSON() -> JSONValue {
        .array(activities().map(Self.json))
    }

    static func json(_ a: ActivitySnapshot) -> JSONValue {
        var o: JSONObject = [
            "id": .string(a.id), "deviceID": .string(a.deviceID), "bundleID": .string(a.bundleID),
            "attributesType": .string(a.attributesType), "state": .string(a.state.rawValue), "startedBy": .string(a.startedBy),
            "startedAt": .string(SimulatorState.iso(a.startedAt)), "attributes": a.attributes, "contentState": a.contentState,
            "timestamp": .number(a.lastTimestamp), "updates": .number(Double(a.updateCount)), "dropped": .number(Double(a.droppedCount)),
        ]
        if let t = a.pushToken { o["pushToken"] = .string(t) }
        if let c = a.channelID { o["channelID"] = .string(c) }
        if let d = a.staleDate { o["staleDate"] = .string(SimulatorState.iso(d)) }
        if let r = a.relevanceScore { o["relevanceScore"] = .number(r) }
        if let d = a.endedAt { o["endedAt"] = .string(SimulatorState.iso(d)) }
        if let d = a.dismissalDate { o["dismissalDate"] = .string(SimulatorState.iso(d)) }
        if let alert = a.lastAlert { o["lastAlert"] = alert }
        if a.decodeFailures > 0 {
            o["decodeFailures"] = .number(Double(a.decodeFailures))
            if let e = a.lastDecodeFailure { o["lastDecodeFailure"] = .string(e) }
        }
        return .object(o)
    }

    /// `GET /simulator/v1/log`: the last `limit` pushes, newest last.
    public func logJSON(limit: Int = 100) -> JSONValue {
        .array(log().suffix(max(0, limit)).map(Self.json))
    }

    static func json(_ r: PushRecord) -> JSONValue {
        var o: JSONObject = [
            "sequence": .number(Double(r.sequence)), "time": .string(SimulatorState.iso(r.time)), "kind": .string(r.kind),
            "method": .string(r.method), "path": .string(r.path), "status": .number(Double(r.status)), "apnsID": .string(r.apnsID),
        ]
        switch r.verdict {
        case .accepted: o["verdict"] = "accepted"
        case .rejected(let reason):
            o["verdict"] = "rejected"
            o["reason"] = .string(reason.rawValue)
        case .dropped(let why, let detail):
            o["verdict"] = "dropped"
            o["dropReason"] = .string(why.rawValue)
            o["detail"] = .string(detail)
        }
        if let b = r.bundleID { o["bundleID"] = .string(b) }
        if let t = r.pushType { o["pushType"] = .string(t) }
        if let p = r.priority { o["priority"] = .number(Double(p)) }
        if let e = r.event { o["event"] = .string(e) }
        if let c = r.channelID { o["channelID"] = .string(c) }
        for member in r.sentJSON { o[member.key] = member.value }
        if !r.deliveries.isEmpty {
            o["deliveries"] = .array(r.deliveries.map { d in
                var x: JSONObject = ["deviceID": .string(d.deviceID), "applied": .bool(d.dropReason == nil), "detail": .string(d.detail)]
                if let a = d.activityID { x["activityID"] = .string(a) }
                if let why = d.dropReason { x["dropReason"] = .string(why.rawValue) }
                return .object(x)
            })
        }
        return .object(o)
    }

    /// Answers `GET /simulator/v1/<status|devices|activities|log>`; `nil` for any other path.
    public func inspection(path: String) -> JSONValue? {
        let parts = path.split(separator: "?", maxSplits: 1)
        let route = parts.first.map(String.init) ?? path
        var limit = 100
        if parts.count > 1 {
            for item in parts[1].split(separator: "&") where item.hasPrefix("limit=") { limit = Int(item.dropFirst(6)) ?? limit }
        }
        switch route {
        case "/simulator/v1/status": return statusJSON()
        case "/simulator/v1/devices": return devicesJSON()
        case "/simulator/v1/activities": return activitiesJSON()
        case "/simulator/v1/log": return logJSON(limit: limit)
        default: return nil
        }
    }
}

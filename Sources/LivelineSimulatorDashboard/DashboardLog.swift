import Foundation
import LivelineCore
import LivelineSimulator
import LivelineUI
import Synchronization

/// The delivery log as the page shows it: per device the latest pushes with their verdicts, and
/// for accepted pushes what lint finds in the content the device now shows (a Unix-seconds date
/// that decodes to 2057, say). Pushes no device can be found for (a token APNs never issued) go
/// to `unmatched`.
final class DashboardLog: Sendable {
    /// Entries kept per device and for unmatched pushes.
    static let kept = 50

    private struct State {
        var byDevice: [String: [JSONValue]] = [:]
        var unmatched: [JSONValue] = []
        /// 8-character token prefixes (what the log shows of a token) to their device.
        var prefixes: [String: String] = [:]
    }

    private let state = Mutex(State())
    private let schemas: [String: ActivitySchema] = [
        FlightAttributes.attributesType: FlightAttributes.schema,
        VoltraAttributes.attributesType: VoltraAttributes.schema,
    ]

    /// Remembers every token of `devices` and their activities, to find the device of a rejected push.
    func learnTokens(devices: [DeviceSnapshot], activities: [ActivitySnapshot]) {
        state.withLock { s in
            for d in devices {
                for app in d.apps {
                    s.prefixes[String(app.deviceToken.prefix(8))] = d.id
                    for token in app.pushToStartTokens.values { s.prefixes[String(token.prefix(8))] = d.id }
                }
            }
            for a in activities { if let t = a.pushToken { s.prefixes[String(t.prefix(8))] = a.deviceID } }
        }
    }

    /// Remembers one token.
    func learn(token: String, deviceID: String) {
        state.withLock { $0.prefixes[String(token.prefix(8))] = deviceID }
    }

    /// Files a push under the devices it reached (or whose token it named); returns them.
    @discardableResult
    func add(_ record: PushRecord, activities: [ActivitySnapshot]) -> [String] {
        var entry = Self.json(record)
        let found = activities.flatMap { self.findings(for: $0) }
        if case .accepted = record.verdict, !found.isEmpty {
            entry["verdict"] = "suspicious"
            entry["findings"] = .array(found)
        }
        let value = JSONValue.object(entry)
        return state.withLock { s in
            var devices = record.deliveries.map(\.deviceID).filter { !$0.isEmpty }
            if devices.isEmpty, let prefix = Self.tokenPrefix(record.path), let d = s.prefixes[prefix] { devices = [d] }
            var seen = Set<String>()
            devices = devices.filter { seen.insert($0).inserted }
            if devices.isEmpty {
                Self.append(value, to: &s.unmatched)
            }
            for d in devices { Self.append(value, to: &s.byDevice[d, default: []]) }
            return devices
        }
    }

    func entries(deviceID: String) -> [JSONValue] { state.withLock { $0.byDevice[deviceID] ?? [] } }
    var unmatched: [JSONValue] { state.withLock { $0.unmatched } }

    /// What lint says about the content an activity shows, beyond decoding: wrong date units, implausible dates, ignored keys.
    func findings(for activity: ActivitySnapshot) -> [JSONValue] {
        guard let schema = schemas[activity.attributesType] else { return [] }
        return schema.checkContentState(activity.contentState).filter { !$0.isDecodingFailure }.map { f in
            ["severity": .string(f.severity.rawValue), "code": .string(f.code.rawValue), "path": .string(f.path), "message": .string(f.message),
             "activityID": .string(activity.id)]
        }
    }

    private static func append(_ value: JSONValue, to list: inout [JSONValue]) {
        list.append(value)
        if list.count > kept { list.removeFirst(list.count - kept) }
    }

    /// The token prefix in a logged device path (`/3/device/1a2b3c4d…`).
    static func tokenPrefix(_ path: String) -> String? {
        guard path.hasPrefix("/3/device/") else { return nil }
        let hex = path.dropFirst(10).prefix { $0.isHexDigit }
        return hex.count >= 8 ? String(hex.prefix(8)) : nil
    }

    static func json(_ r: PushRecord) -> JSONObject {
        var o: JSONObject = [
            "sequence": .number(Double(r.sequence)), "time": .string(r.time.formatted(.iso8601)), "kind": .string(r.kind),
            "path": .string(r.path), "status": .number(Double(r.status)),
        ]
        switch r.verdict {
        case .accepted: o["verdict"] = "accepted"
        case .rejected(let reason):
            o["verdict"] = "rejected"
            o["reason"] = .string(reason.rawValue)
        case .dropped(let why, let detail):
            o["verdict"] = "dropped"
            o["reason"] = .string(why.rawValue)
            o["detail"] = .string(detail)
        }
        if let t = r.pushType { o["pushType"] = .string(t) }
        if let p = r.priority { o["priority"] = .number(Double(p)) }
        if let e = r.event { o["event"] = .string(e) }
        // What an entry opens to: the request line and headers APNs saw, and what each device did.
        o["method"] = .string(r.method)
        if !r.apnsID.isEmpty { o["apnsID"] = .string(r.apnsID) }
        if let b = r.bundleID { o["bundleID"] = .string(b) }
        if let c = r.channelID { o["channelID"] = .string(c) }
        // The headers as sent and the payload (bounded by the simulator; no JWT, no whole token).
        for member in r.sentJSON { o[member.key] = member.value }
        if !r.deliveries.isEmpty {
            o["deliveries"] = .array(r.deliveries.map { d in
                var entry: JSONObject = ["deviceID": .string(d.deviceID), "detail": .string(d.detail), "applied": .bool(d.dropReason == nil)]
                if let a = d.activityID { entry["activityID"] = .string(a) }
                if let reason = d.dropReason { entry["reason"] = .string(reason.rawValue) }
                return .object(entry)
            })
        }
        let drops = r.deliveries.filter { $0.dropReason != nil }
        if case .accepted = r.verdict, !drops.isEmpty {
            o["partialDrops"] = .array(drops.map { ["deviceID": .string($0.deviceID), "reason": .string($0.dropReason!.rawValue), "detail": .string($0.detail)] })
        }
        return o
    }
}

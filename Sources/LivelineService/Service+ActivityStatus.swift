import Foundation
import LivelineCore
import LivelineStore

/// A reason in a device's status: why a push APNs accepted did not show, or why the activity
/// cannot be reached. Each is inferred from what the service holds (deliveries, tokens, receipts,
/// the device's own reports), never guessed from nothing.
public struct StatusReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A push-to-start APNs accepted, and no update token and no receipt from the device within
    /// `startShownWithin`: Apple's known bug with force-quit apps, which never display it.
    public static let startNeverShown = StatusReason(rawValue: "start-never-shown")
    /// The activity showed (a receipt) but its update token never came: on iOS 17, or iOS 18
    /// without a channel, nothing can update or end it any more.
    public static let updateTokenNeverCame = StatusReason(rawValue: "update-token-never-came")
    /// The device sends receipts, and none came for the newest accepted push within `receiptWithin`.
    public static let noReceipt = StatusReason(rawValue: "no-receipt")
    /// The push went to a token the device has since replaced, or APNs said the token is dead.
    public static let tokenRotated = StatusReason(rawValue: "token-rotated")
    /// The push was accepted after the activity ended on the device: it is ignored.
    public static let activityEnded = StatusReason(rawValue: "activity-ended")
    /// The push was accepted more than 8 hours after the start: ActivityKit had ended the activity.
    public static let pastEightHours = StatusReason(rawValue: "past-8-hours")
    /// The app reported that its attributes type failed to decode the content state.
    public static let decodeFailed = StatusReason(rawValue: "decode-failed")
    /// APNs refused the push-to-start: no activity was created.
    public static let startRejected = StatusReason(rawValue: "start-rejected")
    /// APNs' host refused the device's token (BadDeviceToken): the service keeps it marked and
    /// sends it nothing until the app registers it again (most often the build's other environment).
    public static let tokenRefused = StatusReason(rawValue: "token-refused")
    /// APNs refused the newest push for a reason of its own (a bad payload, a topic, a key).
    public static let pushFailed = StatusReason(rawValue: "push-failed")
}

/// What a device's status knows about one logical activity (`GET /v1/activities/{id}`, `devices`).
extension Service {
    /// The thresholds of the inferences, from the configuration.
    struct StatusRules: Sendable {
        var startShownWithin: TimeInterval = 120
        var receiptWithin: TimeInterval = 60
        /// Each device's budget for the activity (BudgetLedger.swift); nil: not shown.
        var ledger: BudgetLedger?
        init() {}
        init(_ c: ServiceConfiguration) {
            startShownWithin = c.startShownWithin.seconds
            receiptWithin = c.receiptWithin.seconds
            var ledger = BudgetLedger(c)
            ledger.listLimit = 10
            self.ledger = ledger
        }
    }

    /// Reports a device may send: only this kind for now.
    static let decodeFailureKind = "decode-failure"
    /// ActivityKit removes an ended activity from the Lock Screen 4 hours after its end at the latest.
    static let dismissalLimit: TimeInterval = 4 * 3600

    // MARK: The device's report: a content state its type failed to decode

    /// `POST /v1/activities/{id}/decode-failures`: the app's attributes type could not decode a
    /// content state (the widget shows nothing new). Owner-only, like receipts: an installation
    /// reports only on an activity it holds and only for itself.
    func postDecodeFailure(_ c: RequestContext) throws -> Answer {
        let requested = c.param("activityID")
        var body = try JSONBody(c.request.body)
        let given = try body.string("deviceID", maxLength: 200)
        let error = try body.requiredString("error", maxLength: 1000)
        // A device clock ahead of the service's is common: its report counts as made now.
        let at = min(try body.date("failedAt") ?? c.now, c.now)
        try body.finish()
        guard let deviceID = try bodyDevice(c, given) else { throw APIError.invalid("deviceID", "is required") }
        if error.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw APIError.invalid("error", "must say what failed to decode (the decoder's message)") }
        if error.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) {
            throw APIError.invalid("error", "must be text without control characters")
        }
        return try commit(c) { [self] tx in
            let activityID = try resolveActivityID(requested, installation: c.installation, tx)
            if let installation = c.installation {
                guard try holds(activityID, installation: installation, tx: tx) else { throw Self.unknownActivity(activityID) }
            } else {
                guard let activity = try tx.activity(activityID) else { throw Self.unknownActivity(activityID) }
                try c.requireApp(activity.bundleID, hiding: Self.unknownActivity(activityID).message)
                guard try tx.device(deviceID) != nil else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered", field: "deviceID") }
            }
            let stored = try tx.replaceDeviceReport(DeviceReportRecord(activityID: activityID, deviceID: deviceID, kind: Self.decodeFailureKind,
                                                                       detail: error, reportedAt: at, createdAt: c.now))
            return Answer(201, ["activityID": .string(activityID), "deviceID": .string(deviceID), "kind": .string(stored.kind),
                                "failedAt": .string(ISODate.string(stored.reportedAt))])
        }
    }

    // MARK: The status per device

    /// Statuses in one answer at most: each reads its device, so a fan-out's `?limit=10000` stays cheap.
    static let maxDeviceStatuses = 200

    /// One status per device that the activity's newest `deliveries` and `tokens` name (the first
    /// `maxDeviceStatuses`, newest activity first).
    static func deviceStatuses(_ activity: ActivityRecord, deliveries: [DeliveryRecord], tokens: [TokenRecord], limit: Int,
                               rules: StatusRules, now: Date, _ tx: any StoreTransaction) throws -> [JSONValue] {
        let reports = try tx.deviceReports(activityID: activity.activityID)
        let members = try currentMembers(activity, tx)  // app-started activities on its channel (Service+ChannelMembers.swift)
        var order: [String] = []
        var seen = Set<String>()
        var byDevice: [String: [DeliveryRecord]] = [:]
        for d in deliveries { if let id = d.deviceID { byDevice[id, default: []].append(d) } }
        let tokenOf = Dictionary(tokens.map { ($0.deviceID, $0) }, uniquingKeysWith: { a, _ in a })
        for id in deliveries.compactMap(\.deviceID) + tokens.map(\.deviceID) + reports.map(\.deviceID) + members.map(\.deviceID) where seen.insert(id).inserted {
            order.append(id)
            if order.count >= min(limit, maxDeviceStatuses) { break }
        }
        var sends: [Int64: JSONValue] = [:]
        func body(_ id: Int64) throws -> JSONValue? {
            if let cached = sends[id] { return cached }
            guard let send = try tx.send(id), let json = try? JSONValue.parse(send.body) else { return nil }
            sends[id] = json
            return json
        }
        return try order.map { deviceID in
            let facts = DeviceFacts(
                activity: activity, deviceID: deviceID, device: try tx.device(deviceID), deliveries: byDevice[deviceID] ?? [],
                token: tokenOf[deviceID],
                decodeFailure: reports.last { $0.deviceID == deviceID && $0.kind == decodeFailureKind },
                member: members.first { $0.deviceID == deviceID })
            let status = try facts.status(rules: rules, now: now, body: body)
            guard let ledger = rules.ledger, let device = facts.device, case .object(var o) = status else { return status }
            o["budget"] = try ledger.snapshot(device: device, activityID: activity.activityID, now: now, tx: tx)
            return .object(o)
        }
    }
}

/// What the service holds about one device of one activity, and what it infers from it.
struct DeviceFacts {
    var activity: ActivityRecord
    var deviceID: String
    var device: DeviceRecord?
    /// Newest first.
    var deliveries: [DeliveryRecord]
    var token: TokenRecord?
    var decodeFailure: DeviceReportRecord?
    /// The device reported that its app-started activity follows the activity's channel.
    var member: ChannelMemberRecord? = nil

    /// When APNs gave its verdict on a row (a receipt overwrites `updatedAt`, so a displayed row has none here).
    static func verdictTime(_ d: DeliveryRecord) -> Date? { d.displayedAt == nil && d.state.isFinal ? d.updatedAt : nil }

    func status(rules: Service.StatusRules, now: Date, body: (Int64) throws -> JSONValue?) throws -> JSONValue {
        let start = deliveries.first { $0.target == .pushToStart }
        let receipts = deliveries.compactMap(\.displayedAt)
        let lastReceipt = receipts.max()
        let firstReceipt = receipts.min()
        let last = deliveries.first
        let version = device.flatMap { OSVersionNumber($0.iosVersion) }
        let viaChannel = activity.channelID != nil && (version.map { $0 >= OSVersionNumber(18, 0) } ?? false) || member != nil

        // Lifecycle, as far as the service knows it.
        var lifecycle = JSONObject()
        if start != nil { lifecycle["startRequestedAt"] = .string(ISODate.string(activity.startedAt)) }
        let startAccepted = start.map { $0.state == .sent } ?? false
        if let start, startAccepted, let t = Self.verdictTime(start) { lifecycle["startAcceptedAt"] = .string(ISODate.string(t)) }
        if let token { lifecycle["tokenRegisteredAt"] = .string(ISODate.string(token.registeredAt)) }
        if let firstReceipt { lifecycle["firstShownAt"] = .string(ISODate.string(firstReceipt)) }
        if let lastReceipt { lifecycle["lastReceiptAt"] = .string(ISODate.string(lastReceipt)) }
        if let member { lifecycle["followsChannelSince"] = .string(ISODate.string(member.joinedAt)) }
        let shown = token != nil || firstReceipt != nil || (start == nil && !deliveries.isEmpty) || member != nil

        // Stale date: from the newest start or update that carried one.
        var staleAt: Date?
        for d in deliveries where d.event != "end" && d.state == .sent {
            if let s = try body(d.sendID)?["aps"]?["stale-date"]?.numberValue { staleAt = Date(timeIntervalSince1970: s); break }
        }
        if let staleAt { lifecycle["staleAt"] = .string(ISODate.string(staleAt)) }

        // End: the backend's end once it is due, or ActivityKit's 8 hours.
        let eightHours = activity.startedAt.addingTimeInterval(Service.activityLifetime)
        var ended: Date?
        var endedBy: String?
        if let e = activity.endedAt, e <= now { ended = e; endedBy = "the backend's end" }
        if eightHours <= now, ended.map({ eightHours < $0 }) ?? true { ended = eightHours; endedBy = "ActivityKit's 8-hour limit" }
        var dismissed: Date?
        if let ended {
            lifecycle["endedAt"] = .string(ISODate.string(ended))
            if let endedBy { lifecycle["endedBy"] = .string(endedBy) }
            var removal = min(ended.addingTimeInterval(Service.dismissalLimit), activity.startedAt.addingTimeInterval(Service.activityLifetime + Service.dismissalLimit))
            if let end = deliveries.first(where: { $0.event == "end" && $0.state == .sent }), let d = try body(end.sendID)?["aps"]?["dismissal-date"]?.numberValue {
                removal = min(removal, max(ended, Date(timeIntervalSince1970: d)))
            }
            lifecycle["dismissedAt"] = .string(ISODate.string(removal))
            if removal <= now { dismissed = removal }
        }

        // State.
        let state: String
        if let start, !start.state.isFinal {
            state = "pending"
        } else if start != nil, !startAccepted, !shown {
            state = "failed"
        } else if dismissed != nil {
            state = "dismissed"
        } else if ended != nil {
            state = "ended"
        } else if !shown {
            state = "started"
        } else if let staleAt, staleAt <= now {
            state = "stale"
        } else {
            state = "active"
        }
        let reachable = ["started", "active", "stale"].contains(state) && (token != nil || viaChannel)

        var o: JSONObject = ["deviceID": .string(deviceID), "state": .string(state), "reachable": .bool(reachable), "lifecycle": .object(lifecycle)]
        if let device { o["iosVersion"] = .string(device.iosVersion) }
        if let token { o["token"] = .string(Service.prefix(token.token)) }
        if let member { o["channelID"] = .string(member.channelID); o["startedBy"] = "app" }
        if let last {
            var l: JSONObject = ["id": .number(Double(last.id)), "event": .string(last.event), "target": .string(last.target.rawValue), "state": .string(last.state.rawValue),
                                 "priority": .number(Double(last.priority)), "at": .string(ISODate.string(last.updatedAt))]
            if let s = last.status { l["status"] = .number(Double(s)) }
            if let r = last.reason { l["reason"] = .string(r) }
            if let a = last.apnsID { l["apnsID"] = .string(a) }
            if let n = last.note { l["note"] = .string(n) }
            o["lastDelivery"] = .object(l)
        }
        if let lastReceipt, let shownRow = deliveries.first(where: { $0.displayedAt == lastReceipt }) {
            o["receipt"] = ["displayedAt": .string(ISODate.string(lastReceipt)), "deliveryID": .number(Double(shownRow.id)), "event": .string(shownRow.event)]
        }
        if let f = decodeFailure {
            o["decodeFailure"] = ["failedAt": .string(ISODate.string(f.reportedAt)), "error": .string(f.detail)]
        }
        if let reason = try reason(state: state, start: start, startAccepted: startAccepted, shown: shown, viaChannel: viaChannel, version: version,
                                   last: last, lastReceipt: lastReceipt, ended: ended, endedBy: endedBy, rules: rules, now: now) {
            o["reason"] = ["code": .string(reason.code.rawValue), "message": .string(reason.message)]
        }
        return .object(o)
    }

    /// The first reason that explains why the newest push did not show, or why the activity
    /// cannot be reached; nil when nothing is wrong as far as the service can tell.
    private func reason(state: String, start: DeliveryRecord?, startAccepted: Bool, shown: Bool, viaChannel: Bool, version: OSVersionNumber?,
                        last: DeliveryRecord?, lastReceipt: Date?, ended: Date?, endedBy: String?,
                        rules: Service.StatusRules, now: Date) throws -> (code: StatusReason, message: String)? {
        if let start, start.state.isFinal, !startAccepted, !shown {
            let why = [start.status.map { "\($0)" }, start.reason].compactMap { $0 }.joined(separator: " ")
            return (.startRejected, "APNs refused the push-to-start (\(why.isEmpty ? start.state.rawValue : why)): no activity was created")
        }
        // The device's own word comes first: it saw the push and could not decode it.
        if let f = decodeFailure, lastReceipt.map({ $0 < f.reportedAt }) ?? true {
            return (.decodeFailed, "the app reported at \(ISODate.string(f.reportedAt)) that its \(activity.attributesType.isEmpty ? "attributes type" : activity.attributesType) could not decode the content state: \(f.detail)")
        }
        let startWait = rules.startShownWithin
        if let start, startAccepted, !shown, let accepted = Self.verdictTime(start), now.timeIntervalSince(accepted) >= startWait {
            // Started on a channel, iOS 18 hands out no update token: only a receipt confirms it.
            let channelNote = viaChannel ? " (it was started on a channel, so only a receipt could confirm it: an app that sends none always looks like this)" : ""
            return (.startNeverShown, "APNs accepted the push-to-start at \(ISODate.string(accepted)) and no update token or receipt came from the device within \(Self.seconds(startWait))\(channelNote): the activity most likely never showed (a force-quit app does not display push-to-start, Apple's known bug); start it again with \"restart\": true when the app is next opened")
        }
        // Shown (a receipt), so the start's row holds the receipt's time: the wait counts from the start.
        if start != nil, startAccepted, shown, now.timeIntervalSince(activity.startedAt) >= startWait {
            if token == nil, !viaChannel, ended == nil {
                let os = version.map { "iOS \($0.text)" } ?? "the device"
                return (.updateTokenNeverCame, "the activity showed (a receipt) but its update token never came within \(Self.seconds(startWait)); on \(os) without a channel nothing can update or end it: it is unreachable until the app registers a token")
            }
        }
        if let token, token.refusedAt != nil {
            return (.tokenRefused, "APNs refused the device's token \(Service.prefix(token.token))\(token.refusal.map { ": \($0)" } ?? ""); nothing is sent to it until the app registers it again")
        }
        guard let last else { return nil }
        if last.state == .failed, last.event != "start" || !startAccepted {
            let why = [last.status.map { "\($0)" }, last.reason].compactMap { $0 }.joined(separator: " ")
            return (.pushFailed, "APNs refused the \(last.event)\(why.isEmpty ? "" : " (\(why))"): the device did not get it")
        }
        if last.state == .pruned {
            return (.tokenRotated, "APNs answered \(last.status.map(String.init) ?? "") \(last.reason ?? "") for the token the push went to: the device no longer has it\(token == nil ? ", and has registered no other" : "")")
        }
        if last.target == .token, let token, last.token != token.token, last.state.isFinal, last.displayedAt == nil {
            return (.tokenRotated, "the push went to token \(Service.prefix(last.token)), which the device replaced with \(Service.prefix(token.token)) at \(ISODate.string(token.registeredAt)); the next push goes to the new one")
        }
        guard last.state == .sent, last.displayedAt == nil, let accepted = Self.verdictTime(last), last.event != "end" else { return nil }
        let eightHours = activity.startedAt.addingTimeInterval(Service.activityLifetime)
        if accepted >= eightHours {
            return (.pastEightHours, "APNs accepted the \(last.event) at \(ISODate.string(accepted)), more than 8 hours after the start (\(ISODate.string(activity.startedAt))): ActivityKit had already ended the activity")
        }
        if let ended, accepted >= ended {
            return (.activityEnded, "APNs accepted the \(last.event) at \(ISODate.string(accepted)), after the activity ended (\(ISODate.string(ended)), \(endedBy ?? "ended")): the device ignores it")
        }
        if lastReceipt != nil, now.timeIntervalSince(accepted) >= rules.receiptWithin {
            return (.noReceipt, "APNs accepted the \(last.event) at \(ISODate.string(accepted)); the device sends receipts and sent none for it within \(Self.seconds(rules.receiptWithin))")
        }
        return nil
    }

    static func seconds(_ t: TimeInterval) -> String {
        t >= 1 ? "\(JSONValue.javaScriptNumber(t.rounded())) s" : "\(JSONValue.javaScriptNumber((t * 1000).rounded())) ms"
    }
}

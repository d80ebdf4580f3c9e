import Foundation
import LivelineCore
import LivelineStore

/// App-started channel activities, reachable (migration `16-channel-members`).
///
/// On iOS 18 an app may start an activity itself with `pushType: .channel(id)`: it never gets an
/// update token and only follows the channel, so the service reaches it by broadcasting there.
///
/// - **The backend binds** a channel to a logical activity id (an admin key:
///   `PUT /v1/activities/{id}/channel` with a channel of the app, or `POST /v1/channels` with
///   `activityID`). `update` and `end` by that id then broadcast on it, as for a start with `channelID`.
/// - **An installation reports** that its app-started activity follows the channel
///   (`PUT /v1/activities/{id}/channel-members/{deviceID}`), so its status, the broadcast budget and
///   the older-build check count it. The report never changes where anything is sent: it is
///   accepted only for the channel the backend bound to that activity of the installation's own
///   app, and only when the installation holds the activity (a grant from the backend, a push-start,
///   a token). Anything else gets the one 404 an unknown activity gets.
extension Service {
    // MARK: The backend binds a channel to a logical activity

    /// `PUT /v1/activities/{activityID}/channel`: `{"channelID", "attributesType"?}`.
    func putActivityChannel(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        var body = try JSONBody(c.request.body)
        let channelID = try body.requiredString("channelID", maxLength: 200)
        let type = try body.string("attributesType", maxLength: 200)
        try body.finish()
        try Self.bindableID(activityID)
        try knownType(type)
        return try commit(c) { [self] tx in
            guard let channel = try tx.channel(channelID), c.mayAct(on: channel.bundleID) else {
                throw APIError(404, "unknown-channel", "channelID \(channelID) is not a channel of an app of this key: POST /v1/channels first", field: "channelID")
            }
            if let owner = channel.activityID, owner != activityID {
                throw APIError(409, "channel-taken", "channel \(channelID) is activity \(owner)'s own channel; bind another (POST /v1/channels)", field: "channelID")
            }
            return try bind(activityID, to: channel, type: type, c: c, tx)
        }
    }

    /// The body of `POST /v1/channels` with `activityID`: the new channel becomes the activity's own
    /// (deleted `activityChannelGraceSeconds` after its end, like an on-demand one).
    func bindNewChannel(_ activityID: String, _ record: ChannelRecord, type: String?, c: RequestContext, _ tx: any StoreTransaction) throws -> Answer {
        try tx.insertChannel(record)
        var answer = try bind(activityID, to: record, type: type, c: c, tx)
        if case .object(var o) = answer.json {
            o["channel"] = Self.json(record)
            answer.json = .object(o)
        }
        return answer
    }

    /// What `POST /v1/channels` reads besides its own fields: an id to bind, checked before APNs is asked.
    func checkBindable(_ activityID: String?, type: String?, bundleID: String, c: RequestContext) throws {
        guard let activityID else {
            if type != nil { throw APIError.invalid("attributesType", "applies only with activityID") }
            return
        }
        try Self.bindableID(activityID)
        try knownType(type)
        try store.write { tx in
            if let a = try tx.activity(activityID) {
                try c.requireApp(a.bundleID, hiding: "activity \(activityID) is not known")
                throw APIError.conflict("activity \(activityID) already exists: a new channel is bound only to a new activity id (bind an existing channel with PUT /v1/activities/\(activityID)/channel)", field: "activityID")
            }
            try refuseAliasedID(activityID, bundleID: bundleID, tx)
        }
    }

    private static func bindableID(_ activityID: String) throws {
        if isInstallationNamespace(activityID) {
            throw APIError(400, "reserved-activity-id", "activity ids 'inst_…:…' are the namespace of activities apps start themselves; the backend binds channels to other ids", field: "activityID")
        }
        if activityID.isEmpty || activityID.utf8.count > 200 { throw APIError.invalid("activityID", "must be 1 to 200 bytes") }
    }

    private func knownType(_ type: String?) throws {
        if let type, schemas[type] == nil {
            throw APIError(422, "unknown-attributes-type", "attributesType \(type) is not registered; known: \(schemas.keys.sorted().joined(separator: ", "))", field: "attributesType")
        }
    }

    /// Binds `channel` to `activityID`: a new activity whose sends broadcast on it (its run starts
    /// now; ActivityKit's 8 hours count from here). The same binding again answers 200; an activity
    /// that exists otherwise is refused, since its phones follow what they were started with.
    private func bind(_ activityID: String, to channel: ChannelRecord, type: String?, c: RequestContext, _ tx: any StoreTransaction) throws -> Answer {
        if let a = try tx.activity(activityID) {
            try c.requireApp(a.bundleID, hiding: "activity \(activityID) is not known")
            guard a.channelID == channel.channelID, a.bundleID == channel.bundleID else {
                throw APIError.conflict("activity \(activityID) already exists \(a.channelID.map { "on channel \($0)" } ?? "without a channel"): its phones follow what they were started with, so another channel is bound only to a new activity id", field: "channelID")
            }
            if let type, !a.attributesType.isEmpty, type != a.attributesType { throw APIError.conflict("activity \(activityID) is a \(a.attributesType), not a \(type)", field: "attributesType") }
            return Answer(200, Self.bindingJSON(a, created: false))
        }
        try refuseAliasedID(activityID, bundleID: channel.bundleID, tx)
        let record = ActivityRecord(activityID: activityID, bundleID: channel.bundleID, attributesType: type ?? "", channelID: channel.channelID, startedAt: c.now)
        try tx.upsertActivity(record)
        return Answer(201, Self.bindingJSON(record, created: true))
    }

    private static func bindingJSON(_ a: ActivityRecord, created: Bool) -> JSONValue {
        var o: JSONObject = ["activityID": .string(a.activityID), "bundleID": .string(a.bundleID), "channelID": .string(a.channelID ?? ""),
                             "startedAt": .string(ISODate.string(a.startedAt)), "bound": .bool(created)]
        if !a.attributesType.isEmpty { o["attributesType"] = .string(a.attributesType) }
        return .object(o)
    }

    // MARK: An installation's app-started activity follows the channel

    /// `PUT /v1/activities/{activityID}/channel-members/{deviceID}`: `{"channelID", "deviceActivityID"?, "grant"?}`.
    func putChannelMember(_ c: RequestContext) async throws -> Answer {
        let given = c.param("activityID"), deviceID = try ownDevice(c, c.param("deviceID"))
        var body = try JSONBody(c.request.body)
        let channelID = try body.requiredString("channelID", maxLength: 200)
        let deviceActivityID = try body.string("deviceActivityID", maxLength: 100)
        let grant = try body.string("grant", maxLength: 4096)
        try body.finish()
        return try await commitAsync(c) { [self] tx in
            guard let device = try tx.device(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered: PUT /v1/devices/\(deviceID) first") }
            let activityID = try resolveActivityID(given, installation: c.installation, tx)
            // One answer for an unknown activity, another app's, one without that channel, and one
            // the installation does not hold: the report learns nothing and changes no binding.
            let hidden = Self.unknownActivity(activityID)
            guard let activity = try tx.activity(activityID), activity.bundleID == device.bundleID, c.mayAct(on: activity.bundleID),
                  let bound = activity.channelID, bound == channelID, let channel = try tx.channel(bound), channel.bundleID == activity.bundleID
            else { throw hidden }
            if let installation = c.installation {
                let holds = try tx.activityToken(activityID: activityID, deviceID: deviceID) != nil
                    || (try tx.channelMember(activityID: activityID, deviceID: deviceID)).map { $0.joinedAt >= activity.startedAt } == true
                try mayHold(activityID, activity: activity, holdsToken: holds, installation: installation, grant: grant, tx: tx, now: c.now)
            }  // an admin key needs no grant: one it sends is not read
            if let ended = activity.endedAt, ended <= c.now { throw APIError.conflict("activity \(activityID) has ended (\(ISODate.string(ended)))") }
            if c.now.timeIntervalSince(activity.startedAt) > Self.activityLifetime {
                throw APIError.conflict("activity \(activityID) started at \(ISODate.string(activity.startedAt)), more than 8 hours ago: ActivityKit has ended it")
            }
            guard let version = OSVersionNumber(device.iosVersion), version >= OSVersionNumber(18, 0) else {
                throw APIError(422, "channel-unsupported", "device \(deviceID) runs iOS \(device.iosVersion); an activity follows a channel from iOS 18 on: register its update token instead")
            }
            if let deviceActivityID { try attachDeviceActivityID(deviceActivityID, to: activityID, bundleID: device.bundleID, deviceID: deviceID, tx, now: c.now) }
            let previous = try tx.channelMember(activityID: activityID, deviceID: deviceID)
            // A report in the same run keeps the time the device began to follow (its budget counts from there).
            let joined = previous.flatMap { $0.joinedAt >= activity.startedAt ? $0.joinedAt : nil } ?? c.now
            try tx.setChannelMember(ChannelMemberRecord(activityID: activityID, deviceID: deviceID, channelID: bound, bundleID: activity.bundleID,
                                                        deviceActivityID: deviceActivityID ?? previous?.deviceActivityID, joinedAt: joined))
            return Answer(previous == nil ? 201 : 200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "channelID": .string(bound),
                                                         "joinedAt": .string(ISODate.string(joined))])
        }
    }

    /// `DELETE /v1/activities/{activityID}/channel-members/{deviceID}`: the activity ended or was dismissed on the phone.
    func deleteChannelMember(_ c: RequestContext) async throws -> Answer {
        let given = c.param("activityID"), deviceID = try ownDevice(c, c.param("deviceID"))
        return try await commitAsync(c) { [self] tx in
            let activityID = try resolveActivityID(given, installation: c.installation, tx)
            if c.installation == nil, let a = try tx.activity(activityID) { try c.requireApp(a.bundleID, hiding: "activity \(activityID) is not known") }
            guard try tx.deleteChannelMember(activityID: activityID, deviceID: deviceID) else {
                throw APIError.notFound("device \(deviceID) does not follow a channel for activity \(activityID)")
            }
            return Answer(200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "deleted": true])
        }
    }

    // MARK: What the send paths read

    /// The members of `activity` in its current run (their reports since its start).
    static func currentMembers(_ activity: ActivityRecord, _ tx: any StoreTransaction) throws -> [ChannelMemberRecord] {
        guard let channel = activity.channelID else { return [] }
        return try tx.channelMembers(activityID: activity.activityID).filter { $0.channelID == channel && $0.joinedAt >= activity.startedAt }
    }

    /// Members of the running activities on `channelID` that spent their priority-10 budget, added
    /// to what the store found of token holders and push-started followers.
    func withMembers(_ use: ChannelBudgetUse, channelID: String, now: Date, tx: any StoreTransaction) throws -> ChannelBudgetUse {
        let normal = configuration.immediateBudgetPerHour, frequent = configuration.frequentImmediateBudgetPerHour
        let members = try tx.channelMemberSpending(channelID: channelID, now: now, since: now.addingTimeInterval(-3600), atLeast: min(normal, frequent))
        let known = Set(use.overBudget.map(\.deviceID))
        var result = use
        var counted = false
        for m in members where !known.contains(m.deviceID) {
            let budget = m.frequentUpdates ? frequent : normal
            guard m.spent >= budget else { continue }
            counted = true
            result.overBudgetCount += 1
            if result.overBudget.count < 5 { result.overBudget.append(.init(activityID: m.activityID, deviceID: m.deviceID, spent: m.spent, budget: budget)) }
        }
        if counted { result.holders += members.count }
        return result
    }
}

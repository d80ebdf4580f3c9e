import Foundation
import LivelineAPNS
import LivelineCore
import LivelineStore
import LivelineUI
import Synchronization

/// Every push-started iOS 18 activity reachable: a start without a `channelID` gets a channel of
/// its own, created on demand through APNs' channel API, so updates and the end reach the phone
/// even when its update token never arrives. The channel is reused by later starts of the same
/// logical id, recreated on `ChannelNotRegistered`, and deleted once the activity has ended and
/// `activityChannelGrace` has passed (migration 13-activity-channels).
extension Service {
    /// What a start chose for its channel: `"channel": "activity"` (the default) or `"none"`.
    private struct ChannelChoice {
        var wanted: Bool
        var storagePolicy: Int
    }

    /// Takes `channel` and `channelStoragePolicy` out of the body (the rest is `start`'s).
    private static func channelChoice(_ object: inout JSONObject) throws -> ChannelChoice {
        let mode = object["channel"]
        let policy = object["channelStoragePolicy"]
        object["channel"] = nil
        object["channelStoragePolicy"] = nil
        var choice = ChannelChoice(wanted: true, storagePolicy: 1)
        if let mode {
            guard let text = mode.stringValue, text == "activity" || text == "none" else {
                throw APIError.invalid("channel", "must be \"activity\" (the default: a channel of the activity's own, created on demand) or \"none\" (update tokens only)")
            }
            choice.wanted = text == "activity"
        }
        if object["channelID"] != nil {
            if mode?.stringValue == "activity" { throw APIError.invalid("channel", "\"activity\" asks for a channel created on demand, but the start names channelID: give one or the other") }
            choice.wanted = false
        }
        if let policy {
            guard let n = policy.numberValue, n == 0 || n == 1 else {
                throw APIError.invalid("channelStoragePolicy", "must be 0 (no message stored) or 1 (APNs keeps the most recent message for a phone that was offline)")
            }
            guard choice.wanted else { throw APIError.invalid("channelStoragePolicy", "applies only to a channel created on demand (not with \"channel\": \"none\" or a channelID)") }
            choice.storagePolicy = Int(n)
        }
        return choice
    }

    /// `POST /v1/activities/{id}/start`: the on-demand channel first (reused, or created through
    /// APNs), then `start` with it as the start's `channelID`.
    func startReachable(_ c: RequestContext) async throws -> Answer {
        guard case .object(var object)? = try? JSONValue.parse(c.request.body) else { return try start(c) }  // start names the problem
        let choice = try Self.channelChoice(&object)
        var request = c.request
        request.body = JSONValue.object(object).serialized()
        let plain = RequestContext(request: request, params: c.params, key: c.key, installation: c.installation, clientAddress: c.clientAddress, now: c.now, idempotency: c.idempotency)
        guard choice.wanted, let target = try onDemandTarget(plain, object) else { return try start(plain) }

        var channel: ChannelRecord
        var created = false
        if let reused = target.reused {
            channel = reused
        } else {
            let made = await target.client.createChannel(bundleID: target.app.bundleID, storagePolicy: APNSMessageStoragePolicy(rawValue: choice.storagePolicy) ?? .mostRecentMessageStored)
            guard let id = made.value else {
                // No channel (broadcast not enabled for the app, APNs unreachable): the start still goes, on update tokens.
                var answer = try start(plain)
                Self.annotate(&answer, ["created": false, "reason": .string(Self.describe(made))])
                return answer
            }
            channel = ChannelRecord(channelID: id, bundleID: target.app.bundleID, storagePolicy: choice.storagePolicy, createdAt: c.now, activityID: c.param("activityID"))
            let record = channel
            do { try store.write { try $0.insertChannel(record) } } catch {
                // Not kept (another start of the activity recorded its channel first, or the store failed): not left in APNs either.
                _ = await target.client.deleteChannel(id, bundleID: record.bundleID)
                throw error
            }
            created = true
        }
        object["channelID"] = .string(channel.channelID)
        request.body = JSONValue.object(object).serialized()
        let withChannel = RequestContext(request: request, params: c.params, key: c.key, installation: c.installation, clientAddress: c.clientAddress, now: c.now, idempotency: c.idempotency)
        do {
            var answer = try start(withChannel)
            Self.annotate(&answer, ["channelID": .string(channel.channelID), "created": .bool(created), "storagePolicy": .number(Double(channel.storagePolicy))])
            return answer
        } catch {
            if created { await dropChannel(channel, client: target.client) }  // the start was refused: the channel it made goes too
            throw error
        }
    }

    private static func annotate(_ answer: inout Answer, _ channel: JSONObject) {
        guard answer.replayed == nil, case .object(var o) = answer.json else { return }
        o["activityChannel"] = .object(channel)
        answer.json = .object(o)
    }

    private static func describe<T>(_ result: APNSChannelResult<T>) -> String {
        switch result {
        case .success: "created"
        case .rejected(let r): "APNs refused the channel: \(r.status) \(r.reason.rawValue)"
        case .failed(let e): "APNs could not be reached to create the channel: \(e.message)"
        }
    }

    /// The app, its client and a channel to reuse, when the start should have an on-demand channel:
    /// the running activity's channel, or for a new run an iOS 18 phone in the audience (its token in
    /// the app's default environment, where broadcasts go). `nil`: the start goes as asked
    /// (and `start` refuses what is wrong with it). Throws `channel-limit` before APNs would.
    private func onDemandTarget(_ c: RequestContext, _ object: JSONObject) throws -> (app: AppRecord, client: APNSClient, reused: ChannelRecord?)? {
        let activityID = c.param("activityID")
        let deviceIDs = object["audience"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let userIDs = object["audience"]?["userIDs"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let found = try store.write { tx -> (AppRecord, ChannelRecord?)? in
            if let a = try tx.activity(activityID), a.endedAt == nil || a.endedAt! > c.now {
                // Running: devices added to it follow the channel it already has (its updates skip the
                // tokens of iOS 18 devices then); one running without a channel stays without.
                guard let id = a.channelID, let ch = try tx.channel(id), ch.bundleID == a.bundleID, c.mayAct(on: a.bundleID),
                      let app = try tx.app(bundleID: a.bundleID) else { return nil }
                return (app, ch)
            }
            var devices = try deviceIDs.prefix(10_000).compactMap { try tx.device($0) }
            if !userIDs.isEmpty { devices += try tx.devices(userIDs: Array(userIDs.prefix(10_000))) }
            let ios18 = devices.filter { OSVersionNumber($0.iosVersion).map { $0 >= OSVersionNumber(18, 0) } ?? false }
            guard let bundleID = object["bundleID"]?.stringValue ?? devices.first?.bundleID, c.mayAct(on: bundleID),
                  ios18.contains(where: { $0.bundleID == bundleID }), let app = try tx.app(bundleID: bundleID)
            else { return nil }
            // Broadcasts go to the app's default environment: a phone whose push-to-start token is of
            // the other one could not follow a channel made there, so such a start stays on tokens.
            let type = object["ui"] != nil ? VoltraAttributes.attributesType : (object["attributesType"]?.stringValue ?? "")
            for d in ios18 where d.bundleID == bundleID {
                if let token = try tx.pushToStartToken(deviceID: d.deviceID, attributesType: type), (token.environment ?? app.environment) != app.environment { return nil }
            }
            if let reused = try tx.activityChannel(activityID: activityID), reused.bundleID == bundleID { return (app, reused) }
            let count = try tx.channelCount(bundleID: bundleID)
            if count >= configuration.channelLimit {
                throw APIError(409, "channel-limit", "\(bundleID) already has \(count) channels, the limit of \(configuration.channelLimit) (APNs allows \(Self.channelLimit) per app), so activity \(activityID) gets no channel of its own: end activities (their channels are deleted \(Int(configuration.activityChannelGrace.seconds)) s later), delete channels, or send with \"channel\": \"none\"",
                               field: "channel", details: ["channels": .number(Double(count)), "limit": .number(Double(configuration.channelLimit))])
            }
            return (app, nil)
        }
        guard let (app, reused) = found else { return nil }
        return (app, try clients.client(for: app), reused)
    }

    /// Deletes a channel in APNs (one APNs no longer knows counts as deleted) and then in the store.
    func dropChannel(_ channel: ChannelRecord, client: APNSClient) async {
        let result = await client.deleteChannel(channel.channelID, bundleID: channel.bundleID)
        if case .rejected(let r) = result, r.reason != .channelNotRegistered {
            log("channels: cannot delete the channel of activity \(channel.activityID ?? "?"): \(r.status) \(r.reason.rawValue)")
            return
        }
        if case .failed(let e) = result { log("channels: cannot delete the channel of activity \(channel.activityID ?? "?"): \(e.message)"); return }
        do { _ = try store.write { try $0.deleteChannel(channel.channelID) } } catch { log("channels: cannot forget a deleted channel: \(error)") }
    }

    /// Deletes the on-demand channels whose activity ended more than `activityChannelGrace` ago
    /// (or started more than 8 hours ago); returns how many went.
    @discardableResult
    func sweepActivityChannels(now: Date = Date()) async -> Int {
        let grace = configuration.activityChannelGrace.seconds
        let due: [ChannelRecord]
        do {
            due = try store.write { try $0.staleActivityChannels(endedBefore: now.addingTimeInterval(-grace), startedBefore: now.addingTimeInterval(-Self.activityLifetime - grace), limit: 100) }
        } catch {
            log("channels: cannot list channels due for deletion: \(error)")
            return 0
        }
        var deleted = 0
        for channel in due {
            guard let app = try? store.write({ try $0.app(bundleID: channel.bundleID) }), let client = try? clients.client(for: app) else { continue }
            await dropChannel(channel, client: client)
            if (try? store.write({ try $0.channel(channel.channelID) })) == .some(nil) { deleted += 1 }
        }
        return deleted
    }
}

/// The loop that runs `sweepActivityChannels` every quarter of the grace (at most a minute apart).
final class ActivityChannelSweeper: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    func start(_ service: Service) {
        let every = min(60, max(0.05, service.configuration.activityChannelGrace.seconds / 4))
        let t = Task { [weak service] in
            while !Task.isCancelled {
                guard (try? await Task.sleep(for: .milliseconds(Int64(every * 1000)))) != nil, let service else { return }
                await service.sweepActivityChannels()
            }
        }
        task.withLock { $0 = t }
    }

    func stop() async {
        let t = task.withLock { t in defer { t = nil }; return t }
        t?.cancel()
        await t?.value
    }
}

/// `ChannelNotRegistered` for an activity's on-demand channel: APNs lost it, so the service creates
/// a new one, binds the activity to it and sends the push again through it. A channel created with
/// `POST /v1/channels` is the backend's to replace: its row just fails.
enum ActivityChannelRecovery {
    static func recover(_ row: DeliveryRecord, _ r: APNSResult.Rejection, client: APNSClient, store: OffPoolStore) async -> (outcome: DeliveryOutcome, resent: Bool) {
        let failed = DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: r.reason.rawValue)
        let found = try? await store.write { tx -> (ChannelRecord, SendRecord)? in
            guard let ch = try tx.channel(row.token), ch.activityID == row.activityID, let a = try tx.activity(row.activityID), a.channelID == ch.channelID,
                  let send = try tx.send(row.sendID) else { return nil }
            return (ch, send)
        }
        guard let (old, send) = found ?? nil else { return (failed, false) }
        let made = await client.createChannel(bundleID: old.bundleID, storagePolicy: APNSMessageStoragePolicy(rawValue: old.storagePolicy) ?? .mostRecentMessageStored)
        guard let newID = made.value else {
            var o = failed
            o.reason = "\(r.reason.rawValue) (the activity's channel could not be created again)"
            return (o, false)
        }
        let now = Date()
        let resentAs = try? await store.write { tx -> Int64? in
            guard var a = try tx.activity(row.activityID), a.channelID == old.channelID else { return nil }
            _ = try tx.deleteChannel(old.channelID)
            try tx.insertChannel(ChannelRecord(channelID: newID, bundleID: old.bundleID, storagePolicy: old.storagePolicy, createdAt: now, activityID: row.activityID))
            a.channelID = newID
            try tx.upsertActivity(a)
            let note = "sent again: APNs no longer knew the activity's channel, so it was created again"
            return try tx.insertSend(SendRecord(activityID: row.activityID, event: send.event, bundleID: send.bundleID, body: send.body, createdAt: now),
                                     deliveries: [NewDelivery(deviceID: nil, target: .channel, token: newID, priority: row.priority, note: note, notBefore: now)], now: now).id
        }
        guard let id = resentAs ?? nil else {
            _ = await client.deleteChannel(newID, bundleID: old.bundleID)  // another worker recovered it first
            return (failed, false)
        }
        var o = failed
        o.reason = "\(r.reason.rawValue): the activity's channel was created again and the push sent again as send \(id)"
        return (o, true)
    }
}

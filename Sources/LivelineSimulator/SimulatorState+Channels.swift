import Foundation
import LivelineCore

/// Broadcast sends (`/4/broadcasts/apps/<bundle>`) and the channel-management API (`/1/apps/<bundle>/...`).
extension SimulatorState {
    /// The body limit of the broadcast and channel-management APIs; a bigger body is answered
    /// 413 `PayloadTooLarge` before it is parsed (apns-protocol.md §1.2, §4.3).
    static let maxChannelAPIBodyBytes = 5120

    // MARK: - Broadcast

    mutating func handleBroadcast(_ request: SimulatorRequest, connection: inout ConnectionState, now: Date) -> SimulatorResponse {
        let requested = request.header("apns-request-id") ?? request.header("apns-id")
        let requestID = requested.flatMap { Self.isUUID($0) ? $0.lowercased() : nil } ?? rng.uuidString()
        var context = PushContext(time: now, kind: "broadcast", request: request, path: request.path, apnsID: requestID)
        let bundleID = String(request.path.dropFirst("/4/broadcasts/apps/".count))
        context.bundleID = bundleID
        context.channelID = request.header("apns-channel-id")
        var faultActions: [ConnectionAction] = []
        var delay: TimeInterval = 0
        func reject(_ reason: APNSReason) -> SimulatorResponse {
            finish(context, reason: reason, timestamp: nil, idHeader: "apns-request-id", connection: &connection, actions: faultActions, delay: delay)
        }
        if request.method != "POST" { return reject(.methodNotAllowed) }
        if bundleID.isEmpty || bundleID.contains("/") { return reject(.badPath) }
        for action in faults.draw(token: nil, channel: context.channelID, rng: &rng) {
            switch action {
            case .respond(let reason): return reject(reason)
            case .goAway(let reason):
                faultActions.append(.goAway(debugData: Self.reasonBody(reason, timestamp: nil)))
                return reject(reason)
            case .dropConnection: faultActions = [.drop]; return reject(.internalServerError)
            case .resetStream: faultActions = [.resetStream(errorCode: 7)]; return reject(.internalServerError)
            case .latency(let s): delay += s
            case .lowerStreamLimit(let n): faultActions.append(.setMaxConcurrentStreams(n))
            }
        }
        if Self.splitTopic(bundleID).suffix != "" || bundleID.contains(".push-type.") { return reject(.topicDisallowed) }
        let auth = authenticate(request, connection: &connection, now: now)
        if let reason = auth.reason { return reject(reason) }
        if let reason = topicReason(bundleID: bundleID, auth: auth, connection: connection, pushType: .liveActivity) {
            return reject(reason == .badTopic || reason == .topicDisallowed ? .topicMismatch : reason)
        }
        guard let app = appsByBundle[bundleID] else { return reject(.topicMismatch) }
        if !app.broadcastEnabled { return reject(.featureNotEnabled) }
        if let id = requested, !Self.isUUID(id) { return reject(.badMessageID) }
        guard let type = request.header("apns-push-type") else { return reject(.missingPushType) }
        context.pushType = type
        if type.lowercased() != "liveactivity" { return reject(.invalidPushType) }
        var priority = 10
        if let p = request.header("apns-priority") {
            guard let v = Int(p), [10, 5, 1].contains(v) else { return reject(.badPriority) }
            priority = v
        }
        context.priority = priority
        guard let channelID = context.channelID, !channelID.isEmpty else { return reject(.missingChannelID) }
        guard Self.isChannelID(channelID) else { return reject(.badChannelID) }
        guard let channel = channels[channelID], channel.bundleID == bundleID, channel.environment == config.environment else {
            return reject(.channelNotRegistered)
        }
        var expiration: Int?
        if let exp = request.header("apns-expiration") {
            guard Self.isUnsignedInteger(exp), let v = Int(exp) else { return reject(.badExpirationDate) }
            if channel.storagePolicy == 0 && v != 0 { return reject(.badExpirationDate) }
            expiration = v
        }
        if request.body.isEmpty { return reject(.payloadEmpty) }
        if request.body.count > Self.maxChannelAPIBodyBytes { return reject(.payloadTooLarge) }
        guard let json = try? JSONValue.parse(request.body), json.objectValue != nil else { return reject(.badRequestPayload) }
        context.event = json["aps"]?["event"]?.stringValue
        if let limit = config.rateLimit, !rateWindows.admit("channel:" + channelID, limit: limit, now: now) {
            return reject(.tooManyRequests)
        }

        tick(now)
        if channel.storagePolicy == 1 {
            var expires = now.addingTimeInterval(8 * 3600)
            if let expiration, expiration > 0 { expires = min(expires, Date(timeIntervalSince1970: Double(expiration))) }
            channels[channelID]!.stored = StoredMessage(body: request.body, priority: priority, expiresAt: expires)
        }
        var deliveries: [Delivery] = []
        for id in activities.subscribers(of: channelID) {
            guard let a = activities[id]?.snapshot, a.state != .dismissed,
                devices[a.deviceID]?.environment == config.environment
            else { continue }
            deliveries.append(apply(bodyBytes: request.body, to: id, priority: priority, now: now))
        }
        context.deliveries = deliveries
        return accept(context, headers: [.init("apns-request-id", requestID)], connection: &connection, actions: faultActions, delay: delay)
    }

    // MARK: - Channel management

    mutating func handleChannels(_ request: SimulatorRequest, connection: inout ConnectionState, now: Date) -> SimulatorResponse {
        let requested = request.header("apns-request-id")
        let requestID = requested.flatMap { Self.isUUID($0) ? $0.lowercased() : nil } ?? rng.uuidString()
        var context = PushContext(time: now, kind: "channels", request: request, path: request.path, apnsID: requestID)
        func reject(_ reason: APNSReason) -> SimulatorResponse {
            finish(context, reason: reason, timestamp: nil, idHeader: "apns-request-id", connection: &connection, actions: [], delay: 0)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "", "1", "apps", bundle, "channels" | "all-channels"
        guard parts.count == 5, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty, ["channels", "all-channels"].contains(parts[4]) else {
            return reject(.badPath)
        }
        let bundleID = parts[3]
        context.bundleID = bundleID
        context.channelID = request.header("apns-channel-id")
        let isList = parts[4] == "all-channels"
        let allowed = isList ? ["GET"] : ["POST", "GET", "DELETE"]
        if !allowed.contains(request.method) { return reject(.methodNotAllowed) }
        if Self.splitTopic(bundleID).suffix != "" || bundleID.contains(".push-type.") { return reject(.topicDisallowed) }
        let auth = authenticate(request, connection: &connection, now: now)
        if let reason = auth.reason { return reject(reason) }
        if let reason = topicReason(bundleID: bundleID, auth: auth, connection: connection, pushType: .liveActivity) {
            return reject(reason == .badTopic || reason == .topicDisallowed ? .topicMismatch : reason)
        }
        if appsByBundle[bundleID]?.broadcastEnabled == false { return reject(.featureNotEnabled) }
        if let id = requested, !Self.isUUID(id) { return reject(.badMessageID) }
        let env = config.environment
        let idHeader = SimulatorRequest.Header("apns-request-id", requestID)

        if isList {
            let ids = channelOrder.filter { channels[$0]?.bundleID == bundleID && channels[$0]?.environment == env }
            let body = JSONValue.object(["channels": .array(ids.map(JSONValue.string))]).serialized()
            return accept(context, headers: [idHeader, .init("content-type", "application/json")], body: body, connection: &connection, actions: [], delay: 0)
        }
        switch request.method {
        case "POST":
            if request.body.isEmpty { return reject(.payloadEmpty) }
            if request.body.count > Self.maxChannelAPIBodyBytes { return reject(.payloadTooLarge) }
            guard let json = try? JSONValue.parse(request.body), let object = json.objectValue else { return reject(.badRequestPayload) }
            for key in object.keys where key != "message-storage-policy" && key != "push-type" { return reject(.badRequestParams) }
            guard let type = object["push-type"] else { return reject(.missingPushType) }
            guard let typeName = type.stringValue, typeName.lowercased() == "liveactivity" else { return reject(.invalidPushType) }
            guard let policy = object["message-storage-policy"]?.numberValue, policy == 0 || policy == 1 else { return reject(.badRequestParams) }
            let count = channels.values.lazy.filter { $0.bundleID == bundleID && $0.environment == env }.count
            if count >= config.maxChannelsPerApp { return reject(.cannotCreateChannelConfig) }
            let id = newChannelID()
            channels[id] = ChannelRecord(id: id, bundleID: bundleID, environment: env, storagePolicy: Int(policy), createdAt: now)
            channelOrder.append(id)
            context.channelID = id
            return accept(context, status: 201, headers: [idHeader, .init("apns-channel-id", id)], connection: &connection, actions: [], delay: 0)
        default:
            guard let channelID = context.channelID, !channelID.isEmpty else { return reject(.missingChannelID) }
            guard Self.isChannelID(channelID) else { return reject(.badChannelID) }
            guard let channel = channels[channelID], channel.bundleID == bundleID, channel.environment == env else {
                return reject(.channelNotRegistered)
            }
            if request.method == "GET" {
                let body = JSONValue.object([
                    "message-storage-policy": .number(Double(channel.storagePolicy)), "push-type": "LiveActivity",
                ]).serialized()
                return accept(context, headers: [idHeader, .init("content-type", "application/json")], body: body, connection: &connection, actions: [], delay: 0)
            }
            channels[channelID] = nil
            channelOrder.removeAll { $0 == channelID }
            rateWindows.remove("channel:" + channelID)
            return accept(context, status: 204, headers: [idHeader], connection: &connection, actions: [], delay: 0)
        }
    }

    /// A fresh channel id: 16 random bytes, base64, never reissued.
    mutating func newChannelID() -> String {
        while true {
            let id = Data(rng.bytes(16)).base64EncodedString()
            if !issuedChannelIDs.contains(id) {
                issuedChannelIDs.insert(id)
                return id
            }
        }
    }

    /// Standard base64 that decodes, at most 128 characters.
    static func isChannelID(_ text: String) -> Bool {
        text.utf8.count <= 128 && text.utf8.count % 4 == 0 && Data(base64Encoded: text) != nil
    }
}

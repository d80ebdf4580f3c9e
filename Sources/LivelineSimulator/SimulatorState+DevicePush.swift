import Foundation
import LivelineCore

extension SimulatorState {
    /// Handles `POST /3/device/<token>` in the order of apns-protocol.md §10.
    mutating func handleDevicePush(_ request: SimulatorRequest, connection: inout ConnectionState, now: Date) -> SimulatorResponse {
        let requestedID = request.header(lowercaseASCII: "apns-id")
        let apnsID = requestedID.flatMap { Self.isUUID($0) ? ASCII.lowercased($0) : nil } ?? rng.uuidString()
        let parsed = parsePath(request.path)
        let rawToken = parsed.token
        var context = PushContext(time: now, kind: "device", request: request, path: parsed.redacted, apnsID: apnsID)

        func reject(_ reason: APNSReason, timestamp: Date? = nil, actions: [ConnectionAction] = [], delay: TimeInterval = 0) -> SimulatorResponse {
            finish(context, reason: reason, timestamp: timestamp, idHeader: "apns-id", connection: &connection, actions: actions, delay: delay)
        }

        // 2. method, 3. path shape
        if request.method != "POST" { return reject(.methodNotAllowed) }
        guard let token = rawToken, !token.isEmpty else {
            return reject(request.path == "/3/device" || request.path == "/3/device/" ? .missingDeviceToken : .badPath)
        }
        let scan = parsed.scan
        if scan.hasSlash { return reject(.badPath) }

        // Fault injection (global or per token), drawn before any other check.
        var faultActions: [ConnectionAction] = []
        var delay: TimeInterval = 0
        for action in faults.draw(token: token, channel: nil, rng: &rng) {
            switch action {
            case .respond(let reason): return reject(reason, actions: faultActions, delay: delay)
            case .goAway(let reason):
                return reject(reason, actions: faultActions + [.goAway(debugData: Self.reasonBody(reason, timestamp: nil))], delay: delay)
            case .dropConnection: return reject(.internalServerError, actions: [.drop], delay: delay)
            case .resetStream: return reject(.internalServerError, actions: [.resetStream(errorCode: 7)], delay: delay)
            case .latency(let seconds): delay += seconds
            case .lowerStreamLimit(let n): faultActions.append(.setMaxConcurrentStreams(n))
            }
        }
        func rejectF(_ reason: APNSReason, timestamp: Date? = nil) -> SimulatorResponse { reject(reason, timestamp: timestamp, actions: faultActions, delay: delay) }

        // 4. duplicate headers
        if request.duplicatedHeader != nil { return rejectF(.duplicateHeaders) }

        // 5. authentication
        let auth = authenticate(request, connection: &connection, now: now)
        if let reason = auth.reason { return rejectF(reason) }

        // 6. header syntax
        if let id = requestedID, !Self.isUUID(id) { return rejectF(.badMessageID) }
        if let exp = request.header(lowercaseASCII: "apns-expiration"), !Self.isUnsignedInteger(exp) { return rejectF(.badExpirationDate) }
        var priority = 10
        if let p = request.header(lowercaseASCII: "apns-priority") {
            guard let v = Int(p), v == 10 || v == 5 || v == 1 else { return rejectF(.badPriority) }
            priority = v
        }
        context.priority = priority
        var explicitType: SimulatorMemo.PushTypeFacts?
        if let t = request.header(lowercaseASCII: "apns-push-type") {
            let facts = memo.facts(for: PushType(rawValue: t))
            guard facts.known else { return rejectF(.invalidPushType) }
            explicitType = facts
        }
        if let collapse = request.header(lowercaseASCII: "apns-collapse-id"), collapse.utf8.count > 64 { return rejectF(.badCollapseID) }

        // 7. topic
        var topic = request.header(lowercaseASCII: "apns-topic")
        if topic == nil, case .certificate(let bundle, _, _) = connection.authentication { topic = bundle }
        guard let topic, !topic.isEmpty else { return rejectF(.missingTopic) }
        let (bundleID, suffix) = memo.splitTopic(topic, by: Self.splitTopic)
        context.bundleID = bundleID
        let typeFacts = explicitType ?? memo.facts(for: Self.inferPushType(suffix: suffix))
        let pushType = typeFacts.type
        context.pushType = pushType.rawValue
        if explicitType != nil, let expected = typeFacts.topicSuffix, expected != suffix { return rejectF(.badTopic) }
        if !typeFacts.allows(priority: priority) { return rejectF(.badPriority) }
        let app = appsByBundle[bundleID]
        if let reason = topicReason(app: app, bundleID: bundleID, auth: auth, connection: connection, pushType: pushType) { return rejectF(reason) }
        if app?.forbidden == true { return rejectF(.forbidden) }

        // 8. device token
        let tokenUTF8 = token.utf8
        guard tokenUTF8.count % 2 == 0, (64...200).contains(tokenUTF8.count), scan.allHex else { return rejectF(.badDeviceToken) }
        let key = scan.hasUpper ? token.lowercased() : token
        guard let record = tokens[key], record.environment == hostEnvironment(connection) else { return rejectF(.badDeviceToken) }
        context.tokenDevice = record.deviceID
        if record.bundleID != bundleID { return rejectF(.deviceTokenNotForTopic) }
        switch record.kind {
        case .device: if pushType == .liveActivity { return rejectF(.deviceTokenNotForTopic) }
        case .pushToStart, .activityUpdate: if pushType != .liveActivity { return rejectF(.deviceTokenNotForTopic) }
        }
        if let dead = record.deadAt, dead <= now { return rejectF(record.deadReason ?? .unregistered, timestamp: dead) }

        // 9. body
        if request.body.isEmpty { return rejectF(.payloadEmpty) }
        if request.body.count > typeFacts.maxPayloadBytes { return rejectF(.payloadTooLarge) }

        // 10. rate per token
        if let limit = config.rateLimit, !rateWindows.admit(key, limit: limit, now: now) {
            return rejectF(.tooManyRequests)
        }

        // 11. accept; 12. deliver to the device
        tick(now)
        let deliveries = deliver(body: request.body, token: key, record: record, pushType: typeFacts, priority: priority, now: now)
        if let event = deliveries.event { context.event = event }
        context.deliveries = deliveries.list
        var headers: [SimulatorRequest.Header] = []
        headers.reserveCapacity(2)
        headers.append(SimulatorRequest.Header("apns-id", apnsID))
        if hostEnvironment(connection) == .sandbox { headers.append(.init("apns-unique-id", rng.uuidString())) }
        return accept(context, headers: headers, connection: &connection, actions: faultActions, delay: delay)
    }

    // MARK: - Shared response building

    /// What is known about a request as validation proceeds, for the log.
    struct PushContext {
        var time: Date
        var kind: String
        var method: String
        var path: String
        var apnsID: String
        var bundleID: String?
        var pushType: String?
        var priority: Int?
        var event: String?
        var channelID: String?
        var tokenDevice: String?
        var deliveries: [PushRecord.Delivery] = []
        var headers: [SimulatorRequest.Header] = []
        var payload: [UInt8] = []
        var payloadBytes = 0
    }

    mutating func finish(
        _ context: PushContext, reason: APNSReason, timestamp: Date?, idHeader: String, connection: inout ConnectionState,
        actions: [ConnectionAction], delay: TimeInterval
    ) -> SimulatorResponse {
        var actions = actions
        let counts = reason.status != 410
        if counts, connection.authentication != .trusted, connection.maxConcurrentStreams != config.restrictedConcurrentStreams,
            !actions.contains(where: { if case .setMaxConcurrentStreams = $0 { true } else { false } })
        {
            actions.append(.setMaxConcurrentStreams(config.restrictedConcurrentStreams))
        }
        applyStreamActions(actions, to: &connection)
        record { seq in
            PushRecord(
                sequence: seq, time: context.time, kind: context.kind, method: context.method, path: context.path,
                bundleID: context.bundleID, pushType: context.pushType, priority: context.priority, event: context.event,
                channelID: context.channelID, status: reason.status, apnsID: context.apnsID, verdict: .rejected(reason), deliveries: [],
                headers: context.headers, payload: context.payload, payloadBytes: context.payloadBytes)
        }
        return SimulatorResponse(
            status: reason.status,
            headers: [.init("content-type", "application/json"), .init(idHeader, context.apnsID)],
            body: Self.reasonBody(reason, timestamp: timestamp), actions: actions, delay: delay)
    }

    mutating func accept(
        _ context: PushContext, status: Int = 200, headers: [SimulatorRequest.Header], body: [UInt8] = [],
        connection: inout ConnectionState, actions: [ConnectionAction], delay: TimeInterval
    ) -> SimulatorResponse {
        var actions = actions
        connection.acceptedAny = true
        if connection.authentication != .trusted, connection.maxConcurrentStreams != config.maxConcurrentStreams,
            !actions.contains(where: { if case .setMaxConcurrentStreams = $0 { true } else { false } })
        {
            actions.append(.setMaxConcurrentStreams(config.maxConcurrentStreams))
        }
        applyStreamActions(actions, to: &connection)
        let verdict: PushRecord.Verdict
        if !context.deliveries.isEmpty, context.deliveries.allSatisfy({ $0.dropReason != nil }) {
            verdict = .dropped(context.deliveries[0].dropReason!, context.deliveries[0].detail)
        } else {
            verdict = .accepted
        }
        record { seq in
            PushRecord(
                sequence: seq, time: context.time, kind: context.kind, method: context.method, path: context.path,
                bundleID: context.bundleID, pushType: context.pushType, priority: context.priority, event: context.event,
                channelID: context.channelID, status: status, apnsID: context.apnsID, verdict: verdict, deliveries: context.deliveries,
                headers: context.headers, payload: context.payload, payloadBytes: context.payloadBytes)
        }
        return SimulatorResponse(status: status, headers: headers, body: body, actions: actions, delay: delay)
    }

    private mutating func applyStreamActions(_ actions: [ConnectionAction], to connection: inout ConnectionState) {
        for case .setMaxConcurrentStreams(let n) in actions { connection.maxConcurrentStreams = n }
    }

    static func reasonBody(_ reason: APNSReason, timestamp: Date?) -> [UInt8] {
        var object: JSONObject = ["reason": .string(reason.rawValue)]
        if let timestamp { object["timestamp"] = .number((timestamp.timeIntervalSince1970 * 1000).rounded(.down)) }
        return JSONValue.object(object).serialized()
    }

    // MARK: - Syntax helpers

    /// 8-4-4-4-12 hex digits.
    static func isUUID(_ text: String) -> Bool {
        let u = text.utf8
        guard u.count == 36 else { return false }
        for (i, c) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if c != UInt8(ascii: "-") { return false }
            } else {
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): continue
                default: return false
                }
            }
        }
        return true
    }

    static func isUnsignedInteger(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 12 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Splits a topic into its bundle id and push-type suffix (the longest known suffix it ends with).
    static func splitTopic(_ topic: String) -> (bundleID: String, suffix: String) {
        let u = topic.utf8
        for (suffix, _) in suffixes where u.count > suffix.utf8.count {
            if u.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) {
                return (String(decoding: u.dropLast(suffix.utf8.count), as: UTF8.self), suffix)
            }
        }
        return (topic, "")
    }

    /// Known topic suffixes, longest first, with their push types.
    static let suffixes: [(String, PushType)] = PushType.all.compactMap { t in
        guard let s = t.topicSuffix, !s.isEmpty else { return nil }
        return (s, t)
    }.sorted { $0.0.utf8.count > $1.0.utf8.count }

    static func inferPushType(suffix: String) -> PushType {
        suffix.isEmpty ? .alert : (suffixes.first { $0.0 == suffix }?.1 ?? .alert)
    }

    /// `devicePath(of:)` through the memo (clients push to one token many times in a row).
    mutating func parsePath(_ path: String) -> SimulatorMemo.DevicePath {
        memo.devicePath(path, by: Self.devicePath(of:))
    }

    /// The token of a device-push path, its log form and its byte scan (a pure function of the path).
    static func devicePath(of path: String) -> SimulatorMemo.DevicePath {
        let token = deviceToken(inPath: path)
        return SimulatorMemo.DevicePath(
            path: path, token: token, redacted: redactedPath(path, token: token), scan: token.map { ASCII.scan(token: $0) } ?? ASCII.TokenScan())
    }

    /// The token after `/3/device/`, as `String(path.dropFirst(10))` gives it; `nil` for other paths.
    static func deviceToken(inPath path: String) -> String? {
        guard path.hasPrefix("/3/device/") else { return nil }
        let u = path.utf8
        if u.count == 10 { return "" }
        let start = u.index(u.startIndex, offsetBy: 10)
        // An ASCII byte after the `/` starts a new character, so the 10 characters are the 10 bytes.
        guard u[start] < 0x80 else { return String(path.dropFirst(10)) }
        return String(Substring(path.utf8[start...]))
    }

    static func redactedPath(_ path: String, token: String?) -> String {
        guard let token, token.count > 8 else { return path }
        return "/3/device/" + token.prefix(8) + "…"
    }
}

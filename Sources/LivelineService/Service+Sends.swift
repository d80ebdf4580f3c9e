import Foundation
import LivelineCore
import LivelineStore
import LivelineUI

/// Start, update and end by logical activity id, and what became of each push.
extension Service {
    /// ActivityKit ends an activity 8 hours after it started; the service stops sending then.
    static let activityLifetime: TimeInterval = 8 * 3600

    /// The content of a send: typed (`contentState` checked against the schema) or a layout (`ui`).
    private func content(_ body: inout JSONBody, schema: ActivitySchema?, required: Bool) throws -> (state: JSONObject?, isUI: Bool) {
        let state = try body.rawObject("contentState")
        let ui = body.value("ui")
        if state != nil && ui != nil { throw APIError(400, "invalid-field", "give contentState or ui, not both", field: "ui") }
        if let ui {
            do {
                return (try VoltraPayload.contentState(layoutJSON: ui.serialized(), mode: .fanOut), true)
            } catch {
                throw APIError(422, "invalid-ui", "ui: \(error)", field: "ui")
            }
        }
        guard let state else {
            if required { throw APIError.invalid("contentState", "is required (or ui, for a server-driven layout)") }
            return (nil, false)
        }
        guard let schema else { return (state, false) }
        let encoded = try ContentEncoder.encode(.object(state), as: schema.contentState, path: "contentState")
        try refuseWhatTheDeviceDrops(encoded.objectValue ?? state, type: schema.name)
        try refuseBadProps(encoded.objectValue ?? state, schema: schema)  // Service+DynamicProps.swift
        return (encoded.objectValue, false)
    }

    // MARK: Refused, not queued: what the device would drop (the app half's rules, in one place)

    /// A typed `contentState` for an activity whose type the service does not know: the device
    /// decodes it with a type nobody has checked it against, so it is refused instead of answered 202.
    private func refuseUnknownType(_ activity: ActivityRecord, typed: Bool) throws {
        guard typed, schemas[activity.attributesType] == nil else { return }
        let why = activity.attributesType.isEmpty
            ? "activity \(activity.activityID) was registered without an attributesType, so the service cannot check a contentState against it (register its token with \"attributesType\", or start it here)"
            : "activity \(activity.activityID) is a \(activity.attributesType), a type the service has no schema for (add one with schemaFiles); known: \(schemas.keys.sorted().joined(separator: ", "))"
        throw APIError(422, "unknown-attributes-type", why, field: "contentState",
                       findings: [LintFinding(.error, .invalidPayload, path: "aps.content-state", why)])
    }

    /// A Voltra start whose `name` is not the activity id: VoltraAttributes keeps only `name` and
    /// `deepLinkUrl` on the device, and Voltra's app reports tokens and taps under the name, so
    /// updates to the activity id would reach no phone.
    /// `uiJsonData` of a VoltraAttributes content state, decoded as Voltra's extension decodes it:
    /// what it cannot decode, it drops (the update never shows).
    private func refuseWhatTheDeviceDrops(_ state: JSONObject, type: String) throws {
        guard type == VoltraAttributes.attributesType, let data = state["uiJsonData"]?.stringValue else { return }
        do {
            _ = try VoltraDecoder.decode(base64: data)
        } catch {
            let message = "contentState.uiJsonData: the device cannot decode it and drops the update: \(error)"
            throw APIError(422, "invalid-ui", message, field: "contentState.uiJsonData",
                           findings: [LintFinding(.error, .invalidPayload, path: "aps.content-state.uiJsonData", message)])
        }
    }

    private func alert(_ body: inout JSONBody) throws -> Alert? {
        guard var a = try body.object("alert") else { return nil }
        let title = try a.string("title", maxLength: 1000)
        let text = try a.string("body", maxLength: 2000)
        let sound = try a.string("sound", maxLength: 200)
        try a.finish()
        guard title != nil || text != nil else { throw APIError.invalid("alert", "needs a title or a body") }
        return Alert(title: title.map(AlertText.plain), body: text.map(AlertText.plain), sound: sound)
    }

    /// Validates and lints a body: errors answer 422 with the findings `liveline lint` prints.
    private func check(_ push: LiveActivityPush, bundleID: String, schema: ActivitySchema?, broadcast: Bool, now: Date, previous: Date?) throws -> (bytes: [UInt8], warnings: [LintFinding]) {
        let request = PushRequest.liveActivity(push, bundleID: bundleID)
        let bytes: [UInt8]
        do { bytes = try request.validate(for: broadcast ? .broadcast : .device) } catch {
            throw APIError(422, error.code.rawValue, error.message, findings: [LintFinding(.error, .invalidPayload, path: "aps", error.message)])
        }
        let linter = Linter(schemas: Array(schemas.values), schema: schema, now: now, previousTimestamp: previous)
        let findings = linter.lint(body: request.body)
        let errors = findings.filter { $0.severity == .error }
        if !errors.isEmpty {
            throw APIError(422, "lint-failed", "the push would be refused or dropped by the device: \(errors[0].description)", findings: findings)
        }
        return (bytes, findings)
    }

    func start(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        if Self.isInstallationNamespace(activityID) {
            throw APIError(400, "reserved-activity-id", "activity ids 'inst_…:…' are the namespace of activities apps start themselves; the backend starts other ids", field: "activityID")
        }
        var body = try JSONBody(c.request.body)
        var type = try body.string("attributesType", maxLength: 200)
        var attributes = try body.rawObject("attributes")
        let explicitBundle = try body.string("bundleID", maxLength: 155)
        let staleDate = try body.date("staleDate")
        let relevance = try body.number("relevanceScore")
        let channelID = try body.string("channelID", maxLength: 200)
        guard let alert = try alert(&body) else { throw APIError.invalid("alert", "is required: ActivityKit drops a push-to-start without an alert") }
        var audienceBody = try body.object("audience")
        let deviceIDs = try audienceBody?.strings("deviceIDs", maxCount: 10_000) ?? []
        let userIDs = try audienceBody?.strings("userIDs", maxCount: 10_000) ?? []
        try audienceBody?.finish()
        if deviceIDs.isEmpty && userIDs.isEmpty { throw APIError.invalid("audience", "needs deviceIDs or userIDs") }
        var probe = body
        if probe.value("ui") != nil {  // a layout is sent as VoltraAttributes
            if let t = type, t != VoltraAttributes.attributesType { throw APIError.invalid("attributesType", "a ui layout is sent as \(VoltraAttributes.attributesType), not \(t)") }
            type = VoltraAttributes.attributesType
            attributes = attributes ?? VoltraPayload.attributes(name: activityID)
        }
        guard let typeName = type else { throw APIError.invalid("attributesType", "is required (for example \"FlightAttributes\")") }
        guard let schema = schemas[typeName] else {
            throw APIError(422, "unknown-attributes-type", "attributesType \(typeName) is not registered; known: \(schemas.keys.sorted().joined(separator: ", ")) (add a schema file with schemaFiles)", field: "attributesType")
        }
        guard var attrs = attributes else { throw APIError.invalid("attributes", "is required") }
        let voltraName = try Self.voltraName(typeName, attrs, activityID: activityID)  // an alias (Service+Aliases.swift)
        if attrs[ActivitySchema.activityIDKey] != nil { throw APIError.invalid("attributes.\(ActivitySchema.activityIDKey)", "is reserved: the service sets it to the activity id") }
        attrs = try ContentEncoder.encode(.object(attrs), as: schema.attributes, path: "attributes").objectValue ?? attrs
        attrs[ActivitySchema.activityIDKey] = .string(activityID)
        let (state, _) = try content(&body, schema: schema, required: true)
        let olderBuildPolicy = try OlderBuildPolicy(&body)
        let restart = try body.bool("restart") ?? false
        let renew = try body.bool("renew")  // renewal past 8 hours (Service+Renewal.swift)
        try body.finish()

        return try commit(c) { tx in
            let existing = try StartOnce.lockedActivity(activityID, tx)
            if let existing { try c.requireApp(existing.bundleID, hiding: "activity \(activityID) cannot be started with this key") }
            // One activity per logical id per device (Service+StartOnce.swift).
            var once = try StartOnce(existing, activityID: activityID, restart: restart, rules: StatusRules(configuration), now: c.now, tx)
            // The audience, each with a push-to-start token for the type.
            var devices: [DeviceRecord] = []
            var seen = Set<String>()
            for id in deviceIDs {
                guard let d = try tx.device(id) else { throw APIError(404, "unknown-device", "audience.deviceIDs: device \(id) is not registered", field: "audience.deviceIDs") }
                if seen.insert(id).inserted { devices.append(d) }
            }
            for d in try tx.devices(userIDs: userIDs) where seen.insert(d.deviceID).inserted { devices.append(d) }
            let bundleID: String
            if let explicitBundle {
                bundleID = explicitBundle
            } else if let first = devices.first?.bundleID {
                bundleID = first
            } else {
                throw APIError(404, "empty-audience", "no registered device belongs to audience.userIDs \(userIDs.joined(separator: ", "))")
            }
            try c.requireApp(bundleID)
            guard try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "app \(bundleID) is not registered: POST /v1/apps first") }
            try refuseAliasedID(activityID, bundleID: bundleID, tx)
            var channel: String?
            if let channelID {
                guard let ch = try tx.channel(channelID), ch.bundleID == bundleID else {
                    throw APIError(404, "unknown-channel", "channelID \(channelID) is not a channel of \(bundleID): POST /v1/channels first", field: "channelID")
                }
                channel = ch.channelID
            }
            var skipped: [JSONValue] = []
            var targets: [(DeviceRecord, TokenRecord, usesChannel: Bool)] = []
            let windowStart = c.now.addingTimeInterval(-configuration.startBudgetWindow.seconds)
            var overBudget: [String] = []
            for d in devices {
                func skip(_ why: String) { skipped.append(["deviceID": .string(d.deviceID), "reason": .string(why)]) }
                if d.bundleID != bundleID { skip("the device has app \(d.bundleID), not \(bundleID)"); continue }
                if let held = try once.skip(d, tx) { skipped.append(held); continue }
                guard let version = OSVersionNumber(d.iosVersion), version >= OSVersionNumber(17, 2) else { skip("iOS \(d.iosVersion) cannot be started by push (needs 17.2)"); continue }
                guard let token = try tx.pushToStartToken(deviceID: d.deviceID, attributesType: typeName) else { skip("no push-to-start token for \(typeName)"); continue }
                if let why = TokenHygiene.unusableForStart(token, now: c.now, maxUnseen: configuration.pushToStartTokenMaxUnseen) { skip(why); continue }
                if try tx.startCount(deviceID: d.deviceID, since: windowStart) >= configuration.startBudget { overBudget.append(d.deviceID); continue }
                targets.append((d, token, channel != nil && version >= OSVersionNumber(18, 0)))
            }
            if !overBudget.isEmpty {
                throw APIError(429, "start-budget-exceeded", "device\(overBudget.count == 1 ? "" : "s") \(overBudget.prefix(5).joined(separator: ", ")) already had \(configuration.startBudget) push-to-start pushes in the last \(Int(configuration.startBudgetWindow.seconds / 60)) minutes; iOS drops starts beyond its budget, so nothing was sent",
                               details: ["deviceIDs": .array(overBudget.map(JSONValue.string))])
            }
            if targets.isEmpty {
                try once.refuseIfAllHeld(activityID, skipped: skipped)
                throw APIError(422, "no-target", "no device of the audience can be started by push", details: ["skipped": .array(skipped)])
            }
            let olderBuilds = try checkOlderBuilds(tx, type: typeName, state: state, attributes: attrs, deviceIDs: targets.map(\.0.deviceID), policy: olderBuildPolicy)
            targets.removeAll { olderBuilds.skips($0.0.deviceID) }
            var warnings: [LintFinding] = []
            var sendIDs: [JSONValue] = []
            for usesChannel in [false, true] {
                let group = targets.filter { $0.usesChannel == usesChannel }
                if group.isEmpty { continue }
                let push = LiveActivityPush(event: .start, timestamp: c.now, contentState: state, attributesType: typeName, attributes: attrs, alert: alert,
                                            staleDate: staleDate, relevanceScore: relevance, startInput: usesChannel ? .channel(channel!) : .pushToken)
                let checked = try check(push, bundleID: bundleID, schema: schema, broadcast: false, now: c.now, previous: nil)
                warnings += checked.warnings
                let deliveries = group.map { NewDelivery(deviceID: $0.0.deviceID, target: .pushToStart, token: $0.1.token, priority: 10, notBefore: c.now, environment: $0.1.environment) }
                let id = try tx.insertSend(SendRecord(activityID: activityID, event: "start", bundleID: bundleID, body: checked.bytes, createdAt: c.now), deliveries: deliveries, now: c.now)
                sendIDs.append(.number(Double(id.id)))
            }
            try tx.upsertActivity(once.record(ActivityRecord(activityID: activityID, bundleID: bundleID, attributesType: typeName, channelID: channel, startedAt: c.now, lastTimestamp: c.now)))
            try recordRenewalChoice(renew, activityID: activityID, newRun: once.running == nil, tx, now: c.now)
            if let voltraName { try recordVoltraName(voltraName, activityID: activityID, bundleID: bundleID, tx, now: c.now) }
            var answer: JSONObject = [
                "activityID": .string(activityID), "event": "start", "sendIDs": .array(sendIDs), "queued": .number(Double(targets.count)),
                "skipped": .array(skipped), "warnings": .array(Self.unique(warnings).map(APIError.json)),
            ]
            olderBuilds.annotate(&answer)
            return Answer(202, .object(answer))
        }
    }

    func update(_ c: RequestContext) throws -> Answer { try send(c, event: .update) }
    func end(_ c: RequestContext) throws -> Answer { try send(c, event: .end) }

    /// One try of an update or end; `send` (Service+SendRetry.swift) tries again when the activity changed under it.
    func sendOnce(_ c: RequestContext, event: LiveActivityPush.Event) throws -> Answer {
        let activityID = c.param("activityID")
        var body = try JSONBody(c.request.body)
        let staleDate = try body.date("staleDate")
        let relevance = try body.number("relevanceScore")
        let askedPriority = try body.integer("priority", in: 5...10)
        if let p = askedPriority, p != 5 && p != 10 { throw APIError.invalid("priority", "must be 10 (immediate) or 5 (considerate)") }
        let alert = try alert(&body)
        let requestedPriority = askedPriority ?? Self.defaultPriority(alert: alert)  // Service+Budget.swift
        var dismissal: LiveActivityPush.Dismissal = .systemDefault
        var at: Date?
        if event == .end {
            if let d = try body.date("dismissalDate") { dismissal = .at(d) }
            if try body.bool("dismissImmediately") == true { dismissal = .immediate }
            at = try body.date("at")
        }
        let activity = try store.write { try $0.activity(activityID) }
        guard let activity else { throw APIError.notFound("activity \(activityID) is not known: start it, or register a token for it") }
        try c.requireApp(activity.bundleID, hiding: "activity \(activityID) is not known: start it, or register a token for it")
        let schema = schemas[activity.attributesType]
        var probe = body
        try refuseUnknownType(activity, typed: probe.value("contentState") != nil)
        let (state, _) = try content(&body, schema: schema, required: event == .update)
        let olderBuildPolicy = try OlderBuildPolicy(&body)
        try body.finish()
        let sendAt = max(at ?? c.now, c.now)
        if let ended = activity.endedAt, ended <= sendAt {
            throw APIError.conflict("activity \(activityID) has ended (\(ISODate.string(ended))); nothing more can be sent to it")
        }
        if sendAt.timeIntervalSince(activity.startedAt) > Self.activityLifetime {
            throw APIError.conflict("activity \(activityID) started at \(ISODate.string(activity.startedAt)), more than 8 hours ago: ActivityKit has ended it on the device, so the service no longer sends to it")
        }
        // Each push must be newer than the last one the device saw.
        var timestamp = sendAt
        if let last = activity.lastTimestamp, Double(ReferenceDate.unixSeconds(timestamp)) <= Double(ReferenceDate.unixSeconds(last)) {
            timestamp = last.addingTimeInterval(1)
        }
        if event == .update, let ends = activity.endedAt, ReferenceDate.unixSeconds(timestamp) >= ReferenceDate.unixSeconds(ends) {
            throw APIError.conflict("activity \(activityID) ends at \(ISODate.string(ends)); this update would arrive after its end")
        }
        let push = LiveActivityPush(event: event, timestamp: timestamp, contentState: state, alert: alert, staleDate: staleDate,
                                    relevanceScore: relevance, dismissal: dismissal)

        return try commit(c) { tx in
            var deliveries: [NewDelivery] = []
            var viaChannel = 0, downgraded = 0
            var lowered: [(deviceID: String, note: String)] = []
            var broadcast: BroadcastBudget?
            var skipped: [JSONValue] = []  // tokens APNs refused (TokenHygiene), until registered again
            let hourAgo = c.now.addingTimeInterval(-3600)
            let targets = try tx.activityTargets(activityID: activityID)
            let olderBuilds = try checkOlderBuilds(tx, activity: activity, state: state, targets: targets, policy: olderBuildPolicy)
            let usedByDevice = requestedPriority == 10 ? try tx.immediateCounts(activityID: activityID, since: hourAgo) : [:]
            deliveries.reserveCapacity(targets.count + 1)
            for (t, device) in targets {
                if olderBuilds.skips(t.deviceID) { continue }
                if activity.channelID != nil, let d = device, let v = OSVersionNumber(d.iosVersion), v >= OSVersionNumber(18, 0) {
                    viaChannel += 1
                    continue
                }
                if let refusal = t.refusal { skipped.append(["deviceID": .string(t.deviceID), "reason": .string(refusal)]); continue }
                var priority = requestedPriority
                var note: String?
                if priority == 10 {
                    let budget = (device?.frequentUpdates ?? false) ? configuration.frequentImmediateBudgetPerHour : configuration.immediateBudgetPerHour
                    let used = usedByDevice[t.deviceID] ?? 0
                    if used >= budget {
                        priority = 5
                        note = "priority lowered to 5: \(used) of \(budget) priority-10 pushes this hour used"
                        downgraded += 1
                        lowered.append((t.deviceID, note!))
                    }
                }
                deliveries.append(NewDelivery(deviceID: t.deviceID, target: .token, token: t.token, priority: priority, note: note, notBefore: sendAt, environment: t.environment))
            }
            if let channel = activity.channelID {
                // Counted against every device following the channel (Service+Budget.swift).
                let b = try broadcastBudget(channelID: channel, requested: requestedPriority, tx: tx, now: c.now)
                if b.note != nil { downgraded += 1 }
                broadcast = b
                deliveries.append(NewDelivery(deviceID: nil, target: .channel, token: channel, priority: b.priority, note: b.note, notBefore: sendAt))
            }
            if deliveries.isEmpty {
                throw APIError(422, "no-target", "activity \(activityID) has no usable update token and no channel: nothing would be sent",
                               details: skipped.isEmpty ? [:] : ["skipped": .array(skipped)])
            }
            let checked = try check(push, bundleID: activity.bundleID, schema: schema, broadcast: activity.channelID != nil, now: c.now, previous: activity.lastTimestamp)
            let inserted = try tx.insertSend(SendRecord(activityID: activityID, event: event.rawValue, bundleID: activity.bundleID, body: checked.bytes, createdAt: c.now),
                                             deliveries: deliveries, now: c.now)
            try broadcast?.record(sendID: inserted.id, channelID: activity.channelID ?? "", tx: tx, now: c.now)
            try tx.insertBudgetCharges(lowered.map {
                BudgetCharge(sendID: inserted.id, activityID: activityID, deviceID: $0.deviceID, kind: .lowered, via: .token, note: $0.note, createdAt: c.now)
            })
            var updated = activity
            if event == .end {
                updated.endedAt = sendAt
                // A scheduled end keeps the last timestamp: updates until then must stay older than it.
                if sendAt <= c.now { updated.lastTimestamp = timestamp }
            } else {
                updated.lastTimestamp = timestamp
            }
            // Read before this transaction: written only if no other request ended or advanced it since.
            guard try tx.setActivityTimes(updated, ifStill: activity) else { throw ActivityChanged() }
            var answer: JSONObject = [
                "activityID": .string(activityID), "event": .string(event.rawValue), "sendID": .number(Double(inserted.id)),
                "queued": .number(Double(deliveries.count)), "superseded": .number(Double(inserted.superseded)),
                "downgraded": .number(Double(downgraded)), "viaChannel": .number(Double(viaChannel)), "priority": .number(Double(requestedPriority)),
                "warnings": .array(Self.unique(checked.warnings + Self.loweredFinding(lowered.count) + (broadcast?.findings ?? [])).map(APIError.json)),
            ]
            if sendAt > c.now { answer["scheduledFor"] = .string(ISODate.string(sendAt)) }
            if !skipped.isEmpty { answer["skipped"] = .array(skipped) }
            olderBuilds.annotate(&answer)
            return Answer(202, .object(answer))
        }
    }

    static func unique(_ findings: [LintFinding]) -> [LintFinding] {
        var seen = Set<String>()
        return findings.filter { seen.insert($0.description).inserted }
    }

    /// `GET /v1/activities/{id}`; with `?wait=SECONDS` (at most 30) it answers when every push
    /// of the activity is final, or when the wait is over.
    func getActivity(_ c: RequestContext) async throws -> Answer {
        var wait = 0.0
        if let text = c.request.queryValue("wait") {
            guard let w = Double(text), w >= 0, w <= 30 else { throw APIError.invalid("wait", "must be a number of seconds from 0 to 30, got '\(text.prefix(20))'") }
            wait = w
        }
        let deadline = Date().addingTimeInterval(wait)
        let activityID = c.param("activityID")
        // Waiting asks only whether a row is not yet final (one index probe); the full answer is built once.
        // After a sleep this task runs on Swift's cooperative pool: its reads go to a queue of
        // their own there, so a long fan-out's commits do not hold a pool thread.
        guard wait > 0, try store.write({ try $0.hasWaiting(activityID: activityID) }) else { return try activitySnapshot(c) }
        while Date() < deadline {
            try await Task.sleep(for: .milliseconds(25))
            if try await !waitReads.write({ try $0.hasWaiting(activityID: activityID) }) { break }
        }
        return try await waitReads.write { [self] tx in try self.activitySnapshot(c, tx) }
    }

    private func activitySnapshot(_ c: RequestContext) throws -> Answer {
        try store.write { tx in try activitySnapshot(c, tx) }
    }

    private func activitySnapshot(_ c: RequestContext, _ tx: any StoreTransaction) throws -> Answer {
        let activityID = c.param("activityID")
        let limit = Int(c.request.queryValue("limit") ?? "") ?? 100
        guard (1...10_000).contains(limit) else { throw APIError.invalid("limit", "must be an integer from 1 to 10000") }
        if let activity = try tx.activity(activityID) { try c.requireApp(activity.bundleID, hiding: "activity \(activityID) is not known") }
        guard let overview = try Self.overview(activityID, limit: limit, tx, rules: StatusRules(configuration), now: configuration.clock()) else { throw APIError.notFound("activity \(activityID) is not known") }
        return Answer(200, try withRenewal(try Self.withAliases(overview, activityID: activityID, tx), activityID: activityID, tx))
    }

    static func json(_ r: DeliveryRecord) -> JSONValue {
        var o: JSONObject = [
            "id": .number(Double(r.id)), "sendID": .number(Double(r.sendID)), "event": .string(r.event), "target": .string(r.target.rawValue),
            "token": .string(r.target == .channel ? r.token : prefix(r.token)), "state": .string(r.state.rawValue), "priority": .number(Double(r.priority)),
            "attempts": .number(Double(r.attempts)), "updatedAt": .string(ISODate.string(r.updatedAt)),
        ]
        if let d = r.deviceID { o["deviceID"] = .string(d) }
        if let n = r.note { o["note"] = .string(n) }
        if let a = r.apnsID { o["apnsID"] = .string(a) }
        if let s = r.status { o["status"] = .number(Double(s)) }
        if let reason = r.reason { o["reason"] = .string(reason) }
        if r.state == .queued || r.state == .retrying { o["nextAttemptAt"] = .string(ISODate.string(r.nextAttemptAt)) }
        if let d = r.displayedAt { o["displayedAt"] = .string(ISODate.string(d)); o["displayed"] = true }
        return .object(o)
    }
}

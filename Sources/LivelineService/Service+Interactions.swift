import Foundation
import LivelineCore
import LivelineStore

/// What devices report back: taps in the Live Activity and content they displayed.
extension Service {
    func postInteraction(_ c: RequestContext) throws -> Answer {
        let given = c.param("activityID")
        guard let idem = c.request.header("idempotency-key"), !idem.isEmpty else {
            throw APIError(400, "missing-idempotency-key", "an interaction needs an Idempotency-Key header, so a retried tap is delivered once")
        }
        var body = try JSONBody(c.request.body)
        let action = try body.requiredString("action", maxLength: 200)
        let deviceID = try bodyDevice(c, try body.string("deviceID", maxLength: 200))
        let payload = body.value("payload")
        try body.finish()
        var stored: JSONObject = ["action": .string(action)]
        if let payload {
            let size = payload.serialized().count
            if size > configuration.interactionPayloadBytes {
                throw APIError(413, "payload-too-large", "payload: \(size) bytes of JSON; at most \(configuration.interactionPayloadBytes) (interactionPayloadBytes)", field: "payload")
            }
            stored["payload"] = payload
        }
        // An installation's keys are its own: the same key from another installation is another tap.
        let storedKey = c.installation.map { "\($0.installationID)/\(idem)" } ?? idem
        let answer = try commit(c) { [self] tx in
            let activityID = try resolveActivityID(given, installation: c.installation, tx)
            if let installation = c.installation {
                guard try holds(activityID, installation: installation, tx: tx) else { throw Self.unknownActivity(activityID) }
                let recent = try tx.interactionCount(deviceID: installation.installationID, since: c.now.addingTimeInterval(-3600))
                if recent >= configuration.interactionQuotaPerHour {
                    throw APIError(429, "interaction-quota-exceeded", "this installation posted \(recent) interactions in the last hour; at most \(configuration.interactionQuotaPerHour) (interactionQuotaPerHour)",
                                   details: ["retryAfterSeconds": 60])
                }
                try applyRetention(tx, now: c.now)
            } else {
                guard try tx.activity(activityID) != nil else { throw Self.unknownActivity(activityID) }
            }
            let (record, created) = try tx.insertInteraction(activityID: activityID, deviceID: deviceID, idempotencyKey: storedKey, body: JSONValue.object(stored).serialized(), now: c.now)
            return Answer(created ? 201 : 200, Self.json(record))
        }
        webhooks.wake()
        return answer
    }

    /// A page of interactions: `?limit=` (1 to 1000, 100 by default) after `?after=` (the `next` of the previous page).
    func listInteractions(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        let (limit, after) = try Self.page(c)
        return try store.write { tx in
            guard let activity = try tx.activity(activityID) else { throw Self.unknownActivity(activityID) }
            try c.requireApp(activity.bundleID, hiding: Self.unknownActivity(activityID).message)
            let rows = try tx.interactions(activityID: activityID, after: after, limit: limit)
            var o: JSONObject = ["interactions": .array(rows.map(Self.json))]
            if rows.count == limit, let last = rows.last { o["next"] = .string(String(last.id)) }
            return Answer(200, .object(o))
        }
    }

    /// `?limit=` and `?after=` of a listing.
    static func page(_ c: RequestContext) throws -> (limit: Int, after: Int64) {
        var limit = 100
        if let text = c.request.queryValue("limit") {
            guard let n = Int(text), (1...1000).contains(n) else { throw APIError.invalid("limit", "must be an integer from 1 to 1000, got '\(text.prefix(20))'") }
            limit = n
        }
        var after: Int64 = 0
        if let text = c.request.queryValue("after") {
            guard let n = Int64(text), n >= 0 else { throw APIError.invalid("after", "must be the 'next' value of the previous page, got '\(text.prefix(20))'") }
            after = n
        }
        return (limit, after)
    }

    static func json(_ i: InteractionRecord) -> JSONValue {
        // An installation's keys are stored under its id ("<installationID>/<key>"); shown as it sent them.
        var key = i.idempotencyKey
        if let d = i.deviceID, key.hasPrefix(d + "/") { key.removeFirst(d.count + 1) }
        var o: JSONObject = ["id": .number(Double(i.id)), "activityID": .string(i.activityID), "idempotencyKey": .string(key),
                             "createdAt": .string(ISODate.string(i.createdAt)), "webhook": .string(i.webhookState), "attempts": .number(Double(i.attempts))]
        if let d = i.deviceID { o["deviceID"] = .string(d) }
        if let body = try? JSONValue.parse(i.body), let b = body.objectValue { for m in b { o[m.key] = m.value } }
        if let e = i.lastError { o["lastError"] = .string(e) }
        return .object(o)
    }

    func postReceipt(_ c: RequestContext) throws -> Answer {
        let requested = c.param("activityID")
        var body = try JSONBody(c.request.body)
        let given = try body.string("deviceID", maxLength: 200)
        let at = try body.date("displayedAt") ?? c.now
        try body.finish()
        guard let deviceID = try bodyDevice(c, given) else { throw APIError.invalid("deviceID", "is required") }
        return try commit(c) { [self] tx in
            let activityID = try resolveActivityID(requested, installation: c.installation, tx)
            // One answer for an unknown activity, another's activity and nothing sent yet: the
            // route does not tell which activity ids exist.
            let nothing = APIError.notFound("no sent push of activity \(activityID) to device \(deviceID) to mark displayed")
            if c.installation == nil { guard try tx.activity(activityID) != nil else { throw nothing } }
            let marked = try tx.markDisplayed(activityID: activityID, deviceID: deviceID, at: at)
            guard marked else { throw nothing }
            return Answer(200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "displayed": true])
        }
    }
}

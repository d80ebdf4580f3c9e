import Foundation
import LivelineCore
import LivelineStore

/// What devices report back: taps in the Live Activity and content they displayed.
extension Service {
    func postInteraction(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        guard let idem = c.request.header("idempotency-key"), !idem.isEmpty else {
            throw APIError(400, "missing-idempotency-key", "an interaction needs an Idempotency-Key header, so a retried tap is delivered once")
        }
        var body = try JSONBody(c.request.body)
        let action = try body.requiredString("action", maxLength: 200)
        let deviceID = try body.string("deviceID", maxLength: 200)
        let payload = body.value("payload")
        try body.finish()
        var stored: JSONObject = ["action": .string(action)]
        if let payload { stored["payload"] = payload }
        let answer = try commit(c) { tx in
            guard try tx.activity(activityID) != nil else { throw APIError.notFound("activity \(activityID) is not known") }
            let (record, created) = try tx.insertInteraction(activityID: activityID, deviceID: deviceID, idempotencyKey: idem, body: JSONValue.object(stored).serialized(), now: c.now)
            return Answer(created ? 201 : 200, Self.json(record))
        }
        webhooks.wake()
        return answer
    }

    func listInteractions(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        return try store.write { tx in
            guard let activity = try tx.activity(activityID) else { throw APIError.notFound("activity \(activityID) is not known") }
            try c.requireApp(activity.bundleID, hiding: "activity \(activityID) is not known")
            return Answer(200, ["interactions": .array(try tx.interactions(activityID: activityID, limit: 1000).map(Self.json))])
        }
    }

    static func json(_ i: InteractionRecord) -> JSONValue {
        var o: JSONObject = ["id": .number(Double(i.id)), "activityID": .string(i.activityID), "idempotencyKey": .string(i.idempotencyKey),
                             "createdAt": .string(ISODate.string(i.createdAt)), "webhook": .string(i.webhookState), "attempts": .number(Double(i.attempts))]
        if let d = i.deviceID { o["deviceID"] = .string(d) }
        if let body = try? JSONValue.parse(i.body), let b = body.objectValue { for m in b { o[m.key] = m.value } }
        if let e = i.lastError { o["lastError"] = .string(e) }
        return .object(o)
    }

    func postReceipt(_ c: RequestContext) throws -> Answer {
        let activityID = c.param("activityID")
        var body = try JSONBody(c.request.body)
        let deviceID = try body.requiredString("deviceID", maxLength: 200)
        let at = try body.date("displayedAt") ?? c.now
        try body.finish()
        return try commit(c) { tx in
            guard try tx.activity(activityID) != nil else { throw APIError.notFound("activity \(activityID) is not known") }
            let marked = try tx.markDisplayed(activityID: activityID, deviceID: deviceID, at: at)
            guard marked else { throw APIError.notFound("no sent push to device \(deviceID) for activity \(activityID) to mark displayed") }
            return Answer(200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "displayed": true])
        }
    }
}

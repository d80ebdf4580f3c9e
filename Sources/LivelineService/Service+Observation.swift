import Foundation
import LivelineCore
import LivelineStore

/// Watching the service from outside the API: its changes as a stream and one activity's state,
/// without API keys (the caller is in the same process, e.g. `liveline serve --dashboard`).
extension Service {
    /// Every change from now on: sends accepted, tokens registered or deleted, rows claimed,
    /// verdicts recorded. Cancelling the reading task ends the stream.
    public func changes() -> AsyncStream<ServiceChange> {
        dispatcher.changes.subscribe()
    }

    /// The ids of the `limit` most recently started activities, newest first.
    public func recentActivityIDs(limit: Int) throws -> [String] {
        try store.write { tx in try tx.recentActivityIDs(limit: limit) }
    }

    /// A logical activity as the service knows it, or nil when it does not: its update tokens
    /// (8-character prefixes), delivery counts by state, and its newest `limit` deliveries (newest
    /// first), each with its state, attempts, apns-id, reason, next attempt and whether it was displayed.
    /// The same fields as `GET /v1/activities/{id}` (docs/dashboard.md, "The service's page").
    public func activityOverview(_ activityID: String, limit: Int = 50) throws -> JSONValue? {
        try store.write { tx in try Self.overview(activityID, limit: limit, tx) }
    }

    /// `activityOverview` inside a transaction (`GET /v1/activities/{id}` answers with it too).
    static func overview(_ activityID: String, limit: Int, _ tx: any StoreTransaction) throws -> JSONValue? {
        guard let a = try tx.activity(activityID) else { return nil }
        let tokens = try tx.activityTokens(activityID: activityID, limit: limit)
        let app = try tx.app(bundleID: a.bundleID)
        let counts = try tx.deliveryCounts(activityID: activityID)
        var o: JSONObject = [
            "activityID": .string(a.activityID), "bundleID": .string(a.bundleID), "attributesType": .string(a.attributesType),
            "startedAt": .string(ISODate.string(a.startedAt)),
            "tokenCount": .number(Double(try tx.activityTokenCount(activityID: activityID))),
            "tokens": .array(tokens.map { TokenHygiene.json($0, app: app, scopeName: "deviceID", now: Date(), maxUnseen: nil) }),
            "counts": .object(JSONObject(DeliveryState.allCases.map { .init(key: $0.rawValue, value: .number(Double(counts[$0] ?? 0))) })),
            "final": .bool(counts.filter { !$0.key.isFinal }.values.reduce(0, +) == 0),
            "deliveries": .array(try tx.deliveries(activityID: activityID, limit: limit).map(Self.json)),
        ]
        if let ch = a.channelID { o["channelID"] = .string(ch) }
        if let e = a.endedAt { o["endedAt"] = .string(ISODate.string(e)) }
        return .object(o)
    }
}

import Foundation
import LivelineAPNS
import LivelineCore
import LivelineStore

/// iOS 18 broadcast channels, created and deleted through APNs' channel API.
extension Service {
    /// APNs allows 10,000 channels per app.
    static let channelLimit = 10_000

    private func appAndClient(_ bundleID: String) throws -> (AppRecord, APNSClient) {
        guard let app = try store.write({ try $0.app(bundleID: bundleID) }) else {
            throw APIError(404, "unknown-app", "app \(bundleID) is not registered: POST /v1/apps first", field: "bundleID")
        }
        return (app, try clients.client(for: app))
    }

    private static func apnsError<T>(_ result: APNSChannelResult<T>) -> APIError? {
        switch result {
        case .success: return nil
        case .rejected(let r): return APIError(502, "apns-rejected", "APNs refused: \(r.status) \(r.reason)", details: ["apnsStatus": .number(Double(r.status)), "apnsReason": .string(r.reason.rawValue)])
        case .failed(let e): return APIError(502, "apns-unreachable", "APNs could not be reached: \(e.message)")
        }
    }

    func createChannel(_ c: RequestContext) async throws -> Answer {
        var body = try JSONBody(c.request.body)
        let bundleID = try body.requiredString("bundleID", maxLength: 155)
        let policyNumber = try body.integer("storagePolicy", in: 0...1) ?? 0
        let activityID = try body.string("activityID", maxLength: 200)  // bound to it (Service+ChannelMembers.swift)
        let type = try body.string("attributesType", maxLength: 200)
        try body.finish()
        try c.requireApp(bundleID)
        try checkBindable(activityID, type: type, bundleID: bundleID, c: c)
        let (_, client) = try appAndClient(bundleID)
        let count = try store.write { try $0.channelCount(bundleID: bundleID) }
        if count >= configuration.channelLimit {
            throw APIError(409, "channel-limit", "\(bundleID) already has \(count) channels, the limit of \(configuration.channelLimit) (APNs allows \(Self.channelLimit)); delete some first")
        }
        let result = await client.createChannel(bundleID: bundleID, storagePolicy: APNSMessageStoragePolicy(rawValue: policyNumber) ?? .noMessageStored)
        if let error = Self.apnsError(result) { throw error }
        guard let id = result.value else { throw APIError(502, "apns-bad-answer", "APNs created a channel but sent no channel id") }
        let record = ChannelRecord(channelID: id, bundleID: bundleID, storagePolicy: policyNumber, createdAt: c.now, activityID: activityID)
        do {
            return try commit(c) { tx in
                if let activityID { return try bindNewChannel(activityID, record, type: type, c: c, tx) }
                try tx.insertChannel(record)
                return Answer(201, Self.json(record))
            }
        } catch {
            // Not kept (the id was bound meanwhile, or the store failed): not left in APNs either.
            if activityID != nil { await dropChannel(record, client: client) }
            throw error
        }
    }

    func listChannels(_ c: RequestContext) throws -> Answer {
        let bundleID = c.request.queryValue("bundleID")
        let (limit, after) = try Self.namePage(c)
        let all = try store.write { try $0.channels(bundleID: bundleID) }.filter { c.mayAct(on: $0.bundleID) }
        return Self.paged("channels", all.sorted { $0.channelID < $1.channelID }, key: \.channelID, after: after, limit: limit, json: Self.json)
    }

    func getChannel(_ c: RequestContext) throws -> Answer {
        guard let ch = try store.write({ try $0.channel(c.param("channelID")) }) else { throw APIError.notFound("channel \(c.param("channelID")) is not known") }
        try c.requireApp(ch.bundleID, hiding: "channel \(c.param("channelID")) is not known")
        return Answer(200, Self.json(ch))
    }

    func deleteChannel(_ c: RequestContext) async throws -> Answer {
        let id = c.param("channelID")
        guard let ch = try store.write({ try $0.channel(id) }) else { throw APIError.notFound("channel \(id) is not known") }
        try c.requireApp(ch.bundleID, hiding: "channel \(id) is not known")
        let (_, client) = try appAndClient(ch.bundleID)
        let result = await client.deleteChannel(id, bundleID: ch.bundleID)
        if let error = Self.apnsError(result), !(error.details["apnsReason"]?.stringValue == "ChannelNotRegistered") { throw error }
        return try commit(c) { tx in
            _ = try tx.deleteChannel(id)
            return Answer(200, ["channelID": .string(id), "deleted": true])
        }
    }

    static func json(_ c: ChannelRecord) -> JSONValue {
        var o: JSONObject = ["channelID": .string(c.channelID), "bundleID": .string(c.bundleID), "storagePolicy": .number(Double(c.storagePolicy)),
                             "createdAt": .string(ISODate.string(c.createdAt))]
        if let a = c.activityID { o["activityID"] = .string(a) }  // created on demand (Service+ActivityChannels.swift)
        return .object(o)
    }
}

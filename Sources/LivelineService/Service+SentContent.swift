import Foundation
import LivelineCore
import LivelineStore

/// What an activity's sends carried, for pictures of them (`liveline serve --dashboard`): each
/// send's event, time and APNs body, and the attributes of the activity's newest start (an update
/// or end carries none, and a typed activity's template needs them). In-process only, like
/// `activityOverview`: the caller holds the service, no API key is asked.
public struct SentContent: Sendable, Hashable {
    /// One accepted send.
    public struct Send: Sendable, Hashable {
        /// The send's id (a delivery's `sendID`).
        public var id: Int64
        /// `start`, `update` or `end`.
        public var event: String
        /// When the service accepted it.
        public var createdAt: Date
        /// The APNs request body, exactly as it went on the wire.
        public var body: [UInt8]
    }

    /// The activity's attributes type.
    public var attributesType: String
    /// `aps.attributes` of the newest start found (nil when the service sent no start the
    /// searched deliveries show: an activity the app started itself).
    public var attributes: JSONValue?
    /// The sends asked for that exist and belong to the activity, in the order asked.
    public var sends: [Send]
}

extension Service {
    /// The sends `sendIDs` of `activityID` with the attributes of its newest start, looked for among
    /// its newest `searchLimit` deliveries; nil when the service knows no such activity.
    public func sentContent(activityID: String, sendIDs: [Int64], searchLimit: Int = 1000) throws -> SentContent? {
        try store.write { tx -> SentContent? in
            guard let activity = try tx.activity(activityID) else { return nil }
            var sends: [SentContent.Send] = []
            for id in sendIDs {
                guard let send = try tx.send(id), send.activityID == activityID else { continue }
                sends.append(.init(id: send.id, event: send.event, createdAt: send.createdAt, body: send.body))
            }
            var attributes: JSONValue?
            if let start = sends.filter({ $0.event == "start" }).max(by: { $0.id < $1.id }) {
                attributes = try? JSONValue.parse(start.body)["aps"]?["attributes"]
            } else if let startID = try tx.deliveries(activityID: activityID, limit: searchLimit).first(where: { $0.event == "start" })?.sendID,
                let start = try tx.send(startID)
            {
                attributes = try? JSONValue.parse(start.body)["aps"]?["attributes"]
            }
            return SentContent(attributesType: activity.attributesType, attributes: attributes, sends: sends)
        }
    }
}

import Foundation

/// One APNs request without its destination: the metadata headers and the JSON body.
///
/// The client adds `:path` (device token or channel) and `authorization`.
///
/// Module: LivelineCore owns the payload contract: activity attributes, the pushes and their
/// headers, push types, APNs reasons and their retry policies, validation, lint, schemas and
/// ordered JSON. It imports Foundation only and must build for iOS: it must never import another
/// Liveline module, a C library or anything about transport or storage.
public struct PushRequest: Sendable, Hashable {
    public var pushType: PushType
    /// `apns-topic`: the bundle id plus the push type's suffix. Unused for broadcasts.
    public var topic: String
    /// `apns-priority`; APNs assumes 10 when absent.
    public var priority: Priority?
    public var expiration: Expiration?
    /// `apns-collapse-id`, at most 64 bytes: newer pushes with the same id replace older ones.
    public var collapseID: String?
    /// `apns-id`; APNs generates one when absent.
    public var apnsID: UUID?
    public var body: JSONValue

    public init(
        pushType: PushType, topic: String, priority: Priority? = nil, expiration: Expiration? = nil,
        collapseID: String? = nil, apnsID: UUID? = nil, body: JSONValue
    ) {
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.body = body
    }

    /// A Live Activity push for the app `bundleID` (topic `<bundleID>.push-type.liveactivity`).
    ///
    /// - Important: priority 10 counts against the activity's hourly update budget; use
    ///   `.considerate` (5) for updates that can wait.
    public static func liveActivity(
        _ push: LiveActivityPush, bundleID: String, priority: Priority = .immediate, expiration: Expiration? = nil,
        collapseID: String? = nil, apnsID: UUID? = nil
    ) -> PushRequest {
        PushRequest(
            pushType: .liveActivity, topic: PushType.liveActivity.topic(forBundleID: bundleID), priority: priority,
            expiration: expiration, collapseID: collapseID, apnsID: apnsID, body: push.body)
    }

    /// An ordinary notification: `alert` unless it only sets `content-available`, then `background`
    /// (which APNs accepts only at priority 5).
    public static func notification(
        _ push: NotificationPush, bundleID: String, priority: Priority? = nil, expiration: Expiration? = nil,
        collapseID: String? = nil, apnsID: UUID? = nil
    ) -> PushRequest {
        let isBackground = push.contentAvailable && push.alert == nil && push.sound == nil && push.badge == nil
        let type: PushType = isBackground ? .background : .alert
        return PushRequest(
            pushType: type, topic: bundleID, priority: priority ?? (isBackground ? .considerate : .immediate),
            expiration: expiration, collapseID: collapseID, apnsID: apnsID, body: push.body)
    }

    /// The request headers besides `:method`, `:path` and `authorization`, in the order sent.
    public var headers: [(name: String, value: String)] {
        // One allocation of the right size; the priority from a literal rather than `String(Int)`.
        var count = 2
        if priority != nil { count += 1 }
        if expiration != nil { count += 1 }
        if collapseID != nil { count += 1 }
        if apnsID != nil { count += 1 }
        var headers: [(name: String, value: String)] = []
        // One slot more: a token-auth client appends `authorization` without reallocating.
        headers.reserveCapacity(count + 1)
        headers.append(("apns-push-type", pushType.rawValue))
        headers.append(("apns-topic", topic))
        if let priority {
            let value: String
            switch priority {
            case .immediate: value = "10"
            case .considerate: value = "5"
            case .low: value = "1"
            }
            headers.append(("apns-priority", value))
        }
        if let expiration { headers.append(("apns-expiration", expiration.headerValue)) }
        if let collapseID { headers.append(("apns-collapse-id", collapseID)) }
        if let apnsID { headers.append(("apns-id", apnsID.uuidString.lowercased())) }
        return headers
    }

    /// The exact body bytes that go on the wire.
    public func serializedBody() -> [UInt8] { body.serialized() }
}

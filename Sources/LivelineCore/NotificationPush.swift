import Foundation

/// An ordinary notification: an `alert` shown to the user, or a `background` push that wakes the app.
public struct NotificationPush: Sendable, Hashable {
    /// How loudly an alert interrupts (`interruption-level`).
    public enum InterruptionLevel: String, Sendable, Hashable {
        case passive, active
        case timeSensitive = "time-sensitive"
        case critical
    }

    public var alert: Alert?
    public var badge: Int?
    public var sound: String?
    public var threadID: String?
    public var category: String?
    /// `content-available: 1`: wake the app in the background.
    public var contentAvailable: Bool
    /// `mutable-content: 1`: let a notification service extension change it.
    public var mutableContent: Bool
    public var targetContentID: String?
    public var interruptionLevel: InterruptionLevel?
    public var relevanceScore: Double?
    public var customKeys: JSONObject

    public init(
        alert: Alert? = nil, badge: Int? = nil, sound: String? = nil, threadID: String? = nil, category: String? = nil,
        contentAvailable: Bool = false, mutableContent: Bool = false, targetContentID: String? = nil,
        interruptionLevel: InterruptionLevel? = nil, relevanceScore: Double? = nil, customKeys: JSONObject = [:]
    ) {
        self.alert = alert
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        self.targetContentID = targetContentID
        self.interruptionLevel = interruptionLevel
        self.relevanceScore = relevanceScore
        self.customKeys = customKeys
    }

    /// A background push: `content-available: 1` and the app's data beside `aps`.
    public static func background(_ customKeys: JSONObject = [:]) -> NotificationPush {
        NotificationPush(contentAvailable: true, customKeys: customKeys)
    }

    /// The request body.
    public var body: JSONValue {
        var aps = JSONObject()
        if let alert { aps["alert"] = alert.notificationJSON }
        if let badge { aps["badge"] = .number(Double(badge)) }
        if let sound { aps["sound"] = .string(sound) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let category { aps["category"] = .string(category) }
        if contentAvailable { aps["content-available"] = 1 }
        if mutableContent { aps["mutable-content"] = 1 }
        if let targetContentID { aps["target-content-id"] = .string(targetContentID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.rawValue) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        var root: JSONObject = ["aps": .object(aps)]
        for member in customKeys where member.key != "aps" { root[member.key] = member.value }
        return .object(root)
    }
}

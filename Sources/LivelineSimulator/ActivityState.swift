import Foundation
import LivelineCore

/// ActivityKit's `ActivityState`.
public enum ActivityState: String, Sendable, Hashable, Codable {
    /// Running and shown.
    case active
    /// Past its stale date; still shown, marked stale.
    case stale
    /// Ended; still on the Lock Screen until dismissed.
    case ended
    /// Removed from the Lock Screen.
    case dismissed
}

/// A Live Activity on a simulated device, as a value: what the Lock Screen would show.
public struct ActivitySnapshot: Sendable, Hashable {
    /// The activity's id (like ActivityKit's `Activity.id`).
    public var id: String
    public var deviceID: String
    public var bundleID: String
    public var attributesType: String
    public var attributes: JSONValue
    /// The content state currently shown.
    public var contentState: JSONValue
    public var state: ActivityState
    /// The current per-activity update token, if the activity has one.
    public var pushToken: String?
    /// The broadcast channel the activity is subscribed to, if any.
    public var channelID: String?
    public var startedAt: Date
    /// How it was started: `"push"` (push-to-start) or `"app"`.
    public var startedBy: String
    public var staleDate: Date?
    public var relevanceScore: Double?
    public var endedAt: Date?
    /// When it leaves (or left) the Lock Screen, once known.
    public var dismissalDate: Date?
    /// The `timestamp` of the content shown (Unix seconds).
    public var lastTimestamp: Double
    /// Updates applied after the start.
    public var updateCount: Int
    /// Pushes this activity dropped (decode failure, older timestamp, budget...).
    public var droppedCount: Int
    /// The last alert shown, as JSON.
    public var lastAlert: JSONValue?

    /// `isStale` as ActivityKit reports it.
    public var isStale: Bool { state == .stale }
}

/// A simulated iPhone, as a value.
public struct DeviceSnapshot: Sendable, Hashable {
    public var id: String
    public var name: String
    public var osVersion: OSVersion
    public var environment: APNSEnvironment
    public var apps: [InstalledAppSnapshot]
}

/// An app on a simulated device, as a value.
public struct InstalledAppSnapshot: Sendable, Hashable {
    public var bundleID: String
    /// The regular APNs device token (64 hex characters).
    public var deviceToken: String
    /// Push-to-start tokens by attributes type (iOS 17.2+).
    public var pushToStartTokens: [String: String]
    public var activityTypes: [String]
    public var supportsFrequentUpdates: Bool
    public var frequentUpdatesEnabled: Bool
    public var installed: Bool
    /// Ordinary notifications received, newest last.
    public var notifications: [JSONValue]
}

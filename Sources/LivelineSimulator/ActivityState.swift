import Foundation
import LivelineCore

/// ActivityKit's `ActivityState`.
public enum ActivityState: String, Sendable, Hashable, Codable {
    /// Scheduled to start at `startedAt` (iOS 26 `Activity.request(..., start:)`), not started yet:
    /// not shown, no update token until it starts.
    case pending
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
    /// The device it runs on.
    public var deviceID: String
    /// The app it belongs to.
    public var bundleID: String
    /// The `ActivityAttributes` type name.
    public var attributesType: String
    /// The static attributes it was started with.
    public var attributes: JSONValue
    /// The content state currently shown.
    public var contentState: JSONValue
    /// ActivityKit state as of the clock's current time.
    public var state: ActivityState
    /// The current per-activity update token, if the activity has one.
    public var pushToken: String?
    /// The broadcast channel the activity is subscribed to, if any.
    public var channelID: String?
    /// When it started.
    public var startedAt: Date
    /// How it was started: `"push"` (push-to-start) or `"app"`.
    public var startedBy: String
    /// When it becomes (or became) stale.
    public var staleDate: Date?
    /// Orders activities on the Lock Screen.
    public var relevanceScore: Double?
    /// When it ended (push, system limit or user).
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
    /// Updates whose `content-state` the activity's type failed to decode, and the last decoder
    /// message: what an app's widget sees fail, and LivelineKit reports to the service.
    public var decodeFailures = 0
    public var lastDecodeFailure: String?

    /// `isStale` as ActivityKit reports it.
    public var isStale: Bool { state == .stale }
}

/// A simulated iPhone, as a value.
public struct DeviceSnapshot: Sendable, Hashable {
    /// The device id used by every call.
    public var id: String
    /// A display name.
    public var name: String
    /// The iOS version, which gates push-to-start (17.2) and channels (18).
    public var osVersion: OSVersion
    /// The APNs environment its tokens belong to.
    public var environment: APNSEnvironment
    /// Installed apps, in install order.
    public var apps: [InstalledAppSnapshot]
    /// Failures it models on purpose (force-quit app, withheld update tokens).
    public var modes = DeviceModes()
}

/// An app on a simulated device, as a value.
public struct InstalledAppSnapshot: Sendable, Hashable {
    /// The app it belongs to.
    public var bundleID: String
    /// The regular APNs device token (64 hex characters).
    public var deviceToken: String
    /// Push-to-start tokens by attributes type (iOS 17.2+).
    public var pushToStartTokens: [String: String]
    /// Registered activity type names, in registration order.
    public var activityTypes: [String]
    /// `NSSupportsLiveActivitiesFrequentUpdates` in the app's Info.plist.
    public var supportsFrequentUpdates: Bool
    /// The user's setting for frequent updates.
    public var frequentUpdatesEnabled: Bool
    /// False once uninstalled (its tokens then answer 410 `Unregistered`).
    public var installed: Bool
    /// Ordinary notifications received, newest last.
    public var notifications: [JSONValue]
}

import Foundation

/// Something a simulated device tells its app: a token issued or rotated, an activity's state changed.
public struct SimulatorEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// `pushToStartTokenUpdates` produced `token` for `attributesType`.
        case pushToStartToken(attributesType: String, token: String)
        /// `pushTokenUpdates` produced `token` for the activity (first issue or rotation).
        case activityPushToken(activityID: String, token: String, rotated: Bool)
        /// `activityStateUpdates` produced `state`.
        case activityState(activityID: String, state: ActivityState)
        /// The activity's content changed.
        case contentUpdate(activityID: String)
    }

    /// When it happened (the moment it was due, for time-based changes).
    public var time: Date
    /// The device.
    public var deviceID: String
    /// The app told.
    public var bundleID: String
    /// What happened.
    public var kind: Kind
}

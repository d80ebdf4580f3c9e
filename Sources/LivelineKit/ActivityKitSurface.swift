import Foundation
import LivelineCore

/// An activity's state, as ActivityKit's `ActivityState` has it.
public enum LiveActivityState: String, Sendable, Codable, Equatable {
    case pending, active, stale, ended, dismissed

    /// Ended or dismissed: its token must leave the service.
    public var isOver: Bool { self == .ended || self == .dismissed }
}

/// One Live Activity on the device: the part of ActivityKit's `Activity<Attributes>` the
/// coordinator needs. The ActivityKit adapter wraps a real `Activity`; tests and the simulator
/// provide their own.
public protocol LiveActivity: Sendable {
    /// The device's activity id (`Activity.id`), not the logical id.
    var id: String { get }
    /// The attributes as JSON (the adapter encodes them); carries `livelineActivityID` when the
    /// service started the activity.
    var attributes: JSONValue { get }
    /// `Activity.pushToken`: read it directly, the stream may never yield on a background launch.
    var pushToken: Data? { get }
    /// `Activity.pushTokenUpdates`.
    var pushTokenUpdates: AsyncStream<Data> { get }
    /// `Activity.activityState`.
    var activityState: LiveActivityState { get }
    /// `Activity.activityStateUpdates`.
    var activityStateUpdates: AsyncStream<LiveActivityState> { get }
    /// `Activity.contentUpdates`, as the content state's JSON (used for receipts).
    var contentUpdates: AsyncStream<JSONValue> { get }
    /// Content states the attributes type failed to decode, as the decoder's messages (ActivityKit
    /// has no such stream: a source that can see the failure provides one; by default it never yields).
    var contentDecodeFailures: AsyncStream<String> { get }
}

extension LiveActivity {
    public var contentDecodeFailures: AsyncStream<String> { AsyncStream { $0.finish() } }
}

/// The static side of `Activity<Attributes>` for one attributes type.
public protocol LiveActivityKind: Sendable {
    /// The type's name, as the service knows it (`FlightAttributes`).
    var attributesType: String { get }
    /// `Activity<A>.pushToStartToken` (iOS 17.2): read it directly at launch.
    var pushToStartToken: Data? { get }
    /// `Activity<A>.pushToStartTokenUpdates`.
    var pushToStartTokenUpdates: AsyncStream<Data> { get }
    /// `Activity<A>.activities`: those running now.
    var activities: [any LiveActivity] { get }
    /// `Activity<A>.activityUpdates`: activities started after observation began (by a push too).
    var activityUpdates: AsyncStream<any LiveActivity> { get }
}

/// `ActivityAuthorizationInfo`: whether the user allows frequent updates.
public protocol LiveActivityAuthorization: Sendable {
    /// `frequentPushesEnabled`.
    var frequentPushesEnabled: Bool { get }
    /// `frequentPushEnablementUpdates`.
    var frequentPushEnablementUpdates: AsyncStream<Bool> { get }
    /// `areActivitiesEnabled`: the user allows Live Activities for the app.
    var areActivitiesEnabled: Bool { get }
    /// `activityEnablementUpdates`.
    var activityEnablementUpdates: AsyncStream<Bool> { get }
}

extension LiveActivityAuthorization {
    /// Enabled, never switched: for sources that do not report it.
    public var areActivitiesEnabled: Bool { true }
    public var activityEnablementUpdates: AsyncStream<Bool> { AsyncStream { $0.finish() } }
}

/// The device, as the service's `PUT /v1/devices` wants it described.
public enum LivelineDevice {
    /// The OS version as `UIDevice.current.systemVersion` writes it ("18.2", "17.4.1": the patch
    /// only when it is not 0), from `ProcessInfo` (Foundation only, so LivelineKit needs no UIKit).
    /// Not `operatingSystemVersionString`, which is prose ("Version 18.2 (Build 22C152)").
    public static var systemVersion: String { systemVersion(ProcessInfo.processInfo.operatingSystemVersion) }

    /// `systemVersion` for a given version.
    public static func systemVersion(_ version: OperatingSystemVersion) -> String {
        var text = "\(version.majorVersion).\(version.minorVersion)"
        if version.patchVersion != 0 { text += ".\(version.patchVersion)" }
        return text
    }
}

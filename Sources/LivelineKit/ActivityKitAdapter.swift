#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import Foundation
import LivelineCore

// The ActivityKit side of the protocols in ActivityKitSurface.swift. Values are forwarded as they
// are; every decision (what to send, when, what to delete) is LiveActivityCoordinator's, which is
// tested on Linux. This file cannot be compiled there: keep it this thin.

/// `Activity<Attributes>`'s static side for one attributes type.
@available(iOS 17.2, *)
public struct ActivityKitKind<Attributes: ActivityKit.ActivityAttributes>: LiveActivityKind {
    public let attributesType: String

    /// - Parameter attributesType: the name the service knows the type by (the Swift type's name by default).
    public init(attributesType: String = String(describing: Attributes.self)) {
        self.attributesType = attributesType
    }

    public var pushToStartToken: Data? { Activity<Attributes>.pushToStartToken }

    public var pushToStartTokenUpdates: AsyncStream<Data> {
        forward(Activity<Attributes>.pushToStartTokenUpdates) { $0 }
    }

    public var activities: [any LiveActivity] {
        Activity<Attributes>.activities.map { ActivityKitActivity(activity: $0) }
    }

    public var activityUpdates: AsyncStream<any LiveActivity> {
        forward(Activity<Attributes>.activityUpdates) { ActivityKitActivity(activity: $0) as any LiveActivity }
    }
}

/// One `Activity<Attributes>`.
@available(iOS 17.2, *)
public struct ActivityKitActivity<Attributes: ActivityKit.ActivityAttributes>: LiveActivity, @unchecked Sendable {
    // Confinement: `Activity` is only read here (its properties are thread-safe reads in ActivityKit).
    let activity: Activity<Attributes>

    public var id: String { activity.id }

    public var attributes: JSONValue {
        guard let data = try? JSONEncoder().encode(activity.attributes), let json = try? JSONValue.parse(Array(data)) else { return .null }
        return json
    }

    public var pushToken: Data? { activity.pushToken }

    public var pushTokenUpdates: AsyncStream<Data> { forward(activity.pushTokenUpdates) { $0 } }

    public var activityState: LiveActivityState { Self.map(activity.activityState) }

    public var activityStateUpdates: AsyncStream<LiveActivityState> { forward(activity.activityStateUpdates) { Self.map($0) } }

    public var contentUpdates: AsyncStream<JSONValue> {
        forward(activity.contentUpdates) { content in
            guard let data = try? JSONEncoder().encode(content.state), let json = try? JSONValue.parse(Array(data)) else { return JSONValue.null }
            return json
        }
    }

    static func map(_ state: ActivityKit.ActivityState) -> LiveActivityState {
        switch state {
        case .active: .active
        case .ended: .ended
        case .dismissed: .dismissed
        case .stale: .stale
        // `.pending` (a scheduled start) is not in every SDK: matched by name so older SDKs compile.
        @unknown default: String(describing: state) == "pending" ? .pending : .active
        }
    }
}

/// `ActivityAuthorizationInfo`.
@available(iOS 17.2, *)
public struct ActivityKitAuthorization: LiveActivityAuthorization {
    public init() {}
    public var frequentPushesEnabled: Bool { ActivityAuthorizationInfo().frequentPushesEnabled }
    public var frequentPushEnablementUpdates: AsyncStream<Bool> {
        forward(ActivityAuthorizationInfo().frequentPushEnablementUpdates) { $0 }
    }
    public var areActivitiesEnabled: Bool { ActivityAuthorizationInfo().areActivitiesEnabled }
    public var activityEnablementUpdates: AsyncStream<Bool> {
        forward(ActivityAuthorizationInfo().activityEnablementUpdates) { $0 }
    }
}

/// An ActivityKit sequence as an `AsyncStream`, cancelled when the consumer goes away.
@available(iOS 17.2, *)
private func forward<S: AsyncSequence & Sendable, T: Sendable>(_ sequence: S, _ transform: @escaping @Sendable (S.Element) -> T) -> AsyncStream<T>
where S.Element: Sendable {
    AsyncStream { continuation in
        let task = Task {
            do { for try await element in sequence { continuation.yield(transform(element)) } } catch {}
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}
#endif

// Deployment target: LivelineKit's, iOS 17.0; everything here needs iOS 17.2 (push-to-start tokens)
// and says so. Built with the iOS 26 SDK (`ActivityState.pending`). Type-checked on Linux against
// Tests/AppleSDKSurface by scripts/check-ios-sources.sh.
#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import Foundation
import LivelineCore

// The ActivityKit side of the protocols in ActivityKitSurface.swift. Values are forwarded as they
// are; every decision (what to send, when, what to delete) is LiveActivityCoordinator's, which is
// tested on Linux through the same protocols. This file cannot be compiled there: keep it this thin.
//
// Concurrency: ActivityKit documents neither `Activity`, its sequences nor `ActivityState` as
// `Sendable`, so none of them leaves the task that obtained it. An `ActivityKitActivity` is a
// Sendable snapshot (id, attributes, token, state, read once) plus streams; each stream's task looks
// the activity up by id itself (`Activity<A>.activities`) and iterates its sequence there.

/// `Activity<Attributes>`'s static side for one attributes type.
@available(iOS 17.2, *)
public struct ActivityKitKind<Attributes: ActivityKit.ActivityAttributes & SendableMetatype>: LiveActivityKind {
    public let attributesType: String

    /// - Parameter attributesType: the name the service knows the type by (the Swift type's name by default).
    public init(attributesType: String = String(describing: Attributes.self)) {
        self.attributesType = attributesType
    }

    public var pushToStartToken: Data? { Activity<Attributes>.pushToStartToken }

    public var pushToStartTokenUpdates: AsyncStream<Data> {
        stream { continuation in
            for await token in Activity<Attributes>.pushToStartTokenUpdates { continuation.yield(token) }
        }
    }

    public var activities: [any LiveActivity] {
        Activity<Attributes>.activities.map { ActivityKitActivity($0) }
    }

    public var activityUpdates: AsyncStream<any LiveActivity> {
        stream { continuation in
            for await activity in Activity<Attributes>.activityUpdates { continuation.yield(ActivityKitActivity(activity)) }
        }
    }
}

/// One `Activity<Attributes>`: what it was when read, and its streams.
@available(iOS 17.2, *)
public struct ActivityKitActivity<Attributes: ActivityKit.ActivityAttributes & SendableMetatype>: LiveActivity {
    public let id: String
    public let attributes: JSONValue
    public let pushToken: Data?
    public let activityState: LiveActivityState

    /// Reads `activity` now; the streams find it again by its id.
    public init(_ activity: Activity<Attributes>) {
        id = activity.id
        attributes = Self.json(activity.attributes)
        pushToken = activity.pushToken
        activityState = Self.map(activity.activityState)
    }

    public var pushTokenUpdates: AsyncStream<Data> {
        let id = self.id
        return stream { continuation in
            guard let activity = Self.find(id) else { return }
            for await token in activity.pushTokenUpdates { continuation.yield(token) }
        }
    }

    public var activityStateUpdates: AsyncStream<LiveActivityState> {
        let id = self.id
        return stream { continuation in
            // Gone from `activities` before its task ran: it is over.
            guard let activity = Self.find(id) else { continuation.yield(.ended); return }
            for await state in activity.activityStateUpdates { continuation.yield(Self.map(state)) }
        }
    }

    public var contentUpdates: AsyncStream<JSONValue> {
        let id = self.id
        return stream { continuation in
            guard let activity = Self.find(id) else { return }
            for await content in activity.contentUpdates { continuation.yield(Self.json(content.state)) }
        }
    }

    static func find(_ id: String) -> Activity<Attributes>? {
        Activity<Attributes>.activities.first { $0.id == id }
    }

    static func json(_ value: some Encodable) -> JSONValue {
        guard let data = try? JSONEncoder().encode(value), let json = try? JSONValue.parse(Array(data)) else { return .null }
        return json
    }

    static func map(_ state: ActivityKit.ActivityState) -> LiveActivityState {
        switch state {
        case .pending: .pending
        case .active: .active
        case .stale: .stale
        case .ended: .ended
        case .dismissed: .dismissed
        @unknown default: .active
        }
    }
}

/// `ActivityAuthorizationInfo`.
@available(iOS 17.2, *)
public struct ActivityKitAuthorization: LiveActivityAuthorization {
    public init() {}
    public var frequentPushesEnabled: Bool { ActivityAuthorizationInfo().frequentPushesEnabled }
    public var frequentPushEnablementUpdates: AsyncStream<Bool> {
        stream { continuation in
            for await enabled in ActivityAuthorizationInfo().frequentPushEnablementUpdates { continuation.yield(enabled) }
        }
    }
    public var areActivitiesEnabled: Bool { ActivityAuthorizationInfo().areActivitiesEnabled }
    public var activityEnablementUpdates: AsyncStream<Bool> {
        stream { continuation in
            for await enabled in ActivityAuthorizationInfo().activityEnablementUpdates { continuation.yield(enabled) }
        }
    }
}

/// A stream fed by `body`, which runs in its own task and obtains the ActivityKit values it
/// iterates there; the task is cancelled when the consumer goes away, and the stream finishes when
/// `body` returns.
@available(iOS 17.2, *)
private func stream<T: Sendable>(_ body: @escaping @Sendable (AsyncStream<T>.Continuation) async -> Void) -> AsyncStream<T> {
    let (stream, continuation) = AsyncStream<T>.makeStream()
    let task = Task {
        await body(continuation)
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}
#endif

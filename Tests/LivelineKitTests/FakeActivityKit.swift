import Foundation
import LivelineCore
import LivelineKit
import Synchronization

/// A device activity as ActivityKit would show it to the app: current values plus streams the test
/// feeds. The portable half of the app side; not a stand-in for the service.
final class FakeActivity: LiveActivity {
    let id: String
    let attributes: JSONValue
    private let current: Mutex<(token: Data?, state: LiveActivityState)>
    let pushTokenUpdates: AsyncStream<Data>
    let activityStateUpdates: AsyncStream<LiveActivityState>
    let contentUpdates: AsyncStream<JSONValue>
    private let tokens: AsyncStream<Data>.Continuation
    private let states: AsyncStream<LiveActivityState>.Continuation
    private let contents: AsyncStream<JSONValue>.Continuation

    init(id: String = UUID().uuidString, logicalID: String?, token: Data? = nil, state: LiveActivityState = .active) {
        self.id = id
        var attributes: JSONObject = ["flightNumber": "LL 1234"]
        if let logicalID { attributes[ActivitySchema.activityIDKey] = .string(logicalID) }
        self.attributes = .object(attributes)
        current = Mutex((token, state))
        (pushTokenUpdates, tokens) = AsyncStream.makeStream()
        (activityStateUpdates, states) = AsyncStream.makeStream()
        (contentUpdates, contents) = AsyncStream.makeStream()
    }

    var pushToken: Data? { current.withLock { $0.token } }
    var activityState: LiveActivityState { current.withLock { $0.state } }

    /// The current value changes, and the stream does not yield (the app was not observing).
    func replaceSilently(_ token: Data) { current.withLock { $0.token = token } }

    /// ActivityKit issues or rotates the token: the current value changes and the stream yields.
    func issue(_ token: Data) {
        current.withLock { $0.token = token }
        tokens.yield(token)
    }

    /// The stream yields a token without the current value changing (a re-delivery).
    func redeliver(_ token: Data) { tokens.yield(token) }

    func change(to state: LiveActivityState) {
        current.withLock { $0.state = state }
        states.yield(state)
    }

    func display(_ content: JSONValue) { contents.yield(content) }
}

/// `Activity<FlightAttributes>`'s static side.
final class FakeKind: LiveActivityKind {
    let attributesType: String
    private let current: Mutex<(token: Data?, activities: [FakeActivity])>
    let pushToStartTokenUpdates: AsyncStream<Data>
    let activityUpdates: AsyncStream<any LiveActivity>
    private let tokens: AsyncStream<Data>.Continuation
    private let updates: AsyncStream<any LiveActivity>.Continuation

    init(_ type: String = "FlightAttributes", pushToStartToken: Data? = nil, activities: [FakeActivity] = []) {
        attributesType = type
        current = Mutex((pushToStartToken, activities))
        (pushToStartTokenUpdates, tokens) = AsyncStream.makeStream()
        (activityUpdates, updates) = AsyncStream.makeStream()
    }

    var pushToStartToken: Data? { current.withLock { $0.token } }
    var activities: [any LiveActivity] { current.withLock { $0.activities.filter { !$0.activityState.isOver } } }

    func replacePushToStartSilently(_ token: Data) { current.withLock { $0.token = token } }

    func issuePushToStart(_ token: Data) {
        current.withLock { $0.token = token }
        tokens.yield(token)
    }

    /// An activity starts (by the app or by a push-to-start).
    func start(_ activity: FakeActivity) {
        current.withLock { $0.activities.append(activity) }
        updates.yield(activity)
    }
}

final class FakeAuthorization: LiveActivityAuthorization {
    private let enabled: Mutex<Bool>
    let frequentPushEnablementUpdates: AsyncStream<Bool>
    private let continuation: AsyncStream<Bool>.Continuation
    let activityEnablementUpdates: AsyncStream<Bool>
    private let enablement: AsyncStream<Bool>.Continuation
    init(_ enabled: Bool) {
        self.enabled = Mutex(enabled)
        (frequentPushEnablementUpdates, continuation) = AsyncStream.makeStream()
        (activityEnablementUpdates, enablement) = AsyncStream.makeStream()
    }
    /// The user switches Live Activities for the app off or on in Settings.
    func setActivitiesEnabled(_ value: Bool) { enablement.yield(value) }
    var frequentPushesEnabled: Bool { enabled.withLock { $0 } }
    func set(_ value: Bool) {
        enabled.withLock { $0 = value }
        continuation.yield(value)
    }
}

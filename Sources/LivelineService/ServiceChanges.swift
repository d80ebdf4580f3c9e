import Foundation
import LivelineStore
import Synchronization

/// What changed in the service's registry or outbox, for pages that show it live
/// (`liveline serve --dashboard`). It names activities, not rows: a reader asks the store for
/// their state when it wants it.
public enum ServiceChange: Sendable, Hashable {
    /// Tokens, sends or delivery states of these logical activities changed.
    case activities(Set<String>)
    /// A change that may touch any activity: a device and all its tokens were deleted.
    case everything
}

/// The subscribers to the service's changes. Publishing with no subscriber costs one lock.
final class ServiceChanges: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<ServiceChange>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// A stream of every change from now on; it keeps the newest 1,024 when its reader is slow.
    func subscribe() -> AsyncStream<ServiceChange> {
        let (stream, continuation) = AsyncStream<ServiceChange>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.subscribers[s.nextID] = continuation
            return s.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Yields `change` to every subscriber. Without a subscriber it costs one lock: the change
    /// (a set of activity ids) is not even built, so the outbox's and the API's hot paths pay nothing more.
    func publish(_ change: @autoclosure () -> ServiceChange) {
        let subscribers = state.withLock { $0.subscribers.isEmpty ? [] : Array($0.subscribers.values) }
        guard !subscribers.isEmpty else { return }
        let change = change()
        for subscriber in subscribers { subscriber.yield(change) }
    }

    /// Rows of these activities were claimed or their verdicts recorded.
    func outboxChanged(_ rows: [DeliveryRecord]) {
        if rows.isEmpty { return }
        publish(.activities(Set(rows.map(\.activityID))))
    }

    /// A request was answered: a write that succeeded on an activity's route (a send accepted, a
    /// token registered or deleted, a receipt) changed that activity; deleting a device may change any.
    func answered(_ route: Route, _ params: [String: String], status: Int) {
        guard route.method != "GET", (200..<300).contains(status) else { return }
        if let activityID = params["activityID"] {
            publish(.activities([activityID]))
        } else if route.method == "DELETE", route.pattern == "/v1/devices/{deviceID}" {
            publish(.everything)
        }
    }
}

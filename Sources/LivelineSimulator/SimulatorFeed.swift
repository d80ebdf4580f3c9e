import Foundation
import Synchronization

/// One change in a simulator, as it happens: what a dashboard or a test subscribes to instead of
/// polling `log()` and `events()`.
public enum SimulatorChange: Sendable {
    /// A push was answered (accepted, rejected, or dropped on every device); `activities` are the
    /// activities it reached, as they were right after it.
    case push(PushRecord, activities: [ActivitySnapshot])
    /// A token or activity-state event (`Simulator.events()` gets it too).
    case event(SimulatorEvent)
    /// A device was added (or its apps changed through the control API).
    case device(String)
    /// Someone tapped a button or toggle in a Live Activity (`SimulatorControl`).
    case interaction(SimulatorInteraction)
    /// Someone opened a link of a Live Activity (`SimulatorControl`).
    case link(SimulatorLinkOpen)
    /// The clock was moved on to this moment (`SimulatorControl`).
    case clock(Date)
}

/// The subscribers of one simulator's changes. Publishing costs one atomic load while nobody
/// listens; each subscriber has its own buffer (the newest `bufferLimit` changes are kept when it
/// falls behind).
final class SimulatorFeed: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<SimulatorChange>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)
    private let listening = Atomic<Int>(0)
    let bufferLimit: Int

    init(bufferLimit: Int = 100_000) {
        self.bufferLimit = bufferLimit
    }

    /// Whether anyone listens (publish only builds a change when someone does).
    var hasSubscribers: Bool { listening.load(ordering: .relaxed) > 0 }

    /// Hands `change` to every subscriber (never blocks: each buffers).
    func publish(_ change: @autoclosure () -> SimulatorChange) {
        guard hasSubscribers else { return }
        let value = change()
        subscribers.withLock { list in
            for continuation in list.values { continuation.yield(value) }
        }
    }

    /// A stream of every change from now on; it ends when the consumer stops iterating.
    func subscribe() -> AsyncStream<SimulatorChange> {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<SimulatorChange>.makeStream(bufferingPolicy: .bufferingNewest(bufferLimit))
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            if self.subscribers.withLock({ $0.removeValue(forKey: id) }) != nil {
                self.listening.subtract(1, ordering: .relaxed)
            }
        }
        subscribers.withLock { $0[id] = continuation }
        listening.add(1, ordering: .relaxed)
        return stream
    }
}

extension Simulator {
    /// Every change from now on (pushes with their verdicts, token and state events, devices
    /// added, interactions, links, clock moves), as it happens. Iterate it in a task; the
    /// subscription ends when the iteration does.
    public func changes() -> AsyncStream<SimulatorChange> {
        state.withLock { $0.feed.subscribe() }
    }

    /// Tells subscribers about `change` (for the control API, outside the simulator's own rules).
    func publish(_ change: SimulatorChange) {
        state.withLock { $0.feed.publish(change) }
    }
}

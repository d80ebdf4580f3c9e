import Foundation
import Synchronization

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

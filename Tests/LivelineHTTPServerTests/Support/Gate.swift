import Foundation
import Synchronization

/// A one-way signal between a handler and a test, whose every wait has a deadline (by default
/// 120 s: in the whole parallel suite other tests hold both cooperative threads for tens of
/// seconds, so a shorter one fails tests that are only waiting for a thread).
///
/// A wait is carried out by a thread of its own (an `NSCondition` wait with a time limit), never on
/// one of Swift concurrency's cooperative threads, so the deadline fires even when those threads
/// are all busy, and a waiting test never takes one away from the handlers it waits for.
final class Gate: @unchecked Sendable {
    /// `isOpen` is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var opened = false

    func open() {
        condition.lock()
        opened = true
        condition.broadcast()
        condition.unlock()
    }

    var isOpen: Bool {
        condition.lock()
        defer { condition.unlock() }
        return opened
    }

    /// Waits until `open()` or until `timeout` has passed; whether it was opened.
    func wait(for timeout: Duration = .seconds(120)) async -> Bool {
        let (seconds, attoseconds) = timeout.components
        let interval = Double(seconds) + Double(attoseconds) / 1e18
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let thread = Thread { [self] in
                let deadline = Date(timeIntervalSinceNow: interval)
                condition.lock()
                while !opened && condition.wait(until: deadline) {}
                let result = opened
                condition.unlock()
                continuation.resume(returning: result)
            }
            thread.name = "test-gate-wait"
            thread.start()
        }
    }

    /// Waits until `open()`; throws, naming `what`, when that takes longer than `timeout`.
    func require(_ what: String, within timeout: Duration = .seconds(120)) async throws {
        guard await wait(for: timeout) else {
            throw ClientError(description: "timed out after \(timeout) waiting for \(what)")
        }
    }
}

/// Values recorded by handlers, read by the test.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

import Foundation
import Synchronization

// Waiting in tests, always with a deadline.
//
// A test never waits without a bound and never sleeps for readiness: it waits for the real
// signal (a condition, a semaphore, a line of output, a task's end) for at most a stated time,
// and past it fails with a `TestingError` that says what did not happen and how long it was given.
//
// - `until(_:within:poll:_:)`: polls a condition from a task (suspending between polls, so no
//   cooperative thread is held).
// - `blockingUntil(_:within:poll:_:)`: the same for synchronous code on a thread of its own.
// - `withDeadline(_:within:_:)` / `finished(within:_:)`: an async operation's value, or a failure
//   once the limit passes, even when the operation ignores cancellation.
// - `DispatchSemaphore.wait(within:_:)`, `NSCondition.wait(within:_:until:)`: blocking waits
//   with a deadline, for threads the test owns (a handler on a server's worker thread).
// - `TestSignal`: a counter that one side raises and a task awaits with a deadline, instead of a
//   semaphore waited on a cooperative thread.
//
// Limits are generous (seconds) because the machine running the tests may be loaded: a bound
// exists to turn a hang into a failure with a message, not to measure speed.
//
// The waits made of tasks (`until`, `withDeadline`, `TestSignal`) count only time in which this
// process's tasks could run (`RunnableClock`). Swift concurrency has one cooperative thread per
// core (two on the CI machine), and a synchronous test that blocks one (libpq, SQLite, a child
// process waited for) holds it for seconds; with both held, no task runs: not the waiter, not
// what it waits for. A wall-clock deadline would then expire while the awaited work sat in the
// queue, and fail a test for someone else's blocking. A pool blocked for good never ends such a
// wait: that is a hang of the whole process, which `scripts/with-deadline.sh` reports with stacks.
// The blocking waits (`blockingUntil`, the semaphore, group and condition waits) run on threads
// of their own and use the wall clock.

/// The default bound of a wait: long enough for a loaded 2-core machine, short enough that a hang
/// fails the test well before the run's own deadline.
public let defaultWaitLimit: Duration = .seconds(20)

/// The message of a wait that ran out.
func waitFailure(_ what: String, _ limit: Duration, detail: String? = nil, wall: Duration? = nil) -> TestingError {
    let starved = wall.flatMap { $0 > limit + .seconds(1) ? " (\($0) on the clock: the cooperative threads were held elsewhere meanwhile)" : nil } ?? ""
    return TestingError("waited \(limit) for \(what), in vain" + starved + (detail.map { ": \($0)" } ?? ""))
}

/// Time during which this process's tasks could run, for deadlines measured by a task: each step
/// between two readings counts for at most `step` (a poll interval plus scheduling slack), so the
/// time a task spent queued behind blocked cooperative threads is not charged to its wait.
public struct RunnableClock: Sendable {
    /// The most one reading counts for.
    public let step: Duration
    /// Time counted so far.
    public private(set) var elapsed: Duration = .zero
    /// Wall-clock time since the start.
    public var wall: Duration { ContinuousClock.now - start }
    private let start = ContinuousClock.now
    private var last = ContinuousClock.now

    /// A clock whose readings count for at most `step` each.
    public init(step: Duration) { self.step = step }

    /// Counts the time since the last reading (at most `step`) and returns the total.
    @discardableResult
    public mutating func read() -> Duration {
        let now = ContinuousClock.now
        elapsed += min(now - last, step)
        last = now
        return elapsed
    }
}

/// Suspends for `limit` of runnable time (`RunnableClock`), in slices; returns early when the
/// task is cancelled. Returns the wall-clock time it took.
@discardableResult
func sleepRunnable(_ limit: Duration) async -> Duration {
    let slice = Duration.milliseconds(50)
    var clock = RunnableClock(step: slice + .milliseconds(100))
    while clock.read() < limit {
        try? await Task.sleep(for: min(slice, limit - clock.elapsed))
        if Task.isCancelled { break }
    }
    return clock.wall
}

/// `limit` in whole nanoseconds, for Dispatch.
func nanoseconds(_ limit: Duration) -> Int {
    let (seconds, overflow) = limit.components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
    return overflow ? Int.max : Int(clamping: seconds.addingReportingOverflow(limit.components.attoseconds / 1_000_000_000).partialValue)
}

/// Returns once `condition` holds, polling it every `interval` for at most `limit` of runnable
/// time (`RunnableClock`: time spent waiting for a cooperative thread is not counted).
/// - Parameter what: what the condition means ("the server to log 3 requests"), for the message.
/// - Throws: `TestingError` naming `what` and `limit` when the condition still fails at the
///   deadline, or what `condition` throws; `CancellationError` when the task is cancelled.
public func until(
    _ what: String,
    within limit: Duration = defaultWaitLimit,
    poll interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async throws {
    var clock = RunnableClock(step: interval + .milliseconds(100))
    while true {
        if try await condition() { return }
        guard clock.read() < limit else { throw waitFailure(what, limit, wall: clock.wall) }
        try await Task.sleep(for: interval)
    }
}

/// `until` for synchronous code: polls `condition` every `interval`, blocking the calling thread
/// (never call it on a cooperative thread: use `until` there).
/// - Throws: `TestingError` naming `what` and `limit` when the condition still fails at the deadline.
public func blockingUntil(
    _ what: String,
    within limit: Duration = defaultWaitLimit,
    poll interval: Duration = .milliseconds(5),
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + limit
    while true {
        if try condition() { return }
        guard ContinuousClock.now < deadline else { throw waitFailure(what, limit) }
        Thread.sleep(forTimeInterval: Double(nanoseconds(interval)) / 1e9)
    }
}

/// `body`'s value, or a failure once `limit` of runnable time (`RunnableClock`) passes. `body` runs in a task of its own, which is
/// cancelled at the deadline and, if it ignores that, left to finish: the caller does not wait
/// for it (a task group would).
/// - Throws: `TestingError` naming `what` and `limit` at the deadline, or what `body` throws.
public func withDeadline<T: Sendable>(
    _ what: String,
    within limit: Duration = defaultWaitLimit,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = Race<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.begin(continuation)
            let work = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            let timer = Task {
                let wall = await sleepRunnable(limit)
                if Task.isCancelled { return }
                // A body whose wake-up was queued before this one gets its turn first.
                await Task.yield()
                race.finish(.failure(waitFailure(what, limit, wall: wall)))
                work.cancel()
            }
            race.hold(work: work, timer: timer)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// `body`'s value, or nil when `limit` passed first (see `withDeadline`, which throws instead).
public func finished<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    try? await withDeadline("the operation", within: limit) { await body() }
}

/// The first outcome of a body and its timer, delivered once; the loser is cancelled.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var pending: Result<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var done = false
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { s -> Result<T, any Error>? in
            if let pending = s.pending { s.pending = nil; return pending }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func hold(work: Task<Void, Never>, timer: Task<Void, Never>) {
        let done = state.withLock { s -> Bool in
            if !s.done { s.work = work; s.timer = timer }
            return s.done
        }
        if done { work.cancel(); timer.cancel() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, work, timer) = state.withLock { s -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?) in
            guard !s.done else { return (nil, nil, nil) }
            s.done = true
            defer { s.continuation = nil; s.work = nil; s.timer = nil }
            if s.continuation == nil { s.pending = result }
            return (s.continuation, s.work, s.timer)
        }
        timer?.cancel()
        if case .failure = result { work?.cancel() }
        continuation?.resume(with: result)
    }
}

extension DispatchSemaphore {
    /// Waits for a signal for at most `limit`, blocking the calling thread (a thread the test
    /// owns, such as a server's handler thread; from a task, prefer `TestSignal`).
    /// - Throws: `TestingError` naming `what` and `limit` when no signal came in time.
    public func wait(within limit: Duration = defaultWaitLimit, _ what: String) throws {
        guard wait(timeout: .now() + .nanoseconds(nanoseconds(limit))) == .success else { throw waitFailure(what, limit) }
    }
}

extension DispatchGroup {
    /// Waits for every member to leave for at most `limit`, blocking the calling thread.
    /// - Throws: `TestingError` naming `what` and `limit` when some are still in.
    public func wait(within limit: Duration = defaultWaitLimit, _ what: String) throws {
        guard wait(timeout: .now() + .nanoseconds(nanoseconds(limit))) == .success else { throw waitFailure(what, limit) }
    }
}

extension NSCondition {
    /// Locks, waits until `predicate` holds (re-checked on every signal) for at most `limit`,
    /// and unlocks.
    /// - Throws: `TestingError` naming `what` and `limit` when the predicate still fails at the deadline.
    public func wait(within limit: Duration = defaultWaitLimit, _ what: String, until predicate: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18)
        lock()
        defer { unlock() }
        while !predicate() {
            if !wait(until: deadline) && !predicate() { throw waitFailure(what, limit) }
        }
    }
}

/// A count that one side raises (from any thread) and a task awaits with a deadline: the
/// suspending stand-in for a semaphore, which would block a cooperative thread.
public final class TestSignal: Sendable {
    private struct State {
        var count = 0
        var waiters: [(id: UInt64, reaching: Int, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
        var expired: Set<UInt64> = []  // timers that fired before their wait was registered
    }

    private let state = Mutex(State())

    public init() {}

    /// How many times `signal` was called.
    public var count: Int { state.withLock { $0.count } }

    /// Raises the count by one and wakes the waits it satisfies.
    public func signal() {
        let woken = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            s.count += 1
            let count = s.count
            var woken: [CheckedContinuation<Bool, Never>] = []
            s.waiters.removeAll { waiter in
                guard waiter.reaching <= count else { return false }
                woken.append(waiter.continuation)
                return true
            }
            return woken
        }
        for continuation in woken { continuation.resume(returning: true) }
    }

    /// Returns once the count reaches `count` (by default 1: the first signal), waiting at most
    /// `limit` of runnable time (`RunnableClock`).
    /// - Throws: `TestingError` naming `what`, `limit` and the count reached, past `limit`.
    public func wait(reaching count: Int = 1, within limit: Duration = defaultWaitLimit, _ what: String) async throws {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        let started = ContinuousClock.now
        let timer = Task {
            await sleepRunnable(limit)
            if !Task.isCancelled { self.expire(id) }
        }
        defer { timer.cancel() }
        let reached = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now = state.withLock { s -> Bool? in
                if s.count >= count { return true }
                if s.expired.remove(id) != nil { return false }
                s.waiters.append((id, count, continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        guard reached else { throw waitFailure(what, limit, detail: "signalled \(self.count) of \(count) times", wall: ContinuousClock.now - started) }
    }

    private func expire(_ id: UInt64) {
        let expired = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let index = s.waiters.firstIndex(where: { $0.id == id }) else {
                s.expired.insert(id)
                return nil
            }
            return s.waiters.remove(at: index).continuation
        }
        expired?.resume(returning: false)
    }
}

import Synchronization

/// A counting semaphore for async code: at most `limit` holders; others wait in FIFO order.
///
/// A wait ends when a slot frees up, when its deadline passes or when its task is cancelled,
/// whichever comes first; a wait that ends without a slot takes none.
final class AsyncLimiter: Sendable {
    /// One caller's wait, by id: registered (not yet queued), given up early, or queued.
    private enum Entry {
        case registered
        case abandoned
        case waiting(CheckedContinuation<Bool, Never>)
    }

    private struct State {
        var limit: Int
        var held = 0
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        /// Queued ids in arrival order; ids whose wait ended early are skipped when popped.
        var queue: [UInt64] = []
        var head = 0
        var waiting = 0

        mutating func popWaiter() -> CheckedContinuation<Bool, Never>? {
            while head < queue.count {
                let id = queue[head]
                head += 1
                if head > 64, head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                if case .waiting(let c) = entries.removeValue(forKey: id) {
                    waiting -= 1
                    return c
                }
            }
            return nil
        }
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(limit: max(1, limit))) }

    /// Waits for a slot until `deadline` or until the calling task is cancelled.
    ///
    /// - Returns: true with a slot held (give it back with `release`); false when the deadline
    ///   passed or the task was cancelled first (`Task.isCancelled` tells which), holding none.
    func acquire(until deadline: ContinuousClock.Instant) async -> Bool {
        let id = state.withLock { s -> UInt64? in
            if s.held < s.limit, s.waiting == 0 {
                s.held += 1
                return nil
            }
            s.nextID += 1
            s.entries[s.nextID] = .registered
            return s.nextID
        }
        guard let id else { return true }
        // The timer ends the wait at the deadline; it is cancelled as soon as the wait is over.
        let timer = Task { [self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { abandon(id) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { s -> Bool? in
                    if case .abandoned = s.entries[id] {
                        s.entries[id] = nil
                        return false
                    }
                    if s.held < s.limit, s.waiting == 0 {
                        s.entries[id] = nil
                        s.held += 1
                        return true
                    }
                    s.entries[id] = .waiting(continuation)
                    s.queue.append(id)
                    s.waiting += 1
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            abandon(id)
        }
    }

    /// Ends wait `id` without a slot, unless it already got one.
    private func abandon(_ id: UInt64) {
        let continuation = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            switch s.entries[id] {
            case .registered:
                s.entries[id] = .abandoned
                return nil
            case .waiting(let c):
                s.entries[id] = nil
                s.waiting -= 1
                return c
            case .abandoned, nil:
                return nil
            }
        }
        continuation?.resume(returning: false)
    }

    /// Frees a slot, handing it to the oldest waiter.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            if let next = s.popWaiter() { return next }  // the slot passes on
            s.held -= 1
            return nil
        }
        next?.resume(returning: true)
    }

    /// Changes the limit; raising it wakes waiters.
    func setLimit(_ limit: Int) {
        let woken = state.withLock { s -> [CheckedContinuation<Bool, Never>] in
            s.limit = max(1, limit)
            var woken: [CheckedContinuation<Bool, Never>] = []
            while s.held < s.limit, let next = s.popWaiter() {
                s.held += 1
                woken.append(next)
            }
            return woken
        }
        for c in woken { c.resume(returning: true) }
    }

    /// Holders now.
    var held: Int { state.withLock { $0.held } }
}

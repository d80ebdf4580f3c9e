import Synchronization

/// A counting semaphore for async code: at most `limit` holders; others wait in FIFO order.
final class AsyncLimiter: Sendable {
    private struct State {
        var limit: Int
        var held = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var head = 0
        var waiting: Int { waiters.count - head }

        mutating func popWaiter() -> CheckedContinuation<Void, Never>? {
            guard head < waiters.count else { return nil }
            let c = waiters[head]
            head += 1
            if head > 64, head * 2 > waiters.count {
                waiters.removeFirst(head)
                head = 0
            }
            return c
        }
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(limit: max(1, limit))) }

    /// Waits for a slot.
    func acquire() async {
        if state.withLock({ s -> Bool in
            guard s.held < s.limit, s.waiting == 0 else { return false }
            s.held += 1
            return true
        }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.held < s.limit && s.waiting == 0 { s.held += 1; return true }
                s.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Frees a slot, handing it to the oldest waiter.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if let next = s.popWaiter() { return next }  // the slot passes on
            s.held -= 1
            return nil
        }
        next?.resume()
    }

    /// Changes the limit; raising it wakes waiters.
    func setLimit(_ limit: Int) {
        let woken = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.limit = max(1, limit)
            var woken: [CheckedContinuation<Void, Never>] = []
            while s.held < s.limit, let next = s.popWaiter() {
                s.held += 1
                woken.append(next)
            }
            return woken
        }
        for c in woken { c.resume() }
    }

    /// Holders now.
    var held: Int { state.withLock { $0.held } }
}

import Synchronization

/// A counting semaphore for async code: at most `limit` holders; others wait in FIFO order.
final class AsyncLimiter: Sendable {
    private struct State {
        var limit: Int
        var held = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    init(limit: Int) { state = Mutex(State(limit: max(1, limit))) }

    /// Waits for a slot.
    func acquire() async {
        if state.withLock({ s in s.held < s.limit && s.waiters.isEmpty ? { s.held += 1; return true }() : false }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.held < s.limit && s.waiters.isEmpty { s.held += 1; return true }
                s.waiters.append((0, continuation))
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Frees a slot, handing it to the oldest waiter.
    func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if !s.waiters.isEmpty { return s.waiters.removeFirst().continuation }  // the slot passes on
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
            while s.held < s.limit, !s.waiters.isEmpty {
                s.held += 1
                woken.append(s.waiters.removeFirst().continuation)
            }
            return woken
        }
        for c in woken { c.resume() }
    }

    /// Holders now.
    var held: Int { state.withLock { $0.held } }
}

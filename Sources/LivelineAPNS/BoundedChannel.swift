import Synchronization

/// A single-consumer queue holding at most `capacity` elements: `send` waits while it is full;
/// the consumer takes everything buffered at once with `nextBatch`, so a fast stream of results
/// wakes it once per batch rather than once per element. `finish()` ends it; after that `send`
/// drops its element.
final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var finished = false
        var consumer: CheckedContinuation<Void, Never>?
        var producers: [(Element, CheckedContinuation<Void, Never>)] = []
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds an element, waiting while the channel is full.
    func send(_ element: Element) async {
        let (done, consumer) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?) in
            if s.finished { return (true, nil) }
            guard s.buffer.count < capacity else { return (false, nil) }
            s.buffer.append(element)
            defer { s.consumer = nil }
            return (true, s.consumer)
        }
        consumer?.resume()
        if done { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let (resumeNow, consumer) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?) in
                if s.finished { return (true, nil) }
                if s.buffer.count < capacity {
                    s.buffer.append(element)
                    defer { s.consumer = nil }
                    return (true, s.consumer)
                }
                s.producers.append((element, c))
                return (false, nil)
            }
            consumer?.resume()
            if resumeNow { c.resume() }
        }
    }

    /// Everything buffered (waiting while empty); empty once finished and drained.
    func nextBatch() async -> [Element] {
        while true {
            let (batch, woken, ended) = state.withLock { s -> ([Element], [CheckedContinuation<Void, Never>], Bool) in
                guard !s.buffer.isEmpty else { return ([], [], s.finished) }
                var batch: [Element] = []
                swap(&batch, &s.buffer)
                s.buffer.reserveCapacity(min(capacity, 64))
                // Waiting producers move into the emptied buffer.
                var woken: [CheckedContinuation<Void, Never>] = []
                while !s.producers.isEmpty, s.buffer.count < capacity {
                    let (element, c) = s.producers.removeFirst()
                    s.buffer.append(element)
                    woken.append(c)
                }
                return (batch, woken, false)
            }
            for c in woken { c.resume() }
            if !batch.isEmpty || ended { return batch }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if !s.buffer.isEmpty || s.finished { return true }
                    s.consumer = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    /// Ends the channel: the consumer gets what is buffered, then nothing; waiting producers are released.
    func finish() {
        let (consumer, producers) = state.withLock { s -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            s.finished = true
            defer { s.consumer = nil; s.producers = [] }
            return (s.consumer, s.producers.map(\.1))
        }
        consumer?.resume()
        for p in producers { p.resume() }
    }
}

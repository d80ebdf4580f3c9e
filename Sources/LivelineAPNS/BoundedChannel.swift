import Synchronization

/// The hand-off between a producer that starts work and a single consumer of its results, with
/// bounded memory: at most `capacity` items in flight (admitted, result not yet delivered) and at
/// most `2 × capacity` admitted but not yet taken by the consumer.
///
/// The producer calls `admit()` before starting an item (waiting while either bound is reached),
/// whoever finishes it calls `deliver(_:)` (never blocks: it may run on a connection's loop
/// thread), and the consumer takes everything buffered at once with `nextBatch()`. Wake-ups are
/// batched both ways: the consumer wakes once `capacity / 4` (at least 1) results wait or nothing
/// is in flight, the producer once `capacity / 8` of room has opened. `finish()` ends it; later deliveries are dropped.
final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var inFlight = 0
        var finished = false
        var closed = false
        var openProducers: Int
        var consumer: CheckedContinuation<Void, Never>?
        var producers: [CheckedContinuation<Bool, Never>] = []
    }

    private let capacity: Int
    private let slack: Int
    /// Results buffered before a waiting consumer is woken: each wake-up costs a thread hand-off,
    /// so the consumer takes a quarter of the window at a time.
    private let consumerBatch: Int
    private let state: Mutex<State>

    init(capacity: Int, producers: Int = 1) {
        state = Mutex(State(openProducers: max(1, producers)))
        self.capacity = max(1, capacity)
        slack = max(1, self.capacity / 8)
        consumerBatch = max(1, self.capacity / 4)
    }

    private func hasRoom(_ s: State, needed: Int) -> Bool {
        s.inFlight + needed <= capacity && s.inFlight + s.buffer.count + needed <= 2 * capacity
    }

    /// What `tryAdmit` found.
    enum Admission { case admitted, full, finished }

    /// Reserves a slot for one item if there is room now, without waiting.
    func tryAdmit() -> Admission {
        state.withLock { s in
            if s.finished { return .finished }
            guard hasRoom(s, needed: 1) else { return .full }
            s.inFlight += 1
            return .admitted
        }
    }

    /// Gives back a slot admitted for an item that did not come (the source ended).
    func deliverNothing() {
        let (consumer, producers, finished) = state.withLock { s in
            s.inFlight -= 1
            var consumer: CheckedContinuation<Void, Never>?
            if s.inFlight == 0 {
                consumer = s.consumer
                s.consumer = nil
            }
            return (consumer, wakeProducers(&s), s.finished)
        }
        consumer?.resume()
        for p in producers { p.resume(returning: !finished) }
    }

    /// Whether `finish()` was called (the consumer went away).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Reserves a slot for one item, waiting while the bounds are reached; false once finished.
    func admit() async -> Bool {
        let admitted = state.withLock { s -> Bool? in
            if s.finished { return false }
            guard hasRoom(s, needed: 1) else { return nil }
            s.inFlight += 1
            return true
        }
        if let admitted { return admitted }
        return await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            let now = state.withLock { s -> Bool? in
                if s.finished { return false }
                if hasRoom(s, needed: 1) {
                    s.inFlight += 1
                    return true
                }
                s.producers.append(c)
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }

    /// The waiting producers to wake now that enough room opened (call inside the lock); each
    /// woken one holds an admitted slot unless the channel is finished.
    private func wakeProducers(_ s: inout State) -> [CheckedContinuation<Bool, Never>] {
        guard !s.producers.isEmpty else { return [] }
        if s.finished {
            defer { s.producers = [] }
            return s.producers
        }
        var woken: [CheckedContinuation<Bool, Never>] = []
        while !s.producers.isEmpty, hasRoom(s, needed: slack) || (s.inFlight == 0 && s.buffer.isEmpty) {
            woken.append(s.producers.removeFirst())
            s.inFlight += 1
        }
        return woken
    }

    /// Delivers the result of an admitted item.
    func deliver(_ element: Element) {
        let (consumer, producers, finished) = state.withLock { s in
            s.inFlight -= 1
            if !s.finished { s.buffer.append(element) }
            // The consumer wakes once a batch is worth taking, or when nothing else is coming soon.
            var consumer: CheckedContinuation<Void, Never>?
            if s.buffer.count >= consumerBatch || s.inFlight == 0 || s.finished {
                consumer = s.consumer
                s.consumer = nil
            }
            return (consumer, wakeProducers(&s), s.finished)
        }
        consumer?.resume()
        for p in producers { p.resume(returning: !finished) }
    }

    /// Everything buffered (waiting while empty); empty once closed with nothing in flight, or finished.
    func nextBatch() async -> [Element] {
        while true {
            let (batch, producers, ended, finished) = state.withLock { s -> ([Element], [CheckedContinuation<Bool, Never>], Bool, Bool) in
                guard !s.buffer.isEmpty else { return ([], [], (s.closed && s.inFlight == 0) || s.finished, s.finished) }
                var batch: [Element] = []
                swap(&batch, &s.buffer)
                s.buffer.reserveCapacity(min(capacity, 64))
                return (batch, wakeProducers(&s), false, s.finished)
            }
            for p in producers { p.resume(returning: !finished) }
            if !batch.isEmpty || ended { return batch }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if !s.buffer.isEmpty || (s.closed && s.inFlight == 0) || s.finished { return true }
                    s.consumer = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    /// One producer is done; after the last (of `producerCount`), no more items will be admitted:
    /// the consumer gets what is buffered and still in flight, then nothing.
    func close() {
        let consumer = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.openProducers -= 1
            guard s.openProducers <= 0 else { return nil }
            s.closed = true
            defer { s.consumer = nil }
            return s.consumer
        }
        consumer?.resume()
    }

    /// Ends the channel at once (the consumer went away): a waiting producer is released with
    /// false, later deliveries are dropped.
    func finish() {
        let (consumer, producers) = state.withLock { s in
            s.finished = true
            s.buffer = []
            defer { s.consumer = nil; s.producers = [] }
            return (s.consumer, s.producers)
        }
        consumer?.resume()
        for p in producers { p.resume(returning: false) }
    }
}

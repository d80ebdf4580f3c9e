import Synchronization

/// A single-consumer queue holding at most `capacity` elements: `send` waits while it is full,
/// `next` waits while it is empty. `finish()` ends it; after that `send` drops its element.
final class BoundedChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var finished = false
        var consumer: CheckedContinuation<Element?, Never>?
        var producers: [(Element, CheckedContinuation<Void, Never>)] = []
        var count: Int { buffer.count - head }
    }

    private enum SendAction { case done, resume(CheckedContinuation<Element?, Never>), wait }
    private enum NextAction { case value(Element, CheckedContinuation<Void, Never>?), end, wait }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Adds an element, waiting while the channel is full.
    func send(_ element: Element) async {
        let action = state.withLock { s -> SendAction in
            if s.finished { return .done }
            if let consumer = s.consumer {
                s.consumer = nil
                return .resume(consumer)
            }
            if s.count < capacity {
                s.buffer.append(element)
                return .done
            }
            return .wait
        }
        switch action {
        case .done: return
        case .resume(let consumer): consumer.resume(returning: element)
        case .wait:
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.finished { return true }
                    if s.count < capacity {
                        s.buffer.append(element)
                        return true
                    }
                    s.producers.append((element, c))
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
    }

    /// The next element, or `nil` once finished and empty.
    func next() async -> Element? {
        let action = state.withLock { s -> NextAction in
            if s.count > 0 {
                let element = s.buffer[s.head]
                s.head += 1
                var woken: CheckedContinuation<Void, Never>?
                if !s.producers.isEmpty {
                    let (waiting, c) = s.producers.removeFirst()
                    s.buffer.append(waiting)
                    woken = c
                }
                if s.head > 64, s.head * 2 > s.buffer.count {
                    s.buffer.removeFirst(s.head)
                    s.head = 0
                }
                return .value(element, woken)
            }
            return s.finished ? .end : .wait
        }
        switch action {
        case .value(let element, let woken):
            woken?.resume()
            return element
        case .end: return nil
        case .wait:
            return await withCheckedContinuation { (c: CheckedContinuation<Element?, Never>) in
                let immediate = state.withLock { s -> (Element?, CheckedContinuation<Void, Never>?)? in
                    if s.count > 0 {
                        let element = s.buffer[s.head]
                        s.head += 1
                        var woken: CheckedContinuation<Void, Never>?
                        if !s.producers.isEmpty {
                            let (waiting, p) = s.producers.removeFirst()
                            s.buffer.append(waiting)
                            woken = p
                        }
                        return (element, woken)
                    }
                    if s.finished { return (nil, nil) }
                    s.consumer = c
                    return nil
                }
                if let immediate {
                    immediate.1?.resume()
                    c.resume(returning: immediate.0)
                }
            }
        }
    }

    /// Ends the channel: the consumer gets `nil` after the buffer, waiting producers are released.
    func finish() {
        let (consumer, producers) = state.withLock { s -> (CheckedContinuation<Element?, Never>?, [CheckedContinuation<Void, Never>]) in
            s.finished = true
            defer { s.consumer = nil; s.producers = [] }
            return (s.buffer.count - s.head > 0 ? nil : s.consumer, s.producers.map(\.1))
        }
        consumer?.resume(returning: nil)
        for p in producers { p.resume() }
    }
}

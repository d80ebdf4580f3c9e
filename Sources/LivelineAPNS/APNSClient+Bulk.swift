import Foundation
import LivelineCore
import Synchronization

/// One push's outcome in a bulk send.
public struct APNSBulkResult: Sendable, Hashable {
    /// The push's position in the input sequence, from 0.
    public let index: Int
    /// The device token it went to.
    public let deviceToken: String
    /// Its verdict.
    public let result: APNSResult
}

/// The results of `APNSClient.sendAll`, in completion order; consuming them is what lets more
/// pushes start, so memory stays bounded by `maxInFlight` however many pushes there are.
public struct APNSResultStream: AsyncSequence, Sendable {
    public typealias Element = APNSBulkResult

    let start: @Sendable () -> (BoundedChannel<APNSBulkResult>, Task<Void, Never>)

    /// Iterates the results; dropping the iterator stops sending pushes not yet started.
    public final class AsyncIterator: AsyncIteratorProtocol {
        let channel: BoundedChannel<APNSBulkResult>
        let producer: Task<Void, Never>
        private var batch: [APNSBulkResult] = []
        private var position = 0

        init(_ started: (BoundedChannel<APNSBulkResult>, Task<Void, Never>)) {
            channel = started.0
            producer = started.1
        }

        /// The next result in completion order; `nil` after the last.
        public func next() async -> APNSBulkResult? {
            if position == batch.count {
                batch = await channel.nextBatch()
                position = 0
                if batch.isEmpty { return nil }
            }
            defer { position += 1 }
            return batch[position]
        }

        deinit {
            producer.cancel()
            channel.finish()
        }
    }

    /// Starts sending and returns the iterator over results.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(start()) }
}

extension APNSClient {
    /// Pushes validated before they are handed to the connections together.
    static let bulkBatch = 32

    /// Sends every `(request, deviceToken)` of `pushes`, with at most `configuration.maxInFlight`
    /// pushes in flight and as many finished results waiting to be read.
    ///
    /// Sending starts when iteration starts. The sequence is read lazily, so it can be a
    /// generator of a million pushes; results stream out as they complete.
    ///
    /// The sequence's iterator is advanced under a lock by whichever thread starts the next push:
    /// a producer task at first, then mostly the connection's event-loop thread as each verdict
    /// arrives. Keep its `next()` cheap and non-blocking (no I/O), or it delays that connection.
    public func sendAll<S: Sequence & Sendable>(_ pushes: S) -> APNSResultStream where S.Element == (PushRequest, String) {
        let limit = configuration.maxInFlight
        return APNSResultStream {
            // Producers (one per connection, at most about one per core) fill the window: they take
            // pushes from the shared iterator, validate them in small batches and hand each batch
            // to the connections together. From then on the window refills itself: results arrive
            // by callback on a connection's loop thread, which starts the next push at once
            // (`submitBulk`), so a steady send runs no task and crosses no thread per push. The
            // producers take over again only when the consumer falls behind or a push failed.
            let producers = Swift.min(self.configuration.connectionCount, Swift.max(2, ProcessInfo.processInfo.activeProcessorCount), 4, limit)
            let channel = BoundedChannel<APNSBulkResult>(capacity: limit, producers: producers)
            let source = PushSource(pushes.makeIterator())
            let producer = Task {
                await withDiscardingTaskGroup { group in
                    for _ in 0..<producers {
                        group.addTask { await self.produce(from: source, into: channel) }
                    }
                }
            }
            return (channel, producer)
        }
    }

    /// One bulk producer: admit, validate and batch pushes until the source ends or the consumer leaves.
    func produce(from source: PushSource, into channel: BoundedChannel<APNSBulkResult>) async {
        var batch: [(index: Int, token: String, wire: WireRequest)] = []
        batch.reserveCapacity(Self.bulkBatch)
        func flush() {
            for item in batch {
                submitBulk(item.wire, index: item.index, token: item.token, source: source, channel: channel)
            }
            batch.removeAll(keepingCapacity: true)
        }
        while !Task.isCancelled {
            switch channel.tryAdmit() {
            case .admitted: break
            case .finished: batch.removeAll()
            case .full:
                flush()
                _ = await channel.admit()
            }
            if channel.isFinished {
                batch.removeAll()
                break
            }
            guard let (position, (request, token)) = source.next() else {
                channel.deliverNothing()
                break
            }
            switch prepare(request, to: token) {
            case .success(let wire):
                batch.append((position, token, wire))
                if batch.count >= Self.bulkBatch { flush() }
            case .failure(let problem):
                channel.deliver(APNSBulkResult(index: position, deviceToken: token, result: .failed(problem)))
            }
        }
        flush()
        channel.close()
    }
}

extension APNSClient {
    /// Submits one bulk push. When the server's verdict comes back, the thread that delivers it
    /// (a connection's loop thread) starts the next push itself, so a steady bulk send needs no
    /// hand-off to another thread per push.
    func submitBulk(_ wire: WireRequest, index: Int, token: String, source: PushSource, channel: BoundedChannel<APNSBulkResult>) {
        submit(wire, on: devicePool, idHeader: "apns-id") { [self] result in
            channel.deliver(APNSBulkResult(index: index, deviceToken: token, result: result))
            switch result {
            case .accepted, .rejected: startNext(source: source, channel: channel)
            case .failed: break
            }
        }
    }

    /// Starts the next push if the channel has room and the source has one.
    func startNext(source: PushSource, channel: BoundedChannel<APNSBulkResult>) {
        while channel.tryAdmit() == .admitted {
            guard let (position, (request, token)) = source.next() else {
                channel.deliverNothing()
                return
            }
            switch prepare(request, to: token) {
            case .success(let wire):
                submitBulk(wire, index: position, token: token, source: source, channel: channel)
                return
            case .failure(let problem):
                channel.deliver(APNSBulkResult(index: position, deviceToken: token, result: .failed(problem)))
            }
        }
    }
}

/// The pushes of one bulk send, shared by its producer tasks and by the loop threads that start
/// the next push when one finishes.
///
/// Thread confinement: `pull`, `index` and `exhausted` are only touched inside `lock`, so one
/// caller at a time advances the iterator; hence `@unchecked Sendable`. The iterator is wrapped
/// in a closure once, so the hot path runs no generic code.
final class PushSource: @unchecked Sendable {
    private let pull: () -> (PushRequest, String)?
    private var index = 0
    private var exhausted = false
    private let lock = Mutex(())

    init<Base: IteratorProtocol>(_ iterator: Base) where Base.Element == (PushRequest, String) {
        var iterator = iterator
        pull = { iterator.next() }
    }

    /// The next push with its position in the sequence; nil once the sequence has ended.
    func next() -> (Int, (PushRequest, String))? {
        lock.withLock { _ in
            guard !exhausted, let element = pull() else {
                exhausted = true
                return nil
            }
            defer { index += 1 }
            return (index, element)
        }
    }
}

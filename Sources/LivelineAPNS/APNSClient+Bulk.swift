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
    public func sendAll<S: Sequence & Sendable>(_ pushes: S) -> APNSResultStream where S.Element == (PushRequest, String) {
        let limit = configuration.maxInFlight
        return APNSResultStream {
            // Producers (one per connection, at most about one per core) take pushes from the
            // shared iterator, validate them in small batches and hand each batch to the
            // connections together, so a loop wakes once per batch rather than once per push.
            // Results arrive by callback (on a connection's loop thread in the common case): no
            // task runs per push. One producer per connection leaves the cores to the loops.
            let producers = Swift.min(self.configuration.connectionCount, Swift.max(2, ProcessInfo.processInfo.activeProcessorCount), 4, limit)
            let channel = BoundedChannel<APNSBulkResult>(capacity: limit, producers: producers)
            let source = SharedIterator(pushes.makeIterator())
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
    func produce<Base: IteratorProtocol>(from source: SharedIterator<Base>, into channel: BoundedChannel<APNSBulkResult>) async
    where Base.Element == (PushRequest, String) {
        var batch: [(index: Int, token: String, wire: WireRequest)] = []
        batch.reserveCapacity(Self.bulkBatch)
        func flush() {
            for item in batch {
                let (position, token) = (item.index, item.token)
                submit(item.wire, on: devicePool, idHeader: "apns-id") { result in
                    channel.deliver(APNSBulkResult(index: position, deviceToken: token, result: result))
                }
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

/// An iterator shared by the bulk-send producers.
///
/// Thread confinement: `iterator` and `index` are only touched inside `lock`, so one producer at a
/// time advances it; hence `@unchecked Sendable`.
final class SharedIterator<Base: IteratorProtocol>: @unchecked Sendable {
    private var iterator: Base
    private var index = 0
    private let lock = Mutex(())

    init(_ iterator: Base) { self.iterator = iterator }

    func next() -> (Int, Base.Element)? {
        lock.withLock { _ in
            guard let element = iterator.next() else { return nil }
            defer { index += 1 }
            return (index, element)
        }
    }
}

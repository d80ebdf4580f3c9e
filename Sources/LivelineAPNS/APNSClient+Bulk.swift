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
    /// Sends every `(request, deviceToken)` of `pushes`, with at most `configuration.maxInFlight`
    /// pushes in flight and as many finished results waiting to be read.
    ///
    /// Sending starts when iteration starts. The sequence is read lazily, so it can be a
    /// generator of a million pushes; results stream out as they complete.
    public func sendAll<S: Sequence & Sendable>(_ pushes: S) -> APNSResultStream where S.Element == (PushRequest, String) {
        let limit = configuration.maxInFlight
        return APNSResultStream {
            let channel = BoundedChannel<APNSBulkResult>(capacity: limit)
            let source = SharedIterator(pushes.makeIterator())
            // A fixed set of workers, each taking the next push when its last one is done: at most
            // `limit` pushes in flight, and no task per push.
            let producer = Task {
                await withDiscardingTaskGroup { group in
                    for _ in 0..<limit {
                        group.addTask {
                            while !Task.isCancelled, let (index, (request, token)) = source.next() {
                                let result = await self.send(request, to: token)
                                await channel.send(APNSBulkResult(index: index, deviceToken: token, result: result))
                            }
                        }
                    }
                }
                channel.finish()
            }
            return (channel, producer)
        }
    }
}

/// An iterator shared by the bulk-send workers.
///
/// Thread confinement: `iterator` and `index` are only touched inside `lock`, so one worker at a
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

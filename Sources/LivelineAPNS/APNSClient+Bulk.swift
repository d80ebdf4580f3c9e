import LivelineCore

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

        init(_ started: (BoundedChannel<APNSBulkResult>, Task<Void, Never>)) {
            channel = started.0
            producer = started.1
        }

        public func next() async -> APNSBulkResult? { await channel.next() }

        deinit {
            producer.cancel()
            channel.finish()
        }
    }

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
            let limiter = AsyncLimiter(limit: limit)
            let producer = Task {
                await withDiscardingTaskGroup { group in
                    for (index, (request, token)) in pushes.enumerated() {
                        await limiter.acquire()
                        if Task.isCancelled {
                            limiter.release()
                            break
                        }
                        group.addTask {
                            let result = await self.send(request, to: token)
                            await channel.send(APNSBulkResult(index: index, deviceToken: token, result: result))
                            limiter.release()
                        }
                    }
                }
                channel.finish()
            }
            return (channel, producer)
        }
    }
}

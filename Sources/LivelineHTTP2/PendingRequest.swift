/// One request from `send` until its single result: queued, then on a stream, then finished.
///
/// Thread confinement: created on the caller's thread, handed to the loop through the
/// connection's `Mutex`-guarded inbox, and from then on read and written only on the loop thread
/// (including the task-cancellation path, which hops to the loop with `execute`); hence its
/// fields skip run-time exclusivity checks (`@exclusivity(unchecked)`).
final class PendingRequest: @unchecked Sendable {
    let request: HTTP2Request
    let deadline: UInt64
    private let completion: @Sendable (Result<HTTP2Response, HTTP2Error>) -> Void
    @exclusivity(unchecked) var streamID: Int32 = 0
    @exclusivity(unchecked) var status = 0
    @exclusivity(unchecked) var headers: [(name: String, value: String)] = []
    @exclusivity(unchecked) var body: [UInt8] = []
    @exclusivity(unchecked) var bodyOffset = 0
    @exclusivity(unchecked) private(set) var isFinished = false

    init(request: HTTP2Request, deadline: UInt64, completion: @escaping @Sendable (Result<HTTP2Response, HTTP2Error>) -> Void) {
        self.request = request
        self.deadline = deadline
        self.completion = completion
    }

    /// Delivers the result once; later calls are ignored.
    func finish(_ result: Result<HTTP2Response, HTTP2Error>) {
        guard !isFinished else { return }
        isFinished = true
        completion(result)
    }

    /// Delivers the collected response.
    func finishWithResponse() {
        finish(.success(HTTP2Response(status: status, headers: HTTP2Headers(headers), body: body, streamID: streamID)))
    }
}

/// One request from `send` until its single result: queued, then on a stream, then finished.
///
/// Thread confinement: created on the caller's thread, handed to the loop through the
/// connection's `Mutex`-guarded inbox, and from then on read and written only on the loop thread
/// (including the task-cancellation path, which hops to the loop with `execute`).
final class PendingRequest: @unchecked Sendable {
    let request: HTTP2Request
    let deadline: UInt64
    private let completion: @Sendable (Result<HTTP2Response, HTTP2Error>) -> Void
    var streamID: Int32 = 0
    var status = 0
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var bodyOffset = 0
    private(set) var isFinished = false

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

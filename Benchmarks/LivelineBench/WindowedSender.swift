import LivelineHTTP2
import Synchronization

/// Keeps `window` requests in flight with the callback API; resumes with the success count.
final class WindowedSender: Sendable {
    let connection: HTTP2Connection
    let request: HTTP2Request
    let total: Int
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let succeeded = Atomic<Int>(0)
    let continuation: CheckedContinuation<Int, Never>

    init(connection: HTTP2Connection, request: HTTP2Request, total: Int, continuation: CheckedContinuation<Int, Never>) {
        self.connection = connection
        self.request = request
        self.total = total
        self.continuation = continuation
    }

    func start(window: Int) {
        for _ in 0..<window { sendNext() }
    }

    func sendNext() {
        guard started.add(1, ordering: .relaxed).newValue <= total else { return }
        connection.send(request) { [self] result in
            if case .success(let response) = result, response.status == 200 { succeeded.add(1, ordering: .relaxed) }
            if finished.add(1, ordering: .relaxed).newValue == total {
                continuation.resume(returning: succeeded.load(ordering: .relaxed))
            } else {
                sendNext()
            }
        }
    }
}

import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a running server shares between libmicrohttpd's threads, the handlers' tasks and
/// `stop()`: the handler, the limits, the count of requests in flight and the handlers running.
/// Shared state lives in a `Mutex` or an `Atomic`; the daemon holds one retained reference.
final class ServerCore: Sendable {
    let handler: HTTPServer.Handler
    let maxBodyBytes: Int
    /// Discarded bytes after which an over-limit chunked upload is cut off instead of read.
    private let discardLimit: Int
    private let tooLarge: HTTPResponse
    private let accepting = Atomic<Bool>(true)
    private let state = Mutex(State())
    /// libmicrohttpd's log lines while the daemon starts; nil afterwards (lines are dropped).
    private let startupLog = Mutex<[String]?>([])
    private let keepsLog = Atomic<Bool>(true)
    /// Streamed bodies being sent.
    private let streams = StreamRegistry()
    /// The request-header deadline (nil when `requestHeaderTimeout` is zero).
    let deadlines: HeaderDeadlines?

    private struct State {
        /// The grace period is over: no handler may start, running ones were answered 503.
        var forcing = false
        /// Requests whose handler started and whose completion callback has not come yet: the
        /// handler runs, or its answer is being sent.
        var inFlight = 0
        /// Requests whose handler is running.
        var running: [ObjectIdentifier: RequestState] = [:]
        /// `stop()` waiting for `inFlight` to reach zero.
        var drainWaiter: CheckedContinuation<Void, Never>?
        var drainWaitCancelled = false
    }

    init(handler: @escaping HTTPServer.Handler, maxBodyBytes: Int, requestHeaderTimeout: Duration) {
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        deadlines = requestHeaderTimeout > .zero ? HeaderDeadlines(limit: requestHeaderTimeout) : nil
        let (doubled, overflow) = maxBodyBytes.multipliedReportingOverflow(by: 2)
        let (limit, overflowAgain) = doubled.addingReportingOverflow(1 << 16)
        discardLimit = overflow || overflowAgain ? Int.max : limit
        tooLarge = Self.error(413, code: "body-too-large", message: "request body is over the \(maxBodyBytes)-byte limit")
    }

    // MARK: libmicrohttpd callbacks (on its threads)

    /// Whether new connections and requests are taken (false once `stop()` began).
    var isAccepting: Bool { accepting.load(ordering: .acquiring) }

    func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                version: UnsafePointer<CChar>?,
                upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let pointer = requestContext.pointee else {
            // The URI log callback creates the state for every request line; without one there
            // is no target to check.
            let request = RequestState(connection: connection, rawTarget: [])
            requestContext.pointee = Unmanaged.passRetained(request).toOpaque()
            request.began = true
            request.respondDirectly()
            return Self.queue(Self.error(400, code: "malformed-request", message: "the request has no target"), on: connection, close: true)
        }
        let request = Unmanaged<RequestState>.fromOpaque(pointer).takeUnretainedValue()
        if !request.began {
            request.began = true
            return begin(request, connection: connection, url: url, method: method, version: version)
        }
        let count = uploadSize.pointee
        if count > 0 {
            uploadSize.pointee = 0
            guard let upload else { return .NO }
            let keep = request.receive(UnsafeRawBufferPointer(start: upload, count: count),
                                       limit: maxBodyBytes, discardLimit: discardLimit)
            return keep ? .YES : .NO
        }
        if let response = request.takeAnswer() {
            return queueAnswer(response, on: connection)
        }
        if request.isTooLarge {
            request.respondDirectly()
            return Self.queue(tooLarge, on: connection, close: true)
        }
        return run(request, connection: connection, url: url, method: method)
    }

    func completed(_ request: RequestState) {
        request.close()
        deadlines?.requestFinished(request.connection)
        guard request.handlerStarted else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.inFlight -= 1
            guard state.inFlight == 0, let waiter = state.drainWaiter else { return nil }
            state.drainWaiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Whether `log` keeps lines (only while the daemon starts).
    var keepsLogLines: Bool { keepsLog.load(ordering: .relaxed) }

    func log(_ line: String) {
        startupLog.withLock { $0?.append(line) }
    }

    /// The log lines kept while starting; stops keeping them.
    func endStartupLog() -> [String] {
        keepsLog.store(false, ordering: .relaxed)
        return startupLog.withLock { lines in
            defer { lines = nil }
            return lines ?? []
        }
    }

    /// First call for a request: its headers are in, its body not yet. A head that breaks the
    /// framing rules is answered 400 with `Connection: close` before any of the body is read.
    private func begin(_ request: RequestState, connection: OpaquePointer, url: UnsafePointer<CChar>?,
                       method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> MHD_Result {
        deadlines?.headersComplete(connection)
        if !isAccepting {
            request.respondDirectly()
            return Self.queue(Self.shuttingDown, on: connection, close: true)
        }
        if let refusal = Self.framing(request, connection: connection, url: url, method: method, version: version).refusal() {
            request.respondDirectly()
            return Self.queue(Self.error(400, code: "malformed-request", message: refusal), on: connection, close: true)
        }
        let length = Self.contentLength(connection)
        if let length, length > maxBodyBytes {
            // Answering before the body is read makes libmicrohttpd skip the body (and any
            // "100 Continue") and close the connection after the answer.
            request.respondDirectly()
            return Self.queue(tooLarge, on: connection, close: true)
        }
        if let length { request.reserve(min(length, 1 << 16)) }
        return .YES
    }

    /// The request head as `RequestFraming` checks it. libmicrohttpd parses the head in place, in
    /// one buffer that starts at the method: each piece it hands over is a C string whose end it
    /// wrote over a separator (the spaces of the request line, each header's colon and CRLF). So
    /// when every piece sits exactly where the one before it ends plus its separator, the C
    /// strings account for every byte of the head; otherwise a NUL byte cut one short, a line
    /// ended in a bare LF, a header line was folded, or the request line had extra spaces.
    private static func framing(_ request: RequestState, connection: OpaquePointer, url: UnsafePointer<CChar>?,
                                method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?) -> RequestFraming {
        var fields: [MHDCallbacks.RawField] = []
        fields.reserveCapacity(16)
        withUnsafeMutablePointer(to: &fields) {
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, MHDCallbacks.collectRaw, $0)
        }
        let headerSize = UInt(liveline_MHD_request_header_size(connection))
        var intact = false
        if let method, let url, let version, headerSize > 0 {
            let start = UInt(bitPattern: method)
            let target = UInt(bitPattern: url)
            let versionStart = UInt(bitPattern: version)
            intact = target == start + UInt(strlen(method)) + 1
                && versionStart == target + UInt(request.rawTarget.count) + 1
            var next = versionStart + UInt(strlen(version)) + 2
            for field in fields {
                intact = intact && field.key == next && field.value >= field.key + UInt(field.keyLength) + 1
                next = field.value + UInt(field.valueLength) + 2
            }
            intact = intact && start + headerSize == next + 2
        }
        return RequestFraming(rawTarget: request.rawTarget,
                              version: version.map { String(cString: $0) } ?? "",
                              layoutIntact: intact,
                              headers: fields)
    }

    /// The body is complete: runs the handler in a task. The task starts on this thread and
    /// runs until its first suspension; if it answers by then the answer is queued at once,
    /// otherwise the connection is suspended until the answer resumes it.
    private func run(_ request: RequestState, connection: OpaquePointer,
                     url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> MHD_Result {
        let admitted = state.withLock { state -> Bool in
            guard !state.forcing else { return false }
            state.running[ObjectIdentifier(request)] = request
            state.inFlight += 1
            return true
        }
        guard admitted else {
            request.respondDirectly()
            return Self.queue(Self.shuttingDown, on: connection, close: true)
        }
        let httpRequest = makeRequest(request, connection: connection, url: url, method: method)
        request.start()
        let handler = self.handler
        let work: @Sendable () async -> Void = { [self] in
            let response = await handler(httpRequest)
            request.answer(response)
            handlerFinished(request)
        }
        if #available(macOS 26, iOS 26, *) {
            Task.immediate { await work() }
        } else {
            Task { await work() }
        }
        guard let response = request.leaveAccessHandler() else { return .YES }
        return queueAnswer(response, on: connection)
    }

    private func handlerFinished(_ request: RequestState) {
        state.withLock { _ = $0.running.removeValue(forKey: ObjectIdentifier(request)) }
    }

    private func makeRequest(_ request: RequestState, connection: OpaquePointer,
                             url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> HTTPRequest {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(8)
        withUnsafeMutablePointer(to: &headers) {
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, MHDCallbacks.collectLowercased, $0)
        }
        var query: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &query) {
            _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, MHDCallbacks.collect, $0)
        }
        let remote = liveline_MHD_client_address(connection).map(SocketAddress.describe) ?? "?"
        return HTTPRequest(unnormalizedMethod: method.map { String(cString: $0) } ?? "",
                           path: RequestFraming.decodedPath(request.rawTarget) ?? url.map { String(cString: $0) } ?? "",
                           query: query, headers: headers, body: request.takeBody(), remoteAddress: remote)
    }

    // MARK: stopping

    /// Refuses new connections and answers requests that begin from now on with 503; ends the
    /// streamed bodies being sent (libmicrohttpd cannot stop with connections suspended).
    func beginStopping() {
        accepting.store(false, ordering: .releasing)
        streams.finishAll()
    }

    /// Returns when every handler that started has answered and its answer was sent (or failed),
    /// or after `grace`, whichever comes first. Requests still receiving their body are not
    /// waited for: a body that completes within the grace period still runs its handler, but a
    /// client that stalls (or whose close libmicrohttpd's edge-triggered epoll has not noticed;
    /// its idle timeout would) does not hold `stop()`.
    func waitUntilDrained(grace: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.drained() }
            group.addTask { try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
        }
    }

    private func drained() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.inFlight == 0 || state.drainWaitCancelled { return true }
                    state.drainWaiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.drainWaitCancelled = true
                defer { state.drainWaiter = nil }
                return state.drainWaiter
            }
            waiter?.resume()
        }
    }

    /// After the grace period: no handler may start any more, and those still running are
    /// answered 503 in their place (their own answers will be dropped), which resumes their
    /// connections, as libmicrohttpd requires before `MHD_stop_daemon`.
    func answerRunningHandlers() {
        let running = state.withLock { state -> [RequestState] in
            state.forcing = true
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for request in running { request.answer(Self.shuttingDown) }
    }

    // MARK: responses

    static let shuttingDown = error(503, code: "shutting-down", message: "the server is shutting down; retry shortly")

    /// A JSON error answer. `code` and `message` are the server's own text; quotes and
    /// backslashes in them are escaped all the same.
    static func error(_ status: Int, code: String, message: String) -> HTTPResponse {
        func escaped(_ text: String) -> String {
            var out = ""
            for character in text {
                if character == "\"" || character == "\\" { out.append("\\") }
                out.append(character)
            }
            return out
        }
        return .json(status, Array(#"{"error":{"code":"\#(escaped(code))","message":"\#(escaped(message))"}}"#.utf8))
    }

    /// Queues a handler's answer; a streamed one is tracked until it is done, and one that comes
    /// while stopping is ended at once.
    private func queueAnswer(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        if let stream = response.stream {
            streams.add(stream)
            if !isAccepting { stream.finish() }
        }
        return Self.queue(response, on: connection, close: !isAccepting)
    }

    /// Queues `response` on `connection` (copying the body, or reading its stream as it is
    /// written). `close` adds `Connection: close`.
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        let created: OpaquePointer?
        if let stream = response.stream {
            stream.attach(connection)
            let context = Unmanaged.passRetained(stream)
            created = MHD_create_response_from_callback(UInt64.max, 16 * 1024, MHDCallbacks.streamRead,
                                                        context.toOpaque(), MHDCallbacks.streamFree)
            if created == nil {
                context.release()
                stream.released()
            }
        } else {
            created = response.body.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for header in response.headers {
            _ = MHD_add_response_header(created, header.name, header.value)
        }
        if close { _ = MHD_add_response_header(created, "Connection", "close") }
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), created)
    }

    /// The request's `Content-Length` (`Int.max` when too large for `Int`), nil without one.
    private static func contentLength(_ connection: OpaquePointer) -> Int? {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else { return nil }
        let text = String(cString: value)
        if let length = Int(text) { return length }
        return !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ? Int.max : nil
    }
}

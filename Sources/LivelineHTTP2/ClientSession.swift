import CEpoll
import CNghttp2
import COpenSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The engine behind `HTTP2Connection`: the I/O shell around `ClientConnectionLifecycle`. It
/// owns the socket, TLS, the nghttp2 client session, the request queue and open streams, request
/// deadlines and pings; it reports connect, frame, timer and close events to the lifecycle and
/// performs the actions it returns.
///
/// Thread confinement: everything inherited from `SessionDriver` and every `var` declared here
/// is used only on `loop`'s thread. Other threads touch only `inbox` and `closeState` (each a
/// `Mutex`) and the `Atomic` counters, which is why `@unchecked Sendable` is sound.
final class ClientSession: SessionDriver, @unchecked Sendable {
    struct Inbox {
        var requests: [PendingRequest] = []
        var scheduled = false
        /// Set once the connection takes no more requests; new sends fail with it.
        var refusal: HTTP2Error?
    }

    struct CloseState {
        var isClosed = false
        var error: HTTP2Error?
        var waiters: [@Sendable (HTTP2Error?) -> Void] = []
    }

    let host: String
    let port: Int
    let configuration: HTTP2ClientConfiguration
    let defaultAuthority: String
    let inbox = Mutex<Inbox>(Inbox())
    let closeState = Mutex<CloseState>(CloseState())
    let remoteMaxStreams = Atomic<Int>(0)
    let activeCount = Atomic<Int>(0)
    let queuedCount = Atomic<Int>(0)
    let usable = Atomic<Bool>(false)
    private let ownsLoop: Bool
    private let context: TLSContext
    /// What the server's certificate is verified against (checked before connecting).
    private let serverName: ServerName

    // Loop-thread state.
    // The hot ones skip run-time exclusivity checks (@exclusivity(unchecked)): one thread
    // uses them, so an overlapping access could only come from a bug the static checks see.
    @exclusivity(unchecked) private(set) var lifecycle: ClientConnectionLifecycle
    private var connectContinuation: CheckedContinuation<Void, any Error>?
    private var connectTimer: UInt64?
    @exclusivity(unchecked) private var queue = RequestQueue()
    @exclusivity(unchecked) private var active: [Int32: PendingRequest] = [:]
    @exclusivity(unchecked) private var header = HeaderBlock()
    @exclusivity(unchecked) private var deadlineTimer: UInt64?
    @exclusivity(unchecked) private var deadlineTimerAt: UInt64 = 0
    // Pings (ClientSession+Pings.swift).
    var idleTimer: UInt64?
    var pings: [(opaque: UInt64, start: UInt64, timer: UInt64, completion: (Result<Duration, HTTP2Error>) -> Void)] = []
    var nextPingOpaque: UInt64 = 1

    init(loop: EventLoop, ownsLoop: Bool, host: String, port: Int, serverName: ServerName, context: TLSContext, configuration: HTTP2ClientConfiguration) {
        self.host = host
        self.port = port
        self.configuration = configuration
        self.context = context
        self.ownsLoop = ownsLoop
        self.serverName = serverName
        let authorityHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.defaultAuthority = port == 443 ? authorityHost : "\(authorityHost):\(port)"
        self.lifecycle = ClientConnectionLifecycle(endpoint: "\(host):\(port)", connectTimeout: configuration.connectTimeout, pingTimeout: configuration.pingTimeout)
        super.init(loop: loop, fd: -1)
    }

    deinit {
        header.deallocate()
    }

    var endpoint: String { lifecycle.endpoint }

    // MARK: Lifecycle actions (loop thread)

    /// Carries out what the lifecycle decided, in order.
    private func perform(_ actions: [ClientConnectionLifecycle.Action]) {
        for action in actions {
            switch action {
            case .connect(let address):
                connect(to: address)
            case .startTLS:
                startTLS()
            case .finishConnect(let error):
                finishConnect(error)
            case .refuseNewRequests(let refusal):
                refuseNewRequests(refusal)
            case .failQueued(let error):
                for request in queue.removeAll() { request.finish(.failure(error)) }
                queuedCount.store(0, ordering: .relaxed)
            case .failActive(let failure):
                for (streamID, request) in active { request.finish(.failure(failure.error(forStream: streamID))) }
                active.removeAll()
                activeCount.store(0, ordering: .relaxed)
            case .failPings(let error):
                for ping in pings {
                    loop.cancelTimer(ping.timer)
                    ping.completion(.failure(error))
                }
                pings.removeAll()
            case .sendGoAway:
                // nghttp2 then stops wanting I/O and the driver closes.
                if let session { _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue)) }
            case .flush:
                loop.flushSoon(self)
            case .closeTransport(let error, let abrupt):
                close(error, abrupt: abrupt)
            case .finishClose(let error):
                finishClose(error)
            }
        }
    }

    /// New sends fail with `refusal` from now on; those already in the inbox were sent before
    /// it and join the queue (a draining close serves them, the other actions fail them).
    private func refuseNewRequests(_ refusal: HTTP2Error) {
        usable.store(false, ordering: .releasing)
        let late = inbox.withLock { inbox -> [PendingRequest] in
            inbox.refusal = refusal
            let items = inbox.requests
            inbox.requests.removeAll()
            return items
        }
        for request in late { enqueue(request) }
    }

    private func finishClose(_ error: HTTP2Error?) {
        for timer in [connectTimer, deadlineTimer, idleTimer].compactMap({ $0 }) { loop.cancelTimer(timer) }
        connectTimer = nil
        deadlineTimer = nil
        idleTimer = nil
        usable.store(false, ordering: .releasing)
        let waiters = closeState.withLock { state -> [@Sendable (HTTP2Error?) -> Void] in
            state.isClosed = true
            state.error = error
            let waiters = state.waiters
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter(error) }
        if ownsLoop { loop.stop() }
    }

    // MARK: Connect (loop thread)

    /// Connects to the first address that answers, within `budget` (what resolving the name left
    /// of `connectTimeout`).
    func start(addresses: [SocketAddress], budget: Duration, continuation: CheckedContinuation<Void, any Error>) {
        connectContinuation = continuation
        connectTimer = loop.schedule(after: budget) { [self] in
            connectTimer = nil
            perform(lifecycle.connectTimedOut())
        }
        perform(lifecycle.start(addresses: addresses))
    }

    private func connect(to address: SocketAddress) {
        let socketFD: Int32
        do {
            socketFD = try Socket.makeNonBlocking(family: address.family)
        } catch {
            perform(lifecycle.connectFailed(error.message))
            return
        }
        Socket.setNoDelay(socketFD)
        let reason: String
        if address.withSockaddr({ Glibc.connect(socketFD, $0, $1) }) == 0 || errno == EINPROGRESS {
            fd = socketFD
            if watch(EPOLLOUT.rawValue) { return }
            reason = "cannot watch socket"
        } else {
            reason = errnoString()
        }
        Glibc.close(socketFD)
        fd = -1
        perform(lifecycle.connectFailed(reason))
    }

    override func socketEvent(_ events: UInt32) {
        let error = Socket.pendingError(fd)
        if error != 0 {
            loop.unregister(fd)
            Glibc.close(fd)
            fd = -1
            perform(lifecycle.connectFailed(errnoString(error)))
            return
        }
        perform(lifecycle.connected())
    }

    private func startTLS() {
        guard attachTLS(context: context, isServer: false), let ssl else {
            close(HTTP2Error(.tlsFailed, "SSL_new failed: \(openSSLErrors())"), abrupt: true)
            return
        }
        // Fail closed: without the name check the handshake would accept any trusted certificate.
        if let error = serverName.require(on: ssl) {
            close(error, abrupt: true)
            return
        }
        continueHandshake()
    }

    override func handshakeFailure(_ detail: String) -> HTTP2Error {
        ClientHandshake.failure(ssl, detail: detail, endpoint: endpoint, serverName: serverName, trust: configuration.trust)
    }

    override func handshakeDidComplete() -> HTTP2Error? {
        guard let ssl else { return HTTP2Error(.tlsFailed, "TLS state lost after handshake") }
        if let error = ClientHandshake.alpnError(ssl, endpoint: endpoint) { return error }
        switch ClientHandshake.makeSession(userData: Unmanaged.passUnretained(self).toOpaque()) {
        case .success(let created):
            session = created
            return nil
        case .failure(let error):
            return error
        }
    }

    /// Ends `connect`'s wait: with success once the server's first SETTINGS arrived, else with
    /// the error `connect` throws.
    private func finishConnect(_ error: HTTP2Error?) {
        guard let continuation = connectContinuation else { return }
        connectContinuation = nil
        if let connectTimer { loop.cancelTimer(connectTimer) }
        connectTimer = nil
        if let error {
            continuation.resume(throwing: error)
            return
        }
        usable.store(true, ordering: .releasing)
        scheduleIdlePing()
        continuation.resume()
    }

    // MARK: Requests (loop thread)

    /// Moves requests from the inbox to the queue.
    func drainInbox() {
        let incoming = inbox.withLock { inbox -> [PendingRequest] in
            inbox.scheduled = false
            let items = inbox.requests
            inbox.requests.removeAll(keepingCapacity: true)
            return items
        }
        for request in incoming { accept(request) }
        loop.flushSoon(self)
    }

    /// Takes a request sent from the loop thread itself; false when it was refused (it is then
    /// already finished with the refusal).
    func acceptOnLoop(_ request: PendingRequest) -> Bool {
        if queue.count >= configuration.maxQueuedRequests {
            request.finish(.failure(queueFullError))
            return false
        }
        accept(request)
        loop.flushSoon(self)
        return !request.isFinished
    }

    /// Why a request was refused when `maxQueuedRequests` already wait (retryable: not sent).
    var queueFullError: HTTP2Error {
        HTTP2Error(.closed, "more than \(configuration.maxQueuedRequests) requests are waiting for a stream on \(endpoint) (maxQueuedRequests); the request was not sent", isRetryable: true)
    }

    private func accept(_ request: PendingRequest) {
        if let refusal = lifecycle.refusal {
            request.finish(.failure(refusal))
            return
        }
        enqueue(request)
    }

    private func enqueue(_ request: PendingRequest) {
        queue.append(request)
        queuedCount.store(queue.count, ordering: .relaxed)
        noteDeadline(request.deadline)
    }

    /// Responses finished since the last write pass.
    private var finishedSinceFlush = 0
    /// After this many responses in one read, new requests go out before reading on.
    private static let earlyFlushAfter = 32

    override func wantsEarlyFlush() -> Bool {
        finishedSinceFlush >= Self.earlyFlushAfter && !queue.isEmpty
    }

    override func willFlush() {
        finishedSinceFlush = 0
        submitQueued()
        if queue.isEmpty, active.isEmpty { perform(lifecycle.streamsDrained()) }
    }

    private func submitQueued() {
        guard let session, lifecycle.opensStreams, !isClosed else { return }
        let limit = Int(min(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), UInt32(Int32.max)))
        let now = EventLoop.now()
        while active.count < limit, let request = queue.popFirst() {
            if request.deadline <= now {
                request.finish(.failure(timeoutError(request, sent: false)))
                continue
            }
            submit(request, session: session)
        }
        queuedCount.store(queue.count, ordering: .relaxed)
        activeCount.store(active.count, ordering: .relaxed)
    }

    private func submit(_ pending: PendingRequest, session: OpaquePointer) {
        let request = pending.request
        header.reset()
        header.add(":method", request.method)
        header.add(":scheme", "https")
        header.add(":authority", request.authority ?? defaultAuthority)
        header.add(":path", request.path, neverIndexed: !request.indexesPath)
        for field in request.headers.fields {
            header.add(field.name, field.value, lowercaseName: true)
        }
        let userData = Unmanaged.passUnretained(pending).toOpaque()
        let streamID: Int32 = header.withFields { fields, count in
            if request.body.isEmpty {
                return nghttp2_submit_request(session, nil, fields, count, nil, userData)
            }
            var provider = nghttp2_data_provider()
            provider.source.ptr = userData
            provider.read_callback = ClientCallbacks.readBody
            return nghttp2_submit_request(session, nil, fields, count, &provider, userData)
        }
        if streamID < 0 {
            if streamID == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                // Stream IDs are used up (2^31 / 2 requests): finish what runs, then close.
                perform(lifecycle.streamIDsExhausted())
            }
            let reason = String(cString: nghttp2_strerror(streamID))
            pending.finish(.failure(HTTP2Error(.protocolError, "cannot submit \(request) to \(endpoint): \(reason)", isRetryable: true)))
            return
        }
        pending.streamID = streamID
        active[streamID] = pending
    }

    private func timeoutError(_ request: PendingRequest, sent: Bool) -> HTTP2Error {
        let timeout = request.request.timeout ?? configuration.requestTimeout
        let stage = sent ? "on stream \(request.streamID)" : "while waiting for a free stream (the request was not sent)"
        return HTTP2Error(.timeout, "\(request.request) to \(endpoint) had no complete response within \(timeout), \(stage)", isRetryable: !sent)
    }

    /// Cancels `request` (task cancellation): resets its stream if it has one.
    func cancel(_ request: PendingRequest) {
        guard !request.isFinished else { return }
        if request.streamID != 0, let session, active[request.streamID] != nil {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), request.streamID, UInt32(NGHTTP2_CANCEL.rawValue))
            loop.flushSoon(self)
        }
        request.finish(.failure(HTTP2Error(.cancelled, "\(request.request) was cancelled", isRetryable: request.streamID == 0)))
    }

    /// A response body passed `maxResponseBodySize`: reset the stream and fail the request.
    func responseTooLarge(_ request: PendingRequest) {
        if let session {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), request.streamID, UInt32(NGHTTP2_CANCEL.rawValue))
        }
        request.body = []
        request.finish(.failure(HTTP2Error(.streamReset, "the response to \(request.request) on stream \(request.streamID) from \(endpoint) is larger than maxResponseBodySize (\(configuration.maxResponseBodySize) bytes); the stream was reset (CANCEL)", http2ErrorCode: UInt32(NGHTTP2_CANCEL.rawValue))))
        loop.flushSoon(self)
    }

    // MARK: Deadlines (loop thread)

    /// Makes sure a deadline check runs no later than `deadline` (at most every 10 ms).
    private func noteDeadline(_ deadline: UInt64) {
        if deadlineTimer != nil && deadlineTimerAt <= deadline { return }
        if let deadlineTimer { loop.cancelTimer(deadlineTimer) }
        let now = EventLoop.now()
        deadlineTimerAt = max(deadline, now)
        deadlineTimer = loop.schedule(after: .nanoseconds(Int64(deadlineTimerAt - now))) { [self] in
            deadlineTimer = nil
            checkDeadlines()
        }
    }

    private func checkDeadlines() {
        guard !isClosed else { return }
        let now = EventLoop.now()
        var earliest = UInt64.max
        queue.forEach { request in
            guard !request.isFinished else { return }
            if request.deadline <= now {
                request.finish(.failure(timeoutError(request, sent: false)))
            } else {
                earliest = min(earliest, request.deadline)
            }
        }
        for request in active.values where !request.isFinished {
            if request.deadline <= now {
                if let session {
                    _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), request.streamID, UInt32(NGHTTP2_CANCEL.rawValue))
                }
                request.finish(.failure(timeoutError(request, sent: true)))
            } else {
                earliest = min(earliest, request.deadline)
            }
        }
        loop.flushSoon(self)
        if earliest != .max {
            noteDeadline(max(earliest, now + 10_000_000))
        }
    }

    // MARK: Close (loop thread)

    func beginClose(_ mode: ClientConnectionLifecycle.CloseMode) {
        perform(lifecycle.closeRequested(mode))
    }

    override func transportDidClose(_ error: HTTP2Error?) {
        perform(lifecycle.transportClosed(error))
    }

    /// A PING was not acknowledged in time.
    func pingTimedOut() {
        perform(lifecycle.pingTimedOut())
    }

    // MARK: nghttp2 events (loop thread, from callbacks)

    func receivedFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = UInt32(frame.pointee.hd.type)
        let flags = UInt32(frame.pointee.hd.flags)
        switch type {
        case NGHTTP2_SETTINGS.rawValue where flags & NGHTTP2_FLAG_ACK.rawValue == 0:
            if let session {
                let value = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
                remoteMaxStreams.store(Int(min(value, UInt32(Int32.max))), ordering: .relaxed)
            }
            perform(lifecycle.settingsReceived())
            loop.flushSoon(self)
        case NGHTTP2_GOAWAY.rawValue:
            let goAwayFrame = frame.pointee.goaway
            let data = goAwayFrame.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goAwayFrame.opaque_data_len)) } ?? []
            perform(lifecycle.goAwayReceived(HTTP2Error.GoAway(lastStreamID: goAwayFrame.last_stream_id, errorCode: goAwayFrame.error_code, debugData: data)))
        case NGHTTP2_PING.rawValue where flags & NGHTTP2_FLAG_ACK.rawValue != 0:
            let opaque = withUnsafeBytes(of: frame.pointee.ping.opaque_data) { $0.loadUnaligned(as: UInt64.self) }
            pingAcknowledged(UInt64(bigEndian: opaque))
        default:
            break
        }
    }

    func streamClosed(_ streamID: Int32, errorCode: UInt32) {
        guard let request = active.removeValue(forKey: streamID) else { return }
        finishedSinceFlush += 1
        activeCount.store(active.count, ordering: .relaxed)
        loop.flushSoon(self)
        if request.isFinished { return }
        if errorCode == NGHTTP2_NO_ERROR.rawValue && request.status > 0 {
            request.finishWithResponse()
            return
        }
        let what = "\(request.request) on stream \(streamID) to \(endpoint)"
        if let notProcessed = lifecycle.notProcessed(streamID: streamID, what) {
            request.finish(.failure(notProcessed))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            request.finish(.failure(HTTP2Error(.refusedStream, "\(endpoint) refused \(what) (RST_STREAM REFUSED_STREAM); it was not processed", isRetryable: true, http2ErrorCode: errorCode)))
        } else if errorCode == NGHTTP2_NO_ERROR.rawValue {
            request.finish(.failure(HTTP2Error(.protocolError, "\(what) ended without a :status")))
        } else {
            request.finish(.failure(HTTP2Error(.streamReset, "\(endpoint) reset \(what) with \(HTTP2Error.errorCodeName(errorCode))", http2ErrorCode: errorCode)))
        }
    }
}

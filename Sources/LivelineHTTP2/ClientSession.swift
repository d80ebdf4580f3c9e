import CEpoll
import CNghttp2
import COpenSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The engine behind `HTTP2Connection`: connect, TLS, nghttp2 client session, request queue,
/// deadlines, pings, GOAWAY, close.
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
    private var addresses: [SocketAddress] = []
    private var addressIndex = 0
    private var lastConnectError = ""
    private var connectContinuation: CheckedContinuation<Void, any Error>?
    private var connectTimer: UInt64?
    @exclusivity(unchecked) private var queue = RequestQueue()
    @exclusivity(unchecked) private var active: [Int32: PendingRequest] = [:]
    @exclusivity(unchecked) private var header = HeaderBlock()
    @exclusivity(unchecked) private var goAway: HTTP2Error.GoAway?
    @exclusivity(unchecked) private var closing: CloseMode?
    private var terminated = false
    @exclusivity(unchecked) private var deadlineTimer: UInt64?
    @exclusivity(unchecked) private var deadlineTimerAt: UInt64 = 0
    private var idleTimer: UInt64?
    private var pings: [(opaque: UInt64, start: UInt64, timer: UInt64, completion: (Result<Duration, HTTP2Error>) -> Void)] = []
    private var nextPingOpaque: UInt64 = 1

    /// How `close` ends the connection.
    enum CloseMode {
        /// Finish queued and in-flight requests, then GOAWAY and close.
        case drain
        /// Fail everything not finished, then GOAWAY and close.
        case immediately
    }

    init(loop: EventLoop, ownsLoop: Bool, host: String, port: Int, serverName: ServerName, context: TLSContext, configuration: HTTP2ClientConfiguration) {
        self.host = host
        self.port = port
        self.configuration = configuration
        self.context = context
        self.ownsLoop = ownsLoop
        self.serverName = serverName
        let authorityHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        self.defaultAuthority = port == 443 ? authorityHost : "\(authorityHost):\(port)"
        super.init(loop: loop, fd: -1)
    }

    deinit {
        header.deallocate()
    }

    private var endpoint: String { "\(host):\(port)" }

    // MARK: Connect (loop thread)

    /// Connects to the first address that answers, within `budget` (what resolving the name left
    /// of `connectTimeout`).
    func start(addresses: [SocketAddress], budget: Duration, continuation: CheckedContinuation<Void, any Error>) {
        self.addresses = addresses
        connectContinuation = continuation
        connectTimer = loop.schedule(after: budget) { [self] in
            connectTimer = nil
            close(HTTP2Error(.connectTimeout, "no HTTP/2 connection to \(endpoint) within \(configuration.connectTimeout) (name resolution, connect, TLS handshake and SETTINGS)"), abrupt: true)
        }
        tryNextAddress()
    }

    private func tryNextAddress() {
        while addressIndex < addresses.count {
            let address = addresses[addressIndex]
            addressIndex += 1
            let socketFD: Int32
            do {
                socketFD = try Socket.makeNonBlocking(family: address.family)
            } catch {
                lastConnectError = error.message
                continue
            }
            Socket.setNoDelay(socketFD)
            let result = address.withSockaddr { connect(socketFD, $0, $1) }
            if result == 0 || errno == EINPROGRESS {
                fd = socketFD
                if watch(EPOLLOUT.rawValue) { return }
                lastConnectError = "\(address): cannot watch socket"
            } else {
                lastConnectError = "\(address): \(errnoString())"
            }
            Glibc.close(socketFD)
        }
        fd = -1
        close(HTTP2Error(.connectFailed, "cannot connect to \(endpoint): \(lastConnectError)"), abrupt: true)
    }

    override func socketEvent(_ events: UInt32) {
        let error = Socket.pendingError(fd)
        if error != 0 {
            lastConnectError = "\(addresses[addressIndex - 1]): \(errnoString(error))"
            loop.unregister(fd)
            Glibc.close(fd)
            fd = -1
            tryNextAddress()
            return
        }
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
        if let ssl {
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                let reason = String(cString: X509_verify_cert_error_string(verify))
                let trust = switch configuration.trust {
                case .system: "the system trust store"
                case .caFile(let path): "CA file \(path)"
                }
                return HTTP2Error(.certificateVerificationFailed, "the certificate of \(endpoint) did not verify for name \(serverName) against \(trust): \(reason)")
            }
        }
        if detail.contains("no application protocol") {
            return HTTP2Error(.alpnRefused, "\(endpoint) refused ALPN h2 (TLS alert no_application_protocol): the server does not speak HTTP/2")
        }
        return HTTP2Error(.tlsFailed, "TLS handshake with \(endpoint) failed: \(detail)")
    }

    override func handshakeDidComplete() -> HTTP2Error? {
        guard let ssl else { return HTTP2Error(.tlsFailed, "TLS state lost after handshake") }
        var protocolPointer: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolPointer, &protocolLength)
        let selected = protocolPointer.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(protocolLength)), as: UTF8.self) } ?? ""
        guard selected == "h2" else {
            let offered = selected.isEmpty ? "no ALPN protocol (the server ignored ALPN)" : "ALPN \"\(selected)\""
            return HTTP2Error(.alpnRefused, "\(endpoint) negotiated \(offered); HTTP/2 over TLS (ALPN h2) is required")
        }
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, ClientCallbacks.onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, ClientCallbacks.onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, ClientCallbacks.onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, ClientCallbacks.onStreamClose)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive, assume one stream (APNs token connections start there).
        nghttp2_option_set_peer_max_concurrent_streams(option, 1)
        // Requests are independent: no RFC 7540 priority tree to keep, so closed streams are
        // forgotten at once (with SETTINGS_NO_RFC7540_PRIORITIES below).
        nghttp2_option_set_no_closed_streams(option, 1)
        var created: OpaquePointer?
        let result = nghttp2_session_client_new2(&created, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard result == 0, let created else {
            return HTTP2Error(.internalError, "nghttp2_session_client_new failed: \(String(cString: nghttp2_strerror(result)))")
        }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        _ = nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        return nil
    }

    /// The server's first SETTINGS arrived: the connection is ready.
    private func connectDidFinish() {
        guard let continuation = connectContinuation else { return }
        connectContinuation = nil
        if let connectTimer { loop.cancelTimer(connectTimer) }
        connectTimer = nil
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
        if let refusal = refusalForNewRequests() {
            request.finish(.failure(refusal))
            return
        }
        queue.append(request)
        queuedCount.store(queue.count, ordering: .relaxed)
        noteDeadline(request.deadline)
    }

    private func refusalForNewRequests() -> HTTP2Error? {
        if let goAway {
            return HTTP2Error(.goAway, "\(endpoint) sent GOAWAY (\(HTTP2Error.errorCodeName(goAway.errorCode)), last stream \(goAway.lastStreamID)\(goAway.debugData.isEmpty ? "" : ", debug data \(goAway.debugText)")); the request was not sent",
                              isRetryable: true, goAway: goAway, http2ErrorCode: goAway.errorCode)
        }
        if isClosed || closing != nil {
            return HTTP2Error(.closed, "the connection to \(endpoint) is closing; the request was not sent", isRetryable: true)
        }
        return nil
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
        if closing != nil, !terminated, queue.isEmpty, active.isEmpty, let session {
            // Drained: say goodbye; nghttp2 then stops wanting I/O and the driver closes.
            terminated = true
            _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
        }
    }

    private func submitQueued() {
        guard let session, connectContinuation == nil, goAway == nil, !isClosed else { return }
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
                usable.store(false, ordering: .releasing)
                if closing == nil { closing = .drain }
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

    // MARK: Pings (loop thread)

    func ping(_ completion: @escaping (Result<Duration, HTTP2Error>) -> Void) {
        guard let session, !isClosed, connectContinuation == nil else {
            completion(.failure(HTTP2Error(.closed, "the connection to \(endpoint) is closed; cannot PING")))
            return
        }
        let opaque = nextPingOpaque
        nextPingOpaque += 1
        var bytes = opaque.bigEndian
        let result = withUnsafeBytes(of: &bytes) { raw in
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), raw.bindMemory(to: UInt8.self).baseAddress)
        }
        guard result == 0 else {
            completion(.failure(HTTP2Error(.protocolError, "cannot send PING: \(String(cString: nghttp2_strerror(result)))")))
            return
        }
        let timer = loop.schedule(after: configuration.pingTimeout) { [self] in
            close(HTTP2Error(.pingTimeout, "\(endpoint) did not acknowledge a PING within \(configuration.pingTimeout)"), abrupt: true)
        }
        pings.append((opaque, EventLoop.now(), timer, completion))
        loop.flushSoon(self)
    }

    private func pingAcknowledged(_ opaque: UInt64) {
        guard let index = pings.firstIndex(where: { $0.opaque == opaque }) else { return }
        let ping = pings.remove(at: index)
        loop.cancelTimer(ping.timer)
        ping.completion(.success(.nanoseconds(Int64(EventLoop.now() - ping.start))))
    }

    private func scheduleIdlePing() {
        guard let interval = configuration.idlePingInterval, interval > .zero else { return }
        let intervalNS = interval.nanoseconds
        let now = EventLoop.now()
        let idleFor = now - min(now, lastReadTime)
        let wait = idleFor >= intervalNS ? intervalNS : intervalNS - idleFor
        idleTimer = loop.schedule(after: .nanoseconds(Int64(wait))) { [self] in
            idleTimer = nil
            guard !isClosed else { return }
            let now = EventLoop.now()
            if now - min(now, lastReadTime) >= intervalNS && pings.isEmpty {
                ping { _ in }
            }
            scheduleIdlePing()
        }
    }

    // MARK: Close (loop thread)

    func beginClose(_ mode: CloseMode) {
        let refusal = HTTP2Error(.closed, "the connection to \(endpoint) is closing; the request was not sent", isRetryable: true)
        let late = inbox.withLock { inbox -> [PendingRequest] in
            if inbox.refusal == nil { inbox.refusal = refusal }
            let items = inbox.requests
            inbox.requests.removeAll()
            return items
        }
        usable.store(false, ordering: .releasing)
        for request in late { accept(request) }
        if closing == .immediately { return }
        closing = mode
        guard session != nil, connectContinuation == nil else {
            close(HTTP2Error(.closed, "the connection to \(endpoint) was closed by the client before it was ready"), abrupt: true)
            return
        }
        if mode == .immediately {
            let error = HTTP2Error(.closed, "the connection to \(endpoint) was closed by the client")
            for request in queue.removeAll() { request.finish(.failure(error.retryable(true))) }
            for request in active.values { request.finish(.failure(error)) }
            active.removeAll()
            activeCount.store(0, ordering: .relaxed)
        }
        loop.flushSoon(self)
    }

    override func transportDidClose(_ error: HTTP2Error?) {
        for timer in [connectTimer, deadlineTimer, idleTimer].compactMap({ $0 }) { loop.cancelTimer(timer) }
        connectTimer = nil
        deadlineTimer = nil
        idleTimer = nil
        usable.store(false, ordering: .releasing)
        let clientClosed = closing != nil && error == nil
        var reason: HTTP2Error? = error
        if let goAway {
            let closeNote = error.map { " (then: \($0.message))" } ?? ""
            reason = HTTP2Error(.goAway, "\(endpoint) sent GOAWAY (\(HTTP2Error.errorCodeName(goAway.errorCode)), last stream \(goAway.lastStreamID)\(goAway.debugData.isEmpty ? "" : ", debug data \(goAway.debugText)"))\(closeNote)",
                                goAway: goAway, http2ErrorCode: goAway.errorCode)
        }
        if let continuation = connectContinuation {
            connectContinuation = nil
            continuation.resume(throwing: error ?? HTTP2Error(.connectionClosed, "\(endpoint) closed the connection before its SETTINGS"))
        }
        let failure = reason ?? (clientClosed
            ? HTTP2Error(.closed, "the connection to \(endpoint) was closed by the client")
            : HTTP2Error(.connectionClosed, "the connection to \(endpoint) closed"))
        let refusal = HTTP2Error(failure.code, "\(failure.message); the request was not sent", isRetryable: true, goAway: failure.goAway, http2ErrorCode: failure.http2ErrorCode)
        for (streamID, request) in active {
            if let goAway, streamID > goAway.lastStreamID {
                request.finish(.failure(HTTP2Error(.goAway, "\(endpoint) sent GOAWAY with last stream \(goAway.lastStreamID); stream \(streamID) was not processed", isRetryable: true, goAway: goAway, http2ErrorCode: goAway.errorCode)))
            } else {
                request.finish(.failure(HTTP2Error(failure.code, "\(failure.message) before the response on stream \(streamID) was complete", goAway: failure.goAway, http2ErrorCode: failure.http2ErrorCode)))
            }
        }
        active.removeAll()
        for request in queue.removeAll() { request.finish(.failure(refusal)) }
        let late = inbox.withLock { inbox -> [PendingRequest] in
            if inbox.refusal == nil { inbox.refusal = refusal }
            let items = inbox.requests
            inbox.requests.removeAll()
            return items
        }
        for request in late { request.finish(.failure(refusal)) }
        for ping in pings {
            loop.cancelTimer(ping.timer)
            ping.completion(.failure(failure))
        }
        pings.removeAll()
        queuedCount.store(0, ordering: .relaxed)
        activeCount.store(0, ordering: .relaxed)
        let waiters = closeState.withLock { state -> [@Sendable (HTTP2Error?) -> Void] in
            state.isClosed = true
            state.error = clientClosed && goAway == nil ? nil : failure
            let waiters = state.waiters
            state.waiters.removeAll()
            return waiters
        }
        let finalError = closeState.withLock { $0.error }
        for waiter in waiters { waiter(finalError) }
        if ownsLoop { loop.stop() }
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
            connectDidFinish()
            loop.flushSoon(self)
        case NGHTTP2_GOAWAY.rawValue:
            let goAwayFrame = frame.pointee.goaway
            let data = goAwayFrame.opaque_data.map { Array(UnsafeBufferPointer(start: $0, count: goAwayFrame.opaque_data_len)) } ?? []
            let details = HTTP2Error.GoAway(lastStreamID: goAwayFrame.last_stream_id, errorCode: goAwayFrame.error_code, debugData: data)
            goAway = details
            usable.store(false, ordering: .releasing)
            let refusal = refusalForNewRequests()!
            inbox.withLock { $0.refusal = refusal }
            for request in queue.removeAll() { request.finish(.failure(refusal)) }
            queuedCount.store(0, ordering: .relaxed)
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
        if let goAway, streamID > goAway.lastStreamID {
            request.finish(.failure(HTTP2Error(.goAway, "\(endpoint) sent GOAWAY with last stream \(goAway.lastStreamID); \(what) was not processed", isRetryable: true, goAway: goAway, http2ErrorCode: goAway.errorCode)))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            request.finish(.failure(HTTP2Error(.refusedStream, "\(endpoint) refused \(what) (RST_STREAM REFUSED_STREAM); it was not processed", isRetryable: true, http2ErrorCode: errorCode)))
        } else if errorCode == NGHTTP2_NO_ERROR.rawValue {
            request.finish(.failure(HTTP2Error(.protocolError, "\(what) ended without a :status")))
        } else {
            request.finish(.failure(HTTP2Error(.streamReset, "\(endpoint) reset \(what) with \(HTTP2Error.errorCodeName(errorCode))", http2ErrorCode: errorCode)))
        }
    }
}

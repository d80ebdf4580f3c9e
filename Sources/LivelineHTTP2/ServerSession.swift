import CEpoll
import CNghttp2
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The engine behind one `HTTP2ServerConnection`: TLS accept, nghttp2 server session, dispatch
/// of complete requests to the handler, responses and connection controls.
///
/// Thread confinement: created and used only on the server loop's thread (the public
/// `HTTP2ServerConnection` hops there); that is what makes `@unchecked Sendable` sound.
final class ServerSession: SessionDriver, @unchecked Sendable {
    let server: ServerCore
    private let id: UInt64
    private var streams: [Int32: ServerStream] = [:]
    private var header = HeaderBlock()
    private var maxStreams: Int
    private var settingsSent = false
    private var draining = false
    private var handshakeTimer: UInt64?
    private var idleTimer: UInt64?
    /// When the handshake finished (monotonic nanoseconds): idle time counts from here or from
    /// the last bytes read, whichever is later.
    private var handshakeCompletedAt: UInt64 = 0
    /// `HTTP2ServerConfiguration.maxHeaderListSize`, read by the header callback.
    let maxHeaderListSize: Int
    private(set) var handle: HTTP2ServerConnection?
    /// The last value decoded for `:path` and each common header name (see `ServerCallbacks`).
    private var recentValues = [String](repeating: "", count: ServerCallbacks.recentValueSlots)

    init(loop: EventLoop, fd: Int32, id: UInt64, server: ServerCore) {
        self.server = server
        self.id = id
        self.maxStreams = server.configuration.maxConcurrentStreams
        self.maxHeaderListSize = server.configuration.maxHeaderListSize
        super.init(loop: loop, fd: fd)
    }

    deinit {
        header.deallocate()
    }

    func start() -> Bool {
        guard attachTLS(context: server.context, isServer: true), watch(EPOLLIN.rawValue) else { return false }
        handshakeTimer = loop.schedule(after: server.configuration.handshakeTimeout) { [self] in
            handshakeTimer = nil
            if !handshakeComplete { close(HTTP2Error(.tlsFailed, "TLS handshake timed out"), abrupt: true) }
        }
        return true
    }

    override func handshakeDidComplete() -> HTTP2Error? {
        if let handshakeTimer { loop.cancelTimer(handshakeTimer) }
        handshakeTimer = nil
        guard let ssl else { return HTTP2Error(.tlsFailed, "TLS state lost") }
        var protocolPointer: UnsafePointer<UInt8>?
        var protocolLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolPointer, &protocolLength)
        // No ALPN at all means the client assumes HTTP/2 (allowed only when configured); a client
        // that offered ALPN without h2 never gets here (the selection callback sends a fatal alert).
        let priorKnowledge = protocolLength == 0 && server.configuration.acceptsClientsWithoutALPN
        guard priorKnowledge || (protocolLength == 2 && protocolPointer?[0] == UInt8(ascii: "h") && protocolPointer?[1] == UInt8(ascii: "2")) else {
            return HTTP2Error(.alpnRefused, "client did not offer ALPN h2")
        }
        let connection = HTTP2ServerConnection(id: id, peerAddress: SocketAddress.peer(of: fd).description,
                                               peerCertificate: Self.peerCertificate(ssl), session: self)
        handle = connection
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, ServerCallbacks.onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, ServerCallbacks.onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, ServerCallbacks.onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, ServerCallbacks.onFrame)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, ServerCallbacks.onStreamClose)
        var created: OpaquePointer?
        let result = nghttp2_session_server_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque())
        guard result == 0, let created else {
            return HTTP2Error(.internalError, "nghttp2_session_server_new failed: \(String(cString: nghttp2_strerror(result)))")
        }
        session = created
        server.connectionOpened(connection)
        sendSettings()
        handshakeCompletedAt = EventLoop.now()
        scheduleIdleCheck(after: server.configuration.idleTimeout)
        return nil
    }

    /// Checks after `delay` whether the connection has been idle for `idleTimeout`: nothing read
    /// and no request waiting for its answer. Idle: GOAWAY(NO_ERROR), then close once written
    /// (dropped if even that cannot be written within another `idleTimeout`).
    private func scheduleIdleCheck(after delay: Duration) {
        idleTimer = loop.schedule(after: delay) { [self] in
            idleTimer = nil
            guard !isClosed else { return }
            let timeout = server.configuration.idleTimeout
            let quietSince = max(lastReadTime, handshakeCompletedAt)
            let quiet = EventLoop.now() &- quietSince
            let awaitingAnswer = streams.values.contains { $0.dispatched && !$0.responded }
            if awaitingAnswer || quiet < timeout.nanoseconds {
                scheduleIdleCheck(after: awaitingAnswer ? timeout : .nanoseconds(Int64(timeout.nanoseconds - quiet)))
                return
            }
            goAway(lastStreamID: nil, errorCode: 0, debugData: [])
            idleTimer = loop.schedule(after: timeout) { [self] in
                idleTimer = nil
                close(HTTP2Error(.timeout, "idle connection did not take its GOAWAY"), abrupt: true)
            }
        }
    }

    private func sendSettings() {
        guard let session else { return }
        settingsSent = true
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(clamping: maxStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: UInt32(clamping: maxHeaderListSize)),
        ]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 1 << 24)
        loop.flushSoon(self)
    }

    static func peerCertificate(_ ssl: OpaquePointer) -> HTTP2PeerCertificate? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        guard let name = X509_get_subject_name(certificate) else { return nil }
        var subject = ""
        if let bio = BIO_new(BIO_s_mem()) {
            _ = X509_NAME_print_ex(bio, name, 0, liveline_XN_FLAG_RFC2253())
            var data: UnsafeMutablePointer<CChar>?
            let length = liveline_BIO_get_mem_data(bio, &data)
            if let data, length > 0 {
                subject = String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
            }
            BIO_free(bio)
        }
        func entry(_ nid: Int32) -> String? {
            let index = X509_NAME_get_index_by_NID(name, nid, -1)
            guard index >= 0, let item = X509_NAME_get_entry(name, index), let value = X509_NAME_ENTRY_get_data(item) else { return nil }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, value)
            guard length >= 0, let utf8 else { return nil }
            defer { liveline_OPENSSL_free(utf8) }
            return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
        }
        return HTTP2PeerCertificate(subject: subject, userID: entry(NID_userId), commonName: entry(NID_commonName),
                                    organizationalUnit: entry(NID_organizationalUnitName))
    }

    override func transportDidClose(_ error: HTTP2Error?) {
        if let handshakeTimer { loop.cancelTimer(handshakeTimer) }
        handshakeTimer = nil
        if let idleTimer { loop.cancelTimer(idleTimer) }
        idleTimer = nil
        streams.removeAll()
        let closedHandle = handle
        handle = nil  // break the session ↔ handle cycle
        closedHandle?.markClosed()
        server.sessionClosed(self, id: id, handle: closedHandle)
    }

    // MARK: Controls (loop thread)

    func setMaxConcurrentStreams(_ value: Int) {
        maxStreams = max(0, value)
        guard settingsSent, let session, !isClosed else { return }
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: UInt32(clamping: maxStreams))]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1)
        loop.flushSoon(self)
    }

    func goAway(lastStreamID: Int32?, errorCode: UInt32, debugData: [UInt8]) {
        guard let session, !isClosed else { return }
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        _ = debugData.withUnsafeBufferPointer { data in
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, data.baseAddress, data.count)
        }
        flushThenClose(nil)
    }

    func closeGracefully() {
        guard let session, !isClosed else {
            close(nil, abrupt: false)
            return
        }
        if !draining {
            draining = true
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), 0, nil, 0)
        }
        if streams.isEmpty { flushThenClose(nil) } else { loop.flushSoon(self) }
    }

    func respond(streamID: Int32, response: HTTP2ServerResponse) {
        guard let session, !isClosed, let stream = streams[streamID], !stream.responded else { return }
        stream.responded = true
        header.reset()
        header.add(":status", String(response.status))
        for field in response.headers.fields {
            header.add(field.name, field.value, lowercaseName: true)
        }
        let result: Int32 = header.withFields { fields, count in
            if response.body.isEmpty {
                return nghttp2_submit_response(session, streamID, fields, count, nil)
            }
            stream.responseBody = response.body
            var provider = nghttp2_data_provider()
            provider.source.ptr = Unmanaged.passUnretained(stream).toOpaque()
            provider.read_callback = ServerCallbacks.readBody
            return nghttp2_submit_response(session, streamID, fields, count, &provider)
        }
        if result != 0 {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_INTERNAL_ERROR.rawValue))
        }
        loop.flushSoon(self)
    }

    func reset(streamID: Int32, errorCode: UInt32) {
        guard let session, !isClosed, let stream = streams[streamID], !stream.responded else { return }
        stream.responded = true
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
        loop.flushSoon(self)
    }

    // MARK: nghttp2 events (loop thread)

    func beginStream(_ streamID: Int32) {
        guard let session else { return }
        let stream = ServerStream(streamID: streamID)
        streams[streamID] = stream
        nghttp2_session_set_stream_user_data(session, streamID, Unmanaged.passUnretained(stream).toOpaque())
    }

    /// `String(decoding: bytes, as: UTF8.self)`, reusing the string made for the same slot last time
    /// when the bytes are the same (clients repeat `:path`, `authorization` and the like on every request).
    func recentValue(slot: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return "" }
        let last = recentValues[slot]
        if last.utf8.count == bytes.count,
            last.utf8.withContiguousStorageIfAvailable({ memcmp($0.baseAddress!, start, bytes.count) == 0 }) == true
        {
            return last
        }
        let text = String(decoding: bytes, as: UTF8.self)
        recentValues[slot] = text
        return text
    }

    /// The answer to a request whose body grows past `maxRequestBodySize`: APNs' 413
    /// (apns-protocol.md §4.2).
    static let bodyTooLargeResponse = HTTP2ServerResponse(
        status: 413, headers: ["content-type": "application/json"], body: Array(#"{"reason":"PayloadTooLarge"}"#.utf8))

    func bodyChunk(_ stream: ServerStream, _ data: UnsafePointer<UInt8>, _ length: Int) {
        // Already answered (the body was too large): the rest is discarded. nghttp2 still counts
        // the bytes as consumed and sends WINDOW_UPDATE, so the connection's window stays open.
        if stream.responded { return }
        if stream.body.count + length > server.configuration.maxRequestBodySize {
            stream.body = []
            respond(streamID: stream.streamID, response: Self.bodyTooLargeResponse)
            return
        }
        stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
    }

    /// The answer to a request whose header list is over `maxHeaderListSize` (RFC 6585 §5).
    static let headerListTooLargeResponse = HTTP2ServerResponse(status: 431)

    /// A request's header list went over the limit: answer 431 (the handler never sees it) and
    /// discard the rest of its stream as for a body too large.
    func headerListTooLarge(_ stream: ServerStream) {
        guard !stream.responded else { return }
        stream.headers.removeAll()
        respond(streamID: stream.streamID, response: Self.headerListTooLargeResponse)
    }

    func requestComplete(_ stream: ServerStream) {
        guard !stream.dispatched, !stream.responded, let handle else { return }
        stream.dispatched = true
        var request = HTTP2ServerRequest(
            method: stream.method, path: stream.path, authority: stream.authority, scheme: stream.scheme,
            headers: HTTP2Headers(stream.headers), body: stream.body, streamID: stream.streamID, connection: handle)
        request.neverIndexedFields = stream.neverIndexed
        server.dispatch(request, HTTP2ServerResponder(connection: handle, streamID: stream.streamID))
        loop.flushSoon(self)
    }

    func streamClosed(_ streamID: Int32) {
        streams[streamID] = nil
        if draining && streams.isEmpty { flushThenClose(nil) }
    }
}

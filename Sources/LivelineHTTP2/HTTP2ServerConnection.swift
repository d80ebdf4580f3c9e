import Synchronization

/// One client connection to an `HTTP2Server`: who it is, and controls a test server or the APNs
/// simulator needs (change the stream limit, GOAWAY, drop, close). Callable from any thread;
/// the work runs on the server's loop thread, in the order issued by the calling thread.
public final class HTTP2ServerConnection: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// A number unique within the server, increasing in accept order (from 1).
    public let id: UInt64
    /// The client's address, `ip:port`.
    public let peerAddress: String
    /// The client's certificate when it sent one (only when `clientCAFile` is configured).
    public let peerCertificate: HTTP2PeerCertificate?

    private let session: ServerSession
    private let closeHandlers = Mutex<(closed: Bool, handlers: [@Sendable () -> Void])>((false, []))

    init(id: UInt64, peerAddress: String, peerCertificate: HTTP2PeerCertificate?, session: ServerSession) {
        self.id = id
        self.peerAddress = peerAddress
        self.peerCertificate = peerCertificate
        self.session = session
    }

    /// Whether the connection is still open.
    public var isOpen: Bool { closeHandlers.withLock { !$0.closed } }

    /// Calls `handler` once when the connection has closed (at once if it already has), e.g. to
    /// forget per-connection state.
    public func whenClosed(_ handler: @escaping @Sendable () -> Void) {
        let closedNow = closeHandlers.withLock { state -> Bool in
            if state.closed { return true }
            state.handlers.append(handler)
            return false
        }
        if closedNow { handler() }
    }

    func markClosed() {
        let handlers = closeHandlers.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            defer { state.handlers.removeAll() }
            return state.handlers
        }
        for handler in handlers { handler() }
    }

    /// Sends SETTINGS with a new SETTINGS_MAX_CONCURRENT_STREAMS. Called from the
    /// `onConnection` hook it replaces the value in the connection's first SETTINGS.
    public func setMaxConcurrentStreams(_ value: Int) {
        onLoop { $0.setMaxConcurrentStreams(value) }
    }

    /// Sends GOAWAY, then closes the connection once the frame is written.
    /// - Parameters:
    ///   - lastStreamID: the highest stream the server processed; nil uses the last stream it
    ///     received. Streams above it are unprocessed, and the client may retry them.
    ///   - errorCode: the HTTP/2 error code (0 is NO_ERROR).
    ///   - debugData: opaque data, e.g. APNs' JSON `{"reason":"Shutdown"}`.
    public func goAway(lastStreamID: Int32? = nil, errorCode: UInt32 = 0, debugData: [UInt8] = []) {
        onLoop { $0.goAway(lastStreamID: lastStreamID, errorCode: errorCode, debugData: debugData) }
    }

    /// Drops the TCP connection at once (RST, no GOAWAY, no TLS close_notify).
    public func drop() {
        onLoop { $0.close(nil, abrupt: true) }
    }

    /// Closes gracefully: GOAWAY(NO_ERROR), finish open streams, then close.
    public func close() {
        onLoop { $0.closeGracefully() }
    }

    func respond(streamID: Int32, response: HTTP2ServerResponse, delay: Duration?) {
        if let delay, delay > .zero {
            onLoop { session in
                session.loop.schedule(after: delay) { session.respond(streamID: streamID, response: response) }
            }
        } else {
            onLoop { $0.respond(streamID: streamID, response: response) }
        }
    }

    func reset(streamID: Int32, errorCode: UInt32) {
        onLoop { $0.reset(streamID: streamID, errorCode: errorCode) }
    }

    /// Runs `work` on the loop thread: at once when called there, with the batch's other answers
    /// when called by a server worker inside a batch (in the order issued), else through the
    /// loop's queue.
    private func onLoop(_ work: @escaping @Sendable (ServerSession) -> Void) {
        if session.loop.inLoop {
            work(session)
            return
        }
        let session = self.session
        let run: @Sendable () -> Void = { work(session) }
        if !session.server.postFromWorker(run) { session.loop.execute(run) }
    }

    /// `#id ip:port`.
    public var description: String { "#\(id) \(peerAddress)" }

    /// Who the client is, without the session: it keeps the last `:path` and `authorization`
    /// bytes it decoded, which `dump` must not print.
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "peerAddress": peerAddress, "peerCertificate": peerCertificate as Any])
    }

    /// Identity equality.
    public static func == (lhs: HTTP2ServerConnection, rhs: HTTP2ServerConnection) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

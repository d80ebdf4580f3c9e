/// The life of one client connection, from the first connect attempt to closed, as a value: the
/// state it is in, what each event does to it, and the actions the session must carry out.
///
/// It owns the addresses still to try and the last connect error, whether the connection is
/// ready, the server's GOAWAY, the client's close and its mode, whether the client's own GOAWAY
/// went out, why the connection ended, and which connection-level error (built in
/// `HTTP2Error+Connection.swift`) each request and waiter gets. It holds no socket, TLS, nghttp2,
/// timer, lock or request: `ClientSession` keeps those, feeds events in and performs the actions
/// in the order returned.
///
/// An event that ends the connection returns `.closeTransport` (always last); the state moves to
/// `.closed` when the transport reports back through `transportClosed`, at once or once the
/// nghttp2 call in progress returns. Events that do not apply to the current state, and every
/// event after `.closed`, return no actions and change nothing.
struct ClientConnectionLifecycle {
    /// How the client asked to close.
    enum CloseMode: Equatable {
        /// Finish queued and in-flight requests, then GOAWAY and close.
        case drain
        /// Fail everything not finished, then GOAWAY and close.
        case immediately
    }

    enum State: Equatable {
        /// Created; `start` not called yet.
        case idle
        /// Trying TCP connects in resolver order; `next` is the index of the address after the one
        /// being tried.
        case connecting(addresses: [SocketAddress], next: Int, lastError: String)
        /// TCP is up; the TLS handshake and the server's first SETTINGS are pending.
        case handshaking
        /// Requests go out on streams.
        case ready
        /// The server sent GOAWAY: no new streams; those at or below its last stream ID may finish.
        case goingAway(HTTP2Error.GoAway)
        /// The client asked to close; `goAway` is the server's, if one came before or since;
        /// `goodbyeSent` once the client's own GOAWAY is submitted (nothing left to run).
        case closing(mode: CloseMode, goAway: HTTP2Error.GoAway?, goodbyeSent: Bool)
        /// The transport is closed. `error` is what `closed()` reports (nil: the client closed it
        /// and no GOAWAY came); `refusal` is what new requests fail with.
        case closed(error: HTTP2Error?, refusal: HTTP2Error)
    }

    /// How the requests on open streams fail.
    enum StreamFailure: Equatable {
        /// Each with this error (the client closed with `.immediately`).
        case all(HTTP2Error)
        /// The connection ended with `failure`: streams above the GOAWAY's last stream ID were not
        /// processed (retryable); the others fail as not complete (the server may have acted).
        case connectionEnded(HTTP2Error, goAway: HTTP2Error.GoAway?, endpoint: String)

        /// The error of the request on `streamID`.
        func error(forStream streamID: Int32) -> HTTP2Error {
            switch self {
            case .all(let error):
                return error
            case .connectionEnded(let failure, let goAway, let endpoint):
                if let goAway, streamID > goAway.lastStreamID {
                    return .goAway(goAway, from: endpoint, .streamNotProcessed("stream \(streamID)"))
                }
                return failure.incomplete(onStream: streamID)
            }
        }
    }

    enum Action: Equatable {
        /// Open a non-blocking socket and connect it to the address; report `connected` or
        /// `connectFailed`.
        case connect(SocketAddress)
        /// Start the TLS handshake on the connected socket (then nghttp2; report `settingsReceived`).
        case startTLS
        /// End `connect`'s wait: nil succeeds (stop the connect timer, mark the connection usable,
        /// start idle pings); an error is what `connect` throws.
        case finishConnect(HTTP2Error?)
        /// From now on new requests fail with this error; requests already handed over but not
        /// yet taken by the loop join the queue (they came before the refusal). Not usable.
        case refuseNewRequests(HTTP2Error)
        /// Fail every queued request with this error.
        case failQueued(HTTP2Error)
        /// Fail every request on an open stream, each with the error the failure gives its stream.
        case failActive(StreamFailure)
        /// Fail every PING waiting for its acknowledgement.
        case failPings(HTTP2Error)
        /// Submit the client's GOAWAY(NO_ERROR) and end the session; the transport closes once written.
        case sendGoAway
        /// Run a write pass soon (submit, GOAWAY, flush).
        case flush
        /// Close the socket with this error (`abrupt`: no close_notify, TCP reset).
        case closeTransport(HTTP2Error, abrupt: Bool)
        /// The connection is closed: stop the timers and tell the `whenClosed` waiters this reason.
        case finishClose(HTTP2Error?)
    }

    /// `host:port`, as the errors name it.
    let endpoint: String
    let connectTimeout: Duration
    let pingTimeout: Duration
    private(set) var state: State = .idle

    init(endpoint: String, connectTimeout: Duration, pingTimeout: Duration) {
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.pingTimeout = pingTimeout
    }

    // MARK: Questions the session asks on its paths (no allocation in `.ready`)

    /// What a new request fails with now, or nil when it may be queued.
    var refusal: HTTP2Error? {
        switch state {
        case .idle, .connecting, .handshaking, .ready:
            return nil
        case .goingAway(let goAway):
            return .goAway(goAway, from: endpoint, .requestNotSent)
        case .closing(_, let goAway, _):
            guard let goAway else { return .closing(endpoint) }
            return .goAway(goAway, from: endpoint, .requestNotSent)
        case .closed(_, let refusal):
            return refusal
        }
    }

    /// Whether queued requests may be started on new streams (after a GOAWAY they may not).
    var opensStreams: Bool {
        switch state {
        case .ready, .closing(_, nil, _): true
        default: false
        }
    }

    /// Whether a PING may be sent: from ready until the transport closes.
    var acceptsPings: Bool {
        switch state {
        case .ready, .goingAway, .closing: true
        default: false
        }
    }

    /// The server's GOAWAY, if one came.
    var goAway: HTTP2Error.GoAway? {
        switch state {
        case .goingAway(let goAway): goAway
        case .closing(_, let goAway, _): goAway
        default: nil
        }
    }

    /// The retryable error of a request whose stream closed above the GOAWAY's last stream ID
    /// (the server did not process it), or nil when there is no such GOAWAY.
    func notProcessed(streamID: Int32, _ what: @autoclosure () -> String) -> HTTP2Error? {
        guard let goAway, streamID > goAway.lastStreamID else { return nil }
        return .goAway(goAway, from: endpoint, .streamNotProcessed(what()))
    }

    // MARK: Connect events

    /// The addresses the name resolved to, in order: try the first.
    mutating func start(addresses: [SocketAddress]) -> [Action] {
        guard case .idle = state else { return [] }
        state = .connecting(addresses: addresses, next: 0, lastError: "no address to try")
        return tryNextAddress()
    }

    /// The address being tried did not connect (`reason`: the system's words).
    mutating func connectFailed(_ reason: String) -> [Action] {
        guard case .connecting(let addresses, let next, _) = state, next > 0 else { return [] }
        state = .connecting(addresses: addresses, next: next, lastError: "\(addresses[next - 1]): \(reason)")
        return tryNextAddress()
    }

    /// The address being tried accepted the TCP connection.
    mutating func connected() -> [Action] {
        guard case .connecting = state else { return [] }
        state = .handshaking
        return [.startTLS]
    }

    /// The server's SETTINGS arrived (the first makes the connection ready).
    mutating func settingsReceived() -> [Action] {
        guard case .handshaking = state else { return [] }
        state = .ready
        return [.finishConnect(nil)]
    }

    /// `connectTimeout` passed.
    mutating func connectTimedOut() -> [Action] {
        switch state {
        case .idle, .connecting, .handshaking:
            return [.closeTransport(.connectTimedOut(endpoint, after: connectTimeout), abrupt: true)]
        default:
            return []
        }
    }

    private mutating func tryNextAddress() -> [Action] {
        guard case .connecting(let addresses, let next, let lastError) = state else { return [] }
        guard next < addresses.count else {
            return [.closeTransport(.connectFailed(endpoint, lastError: lastError), abrupt: true)]
        }
        state = .connecting(addresses: addresses, next: next + 1, lastError: lastError)
        return [.connect(addresses[next])]
    }

    // MARK: Running events

    /// The server sent GOAWAY: queued requests fail (retryable), no new streams open, streams at
    /// or below its last stream ID may still finish. Before ready it fails the connect.
    mutating func goAwayReceived(_ goAway: HTTP2Error.GoAway) -> [Action] {
        let refusal = HTTP2Error.goAway(goAway, from: endpoint, .requestNotSent)
        switch state {
        case .idle, .connecting, .handshaking:
            return [.refuseNewRequests(refusal), .closeTransport(.goAway(goAway, from: endpoint, .connectionEnded(then: nil)), abrupt: false)]
        case .ready, .goingAway:
            state = .goingAway(goAway)
        case .closing(let mode, _, let goodbyeSent):
            state = .closing(mode: mode, goAway: goAway, goodbyeSent: goodbyeSent)
        case .closed:
            return []
        }
        return [.refuseNewRequests(refusal), .failQueued(refusal)]
    }

    /// No request is queued or on a stream (asked before each write pass): a closing connection
    /// says goodbye.
    mutating func streamsDrained() -> [Action] {
        guard case .closing(let mode, let goAway, false) = state else { return [] }
        state = .closing(mode: mode, goAway: goAway, goodbyeSent: true)
        return [.sendGoAway]
    }

    /// nghttp2 has no stream IDs left: finish what runs, then close.
    mutating func streamIDsExhausted() -> [Action] {
        guard case .ready = state else { return [] }
        state = .closing(mode: .drain, goAway: nil, goodbyeSent: false)
        return [.refuseNewRequests(.closing(endpoint))]
    }

    /// A PING was not acknowledged within `pingTimeout`.
    mutating func pingTimedOut() -> [Action] {
        guard acceptsPings else { return [] }
        return [.closeTransport(.pingTimedOut(endpoint, after: pingTimeout), abrupt: true)]
    }

    // MARK: Close events

    /// The client asked to close (`close(drain:)`, or the connection was dropped). A second
    /// `.drain` only flushes again; `.immediately` after `.drain` fails what is left; anything
    /// after `.immediately` is ignored.
    mutating func closeRequested(_ mode: CloseMode) -> [Action] {
        let closedByClient = HTTP2Error.closedByClient(endpoint)
        let failNow: [Action] = [.failQueued(closedByClient.retryable(true)), .failActive(.all(closedByClient))]
        switch state {
        case .idle, .connecting, .handshaking:
            return [.refuseNewRequests(.closing(endpoint)), .closeTransport(.closedBeforeReady(endpoint), abrupt: true)]
        case .ready:
            state = .closing(mode: mode, goAway: nil, goodbyeSent: false)
            return [.refuseNewRequests(.closing(endpoint))] + (mode == .immediately ? failNow : []) + [.flush]
        case .goingAway(let goAway):
            // New requests already fail with the GOAWAY's refusal.
            state = .closing(mode: mode, goAway: goAway, goodbyeSent: false)
            return (mode == .immediately ? failNow : []) + [.flush]
        case .closing(.drain, let goAway, let goodbyeSent):
            state = .closing(mode: mode, goAway: goAway, goodbyeSent: goodbyeSent)
            return (mode == .immediately ? failNow : []) + [.flush]
        case .closing(.immediately, _, _), .closed:
            return []
        }
    }

    /// The transport closed: with `error` for a failure (the peer closed, an I/O, TLS or protocol
    /// error, or the error of a `.closeTransport`), nil for the clean end of the session after a
    /// GOAWAY either way. Everything still waiting fails; the waiters learn why.
    mutating func transportClosed(_ error: HTTP2Error?) -> [Action] {
        var actions: [Action] = []
        var clientClosed = false
        var refusalInEffect: HTTP2Error?
        switch state {
        case .closed:
            return []
        case .idle, .connecting, .handshaking:
            actions.append(.finishConnect(error ?? .closedBeforeSettings(endpoint)))
        case .ready:
            break
        case .goingAway:
            refusalInEffect = refusal
        case .closing:
            clientClosed = error == nil
            refusalInEffect = refusal
        }
        let serverGoAway = goAway
        let failure: HTTP2Error = if let serverGoAway {
            .goAway(serverGoAway, from: endpoint, .connectionEnded(then: error))
        } else {
            error ?? (clientClosed ? .closedByClient(endpoint) : .connectionClosed(endpoint))
        }
        let lastingRefusal = refusalInEffect ?? failure.notSent()
        let reported = clientClosed && serverGoAway == nil ? nil : failure
        state = .closed(error: reported, refusal: lastingRefusal)
        actions += [
            .refuseNewRequests(lastingRefusal),
            .failActive(.connectionEnded(failure, goAway: serverGoAway, endpoint: endpoint)),
            .failQueued(failure.notSent()),
            .failPings(failure),
            .finishClose(reported),
        ]
        return actions
    }
}

import CMicroHTTPD
import Synchronization

/// The server's state for one request on one connection, from the request line (libmicrohttpd's
/// URI log callback creates it) to the completion callback. libmicrohttpd holds it (retained) in
/// the request's `con_cls`.
///
/// Thread confinement (why `@unchecked Sendable` is sound): `connection`, `body`, `discarded`,
/// `began` and `handlerStarted` are touched only by the libmicrohttpd thread that owns the connection:
/// every access-handler and completion call for one connection runs on that connection's
/// worker thread. The handler's task and `stop()` touch only `guarded`, a mutex; the
/// libmicrohttpd calls they cause (`MHD_resume_connection`) are made while holding it, and only
/// in the phase where the connection is suspended and therefore alive.
final class RequestState: @unchecked Sendable {
    private struct Guarded {
        var lifecycle = RequestLifecycle()
        var response: HTTPResponse?
    }

    /// The connection; valid until the completion callback.
    let connection: OpaquePointer
    /// The request target as it came, before libmicrohttpd decoded it.
    let rawTarget: [UInt8]
    /// Whether the access handler was called for this request (connection thread only).
    var began = false
    /// The body received so far (connection thread only).
    private(set) var body: [UInt8] = []
    /// Bytes thrown away after the body went over the limit (connection thread only).
    private(set) var discarded = 0
    /// Whether the handler was started (connection thread only).
    private(set) var handlerStarted = false
    private let guarded = Mutex(Guarded())

    init(connection: OpaquePointer, rawTarget: [UInt8]) {
        self.connection = connection
        self.rawTarget = rawTarget
    }

    /// Makes room for a body of `expectedLength` bytes (connection thread).
    func reserve(_ expectedLength: Int) {
        if expectedLength > 0 { body.reserveCapacity(expectedLength) }
    }

    /// Whether the body went over the limit (the rest is discarded).
    var isTooLarge: Bool { discarded > 0 }

    /// Takes upload bytes (connection thread). Over `limit`, the body is dropped and further
    /// bytes only counted. Returns false once more than `discardLimit` bytes were discarded:
    /// the connection should then be closed instead of read to the end.
    func receive(_ bytes: UnsafeRawBufferPointer, limit: Int, discardLimit: Int) -> Bool {
        if discarded == 0 && body.count + bytes.count <= limit {
            body.append(contentsOf: bytes)
            return true
        }
        discarded += body.count + bytes.count
        body = []
        return discarded <= discardLimit
    }

    /// Hands the body over to the handler's request (connection thread).
    func takeBody() -> [UInt8] {
        defer { body = [] }
        return body
    }

    /// The handler starts (connection thread, inside the access handler).
    func start() {
        handlerStarted = true
        guarded.withLock { $0.lifecycle.start() }
    }

    /// The access handler that started the handler returns (connection thread): the answer to
    /// queue now, or nil after suspending the connection until the answer comes.
    func leaveAccessHandler() -> HTTPResponse? {
        guarded.withLock { state in
            switch state.lifecycle.leaveAccessHandler() {
            case .respond:
                defer { state.response = nil }
                return state.response
            case .suspend:
                MHD_suspend_connection(connection)
                return nil
            }
        }
    }

    /// Stores the handler's answer (any thread) and resumes the connection if it is suspended.
    /// Returns false when the answer came too late and was dropped.
    @discardableResult
    func answer(_ response: HTTPResponse) -> Bool {
        guarded.withLock { state in
            switch state.lifecycle.answer(status: response.status) {
            case .stored:
                state.response = response
                return true
            case .storedResume:
                state.response = response
                MHD_resume_connection(connection)
                return true
            case .dropped:
                return false
            }
        }
    }

    /// The stored answer, when libmicrohttpd calls the access handler after the resume
    /// (connection thread).
    func takeAnswer() -> HTTPResponse? {
        guarded.withLock { state in
            guard state.lifecycle.takeAnswer() else { return nil }
            defer { state.response = nil }
            return state.response
        }
    }

    /// The access handler answers itself (413, 503) without a handler (connection thread).
    func respondDirectly() {
        guarded.withLock { $0.lifecycle.respondDirectly() }
    }

    /// The completion callback (connection thread): from now on answers are dropped.
    func close() {
        let ok = guarded.withLock { state -> Bool in
            state.response = nil
            return state.lifecycle.close()
        }
        assert(ok, "libmicrohttpd completed a request whose connection was suspended")
    }
}

import Foundation
import Synchronization

/// A client HTTP/2 connection over TLS to one server: many concurrent requests on streams,
/// each with one result.
///
/// - Connects over TCP, requires TLS 1.2+ and ALPN `h2`, sends SNI and always verifies the
///   server certificate (system trust store or a CA file).
/// - Honours SETTINGS_MAX_CONCURRENT_STREAMS and its changes: requests that do not fit wait in
///   a queue (bounded by `maxQueuedRequests`) and start as streams close.
/// - Every request ends in exactly one result: a response, or an `HTTP2Error` whose
///   `isRetryable` says the server did not process it (REFUSED_STREAM, above a GOAWAY's last
///   stream ID, never sent).
///
/// Threading: each connection runs its own event-loop thread (epoll) which owns the socket, the
/// TLS state and the nghttp2 session; public methods may be called from any thread or task and
/// hand work to that thread. Completion callbacks run on the loop thread and must not block.
public final class HTTP2Connection: Sendable, CustomStringConvertible, CustomReflectable {
    /// The host given to `connect`.
    public var host: String { session.host }
    /// The port given to `connect`.
    public var port: Int { session.port }

    private let session: ClientSession

    private init(session: ClientSession) {
        self.session = session
    }

    /// `HTTP2Connection to host:port`.
    public var description: String { "HTTP2Connection to \(host):\(port)" }

    /// The endpoint and state, without the session: its requests hold provider tokens and
    /// device-token paths, which `dump` must not print.
    public var customMirror: Mirror {
        Mirror(self, children: ["host": host, "port": port, "isUsable": isUsable, "activeStreams": activeStreams, "queuedRequests": queuedRequests])
    }

    /// A connection dropped without `close()` drains and closes, so its thread and socket end.
    deinit {
        session.loop.execute { [session] in session.beginClose(.drain) }
    }

    /// Opens a connection and waits until the server's first SETTINGS have arrived.
    /// - Parameters:
    ///   - host: a DNS name or an IP literal.
    ///   - port: the TCP port (APNs: 443 or 2197).
    ///   - configuration: trust, client identity and timeouts.
    /// - Throws: `HTTP2Error` with `.invalidArgument` (including an empty `serverName`, which
    ///   would check no name), `.resolveFailed`, `.connectFailed`, `.connectTimeout`,
    ///   `.certificateVerificationFailed`, `.alpnRefused` or `.tlsFailed` (also when OpenSSL
    ///   refuses to set the name check: the handshake is then never started).
    ///
    /// Name resolution runs on a thread of its own and counts against `connectTimeout`.
    public static func connect(host: String, port: Int, configuration: HTTP2ClientConfiguration = HTTP2ClientConfiguration()) async throws(HTTP2Error) -> HTTP2Connection {
        try await connect(host: host, port: port, configuration: configuration, resolver: SocketAddress.systemResolver)
    }

    /// `connect(host:port:configuration:)` with the resolver given (tests stage slow ones).
    static func connect(host: String, port: Int, configuration: HTTP2ClientConfiguration, resolver: @escaping SocketAddress.Resolver) async throws(HTTP2Error) -> HTTP2Connection {
        guard !host.isEmpty else { throw HTTP2Error(.invalidArgument, "host is empty") }
        guard (1...65535).contains(port) else { throw HTTP2Error(.invalidArgument, "port \(port) is outside 1...65535") }
        guard configuration.connectTimeout > .zero, configuration.requestTimeout > .zero, configuration.pingTimeout > .zero else {
            throw HTTP2Error(.invalidArgument, "timeouts must be positive (connect \(configuration.connectTimeout), request \(configuration.requestTimeout), ping \(configuration.pingTimeout))")
        }
        let serverName = try ServerName(configuration.serverName ?? host)
        let context = try TLSContext.client(trust: configuration.trust, identity: configuration.identity)
        let (addresses, took) = try await SocketAddress.resolve(host: host, port: port, within: configuration.connectTimeout, resolver: resolver)
        let budget = configuration.connectTimeout - took
        guard budget > .zero else {
            throw HTTP2Error(.connectTimeout, "no HTTP/2 connection to \(host):\(port) within \(configuration.connectTimeout): resolving the host took all of it")
        }
        let loop = try EventLoop(name: "h2-client \(host):\(port)")
        let session = ClientSession(loop: loop, ownsLoop: true, host: host, port: port, serverName: serverName, context: context, configuration: configuration)
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                loop.execute { session.start(addresses: addresses, budget: budget, continuation: continuation) }
            }
        } catch let error as HTTP2Error {
            throw error
        } catch {
            throw HTTP2Error(.internalError, "\(error)")
        }
        return HTTP2Connection(session: session)
    }

    /// Sends `request` and returns its complete response.
    ///
    /// Cancelling the calling task resets the stream and throws `.cancelled`.
    /// - Throws: `HTTP2Error`: `.timeout` after the request's deadline, `.refusedStream` and
    ///   `.goAway` (retryable), `.streamReset`, `.connectionClosed`, `.closed`, `.invalidArgument`.
    public func send(_ request: HTTP2Request) async throws(HTTP2Error) -> HTTP2Response {
        let box = CancelBox()
        let result: Result<HTTP2Response, HTTP2Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTP2Response, HTTP2Error>, Never>) in
                let pending = enqueue(request) { continuation.resume(returning: $0) }
                if let pending, box.set(pending) {
                    session.loop.execute { [session] in session.cancel(pending) }
                }
            }
        } onCancel: {
            if let pending = box.cancel() {
                session.loop.execute { [session] in session.cancel(pending) }
            }
        }
        return try result.get()
    }

    /// Sends `request` and calls `completion` exactly once with its response or error.
    ///
    /// `completion` runs on the connection's loop thread (or at once on the caller's thread
    /// when the request is refused up front); it must not block.
    public func send(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTP2Response, HTTP2Error>) -> Void) {
        _ = enqueue(request, completion: completion)
    }

    private func enqueue(_ request: HTTP2Request, completion: @escaping @Sendable (Result<HTTP2Response, HTTP2Error>) -> Void) -> PendingRequest? {
        if !request.isChecked, let problem = Self.validate(request) {
            completion(.failure(problem))
            return nil
        }
        let timeout = request.timeout ?? session.configuration.requestTimeout
        let pending = PendingRequest(request: request, deadline: EventLoop.now() &+ timeout.nanoseconds, completion: completion)
        if session.loop.inLoop {
            // Sent from the loop thread itself (a completion starting the next request): no
            // inbox, no lock, no wake-up.
            return session.acceptOnLoop(pending) ? pending : nil
        }
        let limit = session.configuration.maxQueuedRequests
        let outcome = session.inbox.withLock { inbox -> (refusal: HTTP2Error?, schedule: Bool) in
            if let refusal = inbox.refusal { return (refusal, false) }
            if inbox.requests.count + session.queuedCount.load(ordering: .relaxed) >= limit {
                return (session.queueFullError, false)
            }
            inbox.requests.append(pending)
            if inbox.scheduled { return (nil, false) }
            inbox.scheduled = true
            return (nil, true)
        }
        if let refusal = outcome.refusal {
            completion(.failure(refusal))
            return nil
        }
        if outcome.schedule {
            session.loop.execute { [session] in session.drainInbox() }
        }
        return pending
    }

    private static func validate(_ request: HTTP2Request) -> HTTP2Error? {
        if request.method.isEmpty || !ByteScan.isToken(request.method) {
            return HTTP2Error(.invalidArgument, "method \"\(request.method)\" is not a valid HTTP method")
        }
        if !request.path.hasPrefix("/") || !ByteScan.isPath(request.path) {
            return HTTP2Error(.invalidArgument, "path \"\(Redaction.path(request.path))\" must start with / and contain no spaces or control characters")
        }
        for field in request.headers.fields {
            if field.name.isEmpty || !ByteScan.isFieldName(field.name) {
                return HTTP2Error(.invalidArgument, "header name \"\(field.name)\" is not a valid HTTP/2 field name")
            }
            if !ByteScan.isFieldValue(field.value) {
                return HTTP2Error(.invalidArgument, "the value of header \(field.name) contains NUL, CR or LF")
            }
            if isConnectionSpecific(field.name) {
                return HTTP2Error(.invalidArgument, "header \(field.name) is connection-specific and not allowed in HTTP/2")
            }
        }
        if let authority = request.authority, authority.isEmpty {
            return HTTP2Error(.invalidArgument, "authority is empty")
        }
        if let timeout = request.timeout, timeout <= .zero {
            return HTTP2Error(.invalidArgument, "timeout \(timeout) must be positive")
        }
        return nil
    }

    /// Header names RFC 9113 §8.2.2 forbids, as lower-case bytes.
    private static let connectionSpecific: [[UInt8]] = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"].map { Array($0.utf8) }

    /// Whether `name` is a connection-specific header (ASCII case-insensitive).
    private static func isConnectionSpecific(_ name: String) -> Bool {
        let length = name.utf8.count
        guard length == 7 || length == 10 || length == 16 || length == 17 else { return false }
        for candidate in connectionSpecific where candidate.count == length {
            var index = 0
            var matches = true
            for byte in name.utf8 {
                if byte | 0x20 != candidate[index] && byte != candidate[index] { matches = false; break }
                index += 1
            }
            if matches { return true }
        }
        return false
    }

    /// Sends a PING and returns the round-trip time.
    /// - Throws: `HTTP2Error` `.closed` when the connection is closed, `.pingTimeout` when no
    ///   acknowledgement came within `pingTimeout` (the connection is then closed).
    public func ping() async throws(HTTP2Error) -> Duration {
        let result: Result<Duration, HTTP2Error> = await withCheckedContinuation { continuation in
            session.loop.execute { [session] in
                session.ping { continuation.resume(returning: $0) }
            }
        }
        return try result.get()
    }

    /// Closes the connection and waits until the socket is closed.
    /// - Parameter drain: true (default) finishes queued and in-flight requests first; false
    ///   fails them with `.closed` (queued ones retryable). Either way new requests fail with
    ///   a retryable `.closed` error and a GOAWAY(NO_ERROR) is sent.
    public func close(drain: Bool = true) async {
        session.loop.execute { [session] in session.beginClose(drain ? .drain : .immediately) }
        _ = await closed()
    }

    /// Waits until the connection has closed; returns why (nil after a client-requested close).
    public func closed() async -> HTTP2Error? {
        await withCheckedContinuation { continuation in
            whenClosed { continuation.resume(returning: $0) }
        }
    }

    /// Calls `handler` once when the connection has closed (at once if it already has), with
    /// why it closed: nil after a client-requested close, else the GOAWAY or transport error.
    /// It runs on the loop thread (or the caller's, if already closed) and must not block.
    public func whenClosed(_ handler: @escaping @Sendable (HTTP2Error?) -> Void) {
        let closedNow = session.closeState.withLock { state -> (Bool, HTTP2Error?) in
            if state.isClosed { return (true, state.error) }
            state.waiters.append(handler)
            return (false, nil)
        }
        if closedNow.0 { handler(closedNow.1) }
    }

    /// Whether new requests are accepted: false after GOAWAY, `close`, or a transport failure.
    public var isUsable: Bool { session.usable.load(ordering: .acquiring) }

    /// The server's current SETTINGS_MAX_CONCURRENT_STREAMS (as last received).
    public var maxConcurrentStreams: Int { session.remoteMaxStreams.load(ordering: .relaxed) }

    /// Streams open now (requests sent and not finished).
    public var activeStreams: Int { session.activeCount.load(ordering: .relaxed) }

    /// Requests waiting for a free stream.
    public var queuedRequests: Int { session.queuedCount.load(ordering: .relaxed) }
}

/// Hands the pending request between `send` and its cancellation handler, whichever runs first.
private final class CancelBox: Sendable {
    private let state = Mutex<(pending: PendingRequest?, cancelled: Bool)>((nil, false))

    /// Stores the request; returns true when cancellation already happened (cancel it now).
    func set(_ pending: PendingRequest) -> Bool {
        state.withLock { state in
            state.pending = pending
            return state.cancelled
        }
    }

    /// Marks cancelled; returns the request to cancel if it is known yet.
    func cancel() -> PendingRequest? {
        state.withLock { state in
            state.cancelled = true
            return state.pending
        }
    }
}

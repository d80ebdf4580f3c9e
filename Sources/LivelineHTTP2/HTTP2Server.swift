import CEpoll
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 server over TLS (ALPN `h2` only) calling a handler for each complete request.
///
/// LivelineHTTP2 owns the transport: sockets, TLS (OpenSSL), HTTP/2 framing (nghttp2), the
/// event loop and its timers, on both the client and the server side. It must never import a
/// Liveline module; the simulator and the APNs client build on it, not the other way round.
///
/// Threading: one event-loop thread (epoll) accepts connections and runs every connection's
/// TLS and nghttp2 session; it does I/O only when the handler runs elsewhere. Where the handler
/// runs is `HTTP2ServerConfiguration.execution`:
/// - `.loop` (the default): on the loop thread, as each request completes. Answer at once for
///   the fastest path, or keep the responder and answer later; never block.
/// - `.workers(count:stackSize:)`: on serial worker threads of the server's own, a connection
///   always on the same one, in arrival order; the loop hands each worker the requests of one
///   loop iteration in batches of up to 16, and the answers and connection controls a handler
///   issues on its worker go back to the loop in batches too, in the order issued. The handler may
///   do real work there (parsing, signatures, state), but what it blocks on delays the other
///   connections of its worker.
/// Either way the responder is `Sendable`: answer from any thread or task, with
/// `respond(..., after:)` for a delayed answer. `stop()` lets the workers finish the requests
/// handed to them (their answers are sent), ends the worker threads, then closes every
/// connection and ends the loop thread; no thread outlives it.
public final class HTTP2Server: Sendable {
    /// A request handler: answer through the responder, now or later.
    public typealias Handler = @Sendable (HTTP2ServerRequest, HTTP2ServerResponder) -> Void

    /// The address the server listens on.
    public let host: String
    /// The port it listens on (the chosen one when configured with port 0).
    public let port: Int

    private let core: ServerCore

    private init(host: String, port: Int, core: ServerCore) {
        self.host = host
        self.port = port
        self.core = core
    }

    /// A server dropped without `stop()` stops, so its thread and sockets end.
    deinit {
        core.stopWorkers()
        core.loop.execute { [core] in core.shutdown() }
    }

    /// Starts listening and serving.
    /// - Parameters:
    ///   - configuration: identity, address, stream limit, client certificates.
    ///   - onConnection: called on the loop thread when a connection finished its TLS handshake,
    ///     before its first SETTINGS (call `setMaxConcurrentStreams` here to start it lower).
    ///   - handler: called for each complete request, on the thread `configuration.execution` names.
    /// - Throws: `HTTP2Error` `.invalidArgument` for unusable files or values, `.resolveFailed`
    ///   when a host name does not resolve within `resolveTimeout`, `.listenFailed` when the
    ///   address cannot be bound.
    /// - Important: a numeric `host` never waits; a name makes this call wait for the resolver
    ///   (on a thread of its own) for up to `resolveTimeout`.
    public static func start(
        configuration: HTTP2ServerConfiguration,
        onConnection: (@Sendable (HTTP2ServerConnection) -> Void)? = nil,
        handler: @escaping Handler
    ) throws(HTTP2Error) -> HTTP2Server {
        guard configuration.maxConcurrentStreams >= 0 else {
            throw HTTP2Error(.invalidArgument, "maxConcurrentStreams \(configuration.maxConcurrentStreams) must not be negative")
        }
        guard configuration.maxConnections >= 1 else {
            throw HTTP2Error(.invalidArgument, "maxConnections \(configuration.maxConnections) must be at least 1")
        }
        guard configuration.maxHeaderListSize >= 1 else {
            throw HTTP2Error(.invalidArgument, "maxHeaderListSize \(configuration.maxHeaderListSize) must be at least 1 byte")
        }
        if case .workers(let count, let stackSize) = configuration.execution, count < 1 || stackSize < 1 << 16 {
            throw HTTP2Error(.invalidArgument, "execution .workers(count: \(count), stackSize: \(stackSize)) needs at least 1 worker and 65,536 bytes of stack")
        }
        guard configuration.idleTimeout > .zero, configuration.handshakeTimeout > .zero, configuration.resolveTimeout > .zero else {
            throw HTTP2Error(.invalidArgument, "idleTimeout (\(configuration.idleTimeout)), handshakeTimeout (\(configuration.handshakeTimeout)) and resolveTimeout (\(configuration.resolveTimeout)) must be positive")
        }
        let context = try TLSContext.server(identity: configuration.identity, clientCAFile: configuration.clientCAFile)
        let listener = try Socket.listen(host: configuration.host, port: configuration.port, resolveTimeout: configuration.resolveTimeout)
        let loop: EventLoop
        do {
            loop = try EventLoop(name: "h2-server \(listener.address)", startsThread: false)
        } catch {
            Glibc.close(listener.fd)
            throw error
        }
        let core = ServerCore(loop: loop, listenFD: listener.fd, context: context, configuration: configuration,
                              onConnection: onConnection, handler: handler)
        // Registered before the loop thread starts (this thread is then its only user), so
        // nobody waits for the thread.
        let listening = core.startListening()
        loop.start()
        core.startWorkers(name: "h2w \(listener.address.port)")
        guard listening else {
            loop.stop()
            core.stopWorkers()
            throw HTTP2Error(.listenFailed, "cannot watch the listening socket on \(listener.address)")
        }
        return HTTP2Server(host: configuration.host, port: listener.address.port, core: core)
    }

    /// Starts a server whose handler is async: each request runs in its own task.
    /// - Throws: as `start(configuration:onConnection:handler:)`.
    public static func start(
        configuration: HTTP2ServerConfiguration,
        onConnection: (@Sendable (HTTP2ServerConnection) -> Void)? = nil,
        asyncHandler: @escaping @Sendable (HTTP2ServerRequest) async -> HTTP2ServerResponse
    ) throws(HTTP2Error) -> HTTP2Server {
        try start(configuration: configuration, onConnection: onConnection) { request, responder in
            Task { responder.respond(await asyncHandler(request)) }
        }
    }

    /// The connections open now, in accept order.
    public var connections: [HTTP2ServerConnection] {
        core.openConnections.withLock { Array($0.values) }.sorted { $0.id < $1.id }
    }

    /// How many connections were accepted and finished their handshake so far.
    public var acceptedConnections: Int { core.acceptedCount.load(ordering: .relaxed) }

    /// Lets the workers (if any) answer the requests handed to them and ends their threads,
    /// then stops accepting, closes every connection (GOAWAY, then close) and stops the loop thread.
    public func stop() async {
        core.stopWorkers()
        for worker in core.workers { await worker.waitUntilEnded() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            core.loop.execute { [core] in
                core.shutdown()
                continuation.resume()
            }
        }
    }
}

/// Shared state of a server: the listener, the sessions, the handler and its workers.
///
/// Thread confinement: `sessions`, `handoff` and the listening descriptor are used on the loop
/// thread only; `openConnections` (a `Mutex`) and `acceptedCount` (an `Atomic`) are read from any
/// thread. Everything else is immutable.
final class ServerCore: EventLoopHandler, EventLoopFlushable, @unchecked Sendable {
    let loop: EventLoop
    let context: TLSContext
    let configuration: HTTP2ServerConfiguration
    let handler: HTTP2Server.Handler
    let onConnection: (@Sendable (HTTP2ServerConnection) -> Void)?
    let openConnections = Mutex<[UInt64: HTTP2ServerConnection]>([:])
    let acceptedCount = Atomic<Int>(0)
    /// The handler's threads with `.workers`; empty with `.loop`.
    let workers: [ServerWorker]
    /// Requests completed in this loop iteration, by worker, handed over at its end.
    private var handoff: [[ServerWorker.Job]]
    var isFlushQueued = false
    private var listenFD: Int32
    private var sessions: [UInt64: ServerSession] = [:]
    private var nextID: UInt64 = 1
    private var stopped = false
    private var backoff = AcceptBackoff()
    /// The listening socket is unwatched for a while after accept ran out of resources.
    private var acceptPaused = false

    init(loop: EventLoop, listenFD: Int32, context: TLSContext, configuration: HTTP2ServerConfiguration,
         onConnection: (@Sendable (HTTP2ServerConnection) -> Void)?, handler: @escaping HTTP2Server.Handler) {
        self.loop = loop
        self.listenFD = listenFD
        self.context = context
        self.configuration = configuration
        self.onConnection = onConnection
        self.handler = handler
        if case .workers(let count, _) = configuration.execution {
            workers = (0..<count).map { _ in ServerWorker(loop: loop, handler: handler) }
        } else {
            workers = []
        }
        handoff = Array(repeating: [], count: workers.count)
    }

    func startWorkers(name: String) {
        guard case .workers(_, let stackSize) = configuration.execution else { return }
        for (index, worker) in workers.enumerated() { worker.start(name: "\(name)/\(index)", stackSize: stackSize) }
    }

    /// Asks every worker to finish what it was handed and end. Callable from any thread.
    func stopWorkers() {
        for worker in workers { worker.stop() }
    }

    /// Runs the handler for a complete request: at once on the loop thread, or queued for the
    /// connection's worker until the end of this loop iteration. Loop thread only.
    func dispatch(_ request: HTTP2ServerRequest, _ responder: HTTP2ServerResponder) {
        guard !workers.isEmpty else {
            handler(request, responder)
            return
        }
        let index = Int(request.connection.id % UInt64(workers.count))
        handoff[index].append((request, responder))
        // A long read (many requests in one TLS record) is handed over in parts, so the worker
        // starts on the first requests while the loop decodes the rest.
        if handoff[index].count >= ServerWorker.handOffSize {
            workers[index].submit(handoff[index])
            handoff[index].removeAll(keepingCapacity: true)
        } else {
            loop.flushSoon(self)
        }
    }

    /// Hands each worker the requests of this iteration, one batch (and one wake-up) each.
    func flushAtEndOfIteration() {
        for index in handoff.indices where !handoff[index].isEmpty {
            workers[index].submit(handoff[index])
            handoff[index].removeAll(keepingCapacity: true)
        }
    }

    /// Queues `work` with the calling worker's batch of answers; false when the caller is not a
    /// worker inside a batch (then the caller sends it to the loop itself).
    func postFromWorker(_ work: @escaping @Sendable () -> Void) -> Bool {
        for worker in workers where worker.post(work) { return true }
        return false
    }

    func startListening() -> Bool {
        loop.register(listenFD, events: EPOLLIN.rawValue, handler: self)
    }

    func handleEvents(_ events: UInt32) {
        while !stopped && !acceptPaused {
            let fd = liveline_accept4(listenFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                let code = errno
                switch backoff.acceptFailed(errno: code) {
                case .wait: return
                case .retry: continue
                case .pause(let pause, let log):
                    pauseAccepting(for: pause, errno: code, log: log)
                    return
                }
            }
            backoff.acceptSucceeded()
            if sessions.count >= configuration.maxConnections {
                // Over the limit: refuse by closing at once; the client sees EOF in its handshake.
                Glibc.close(fd)
                continue
            }
            Socket.setNoDelay(fd)
            let id = nextID
            nextID += 1
            let session = ServerSession(loop: loop, fd: fd, id: id, server: self)
            guard session.start() else {
                Glibc.close(fd)
                continue
            }
            sessions[id] = session
        }
    }

    /// Stops watching the listening socket for `pause` (it would report the waiting connection
    /// again at once), then watches it again and accepts what is waiting.
    private func pauseAccepting(for pause: Duration, errno code: Int32, log: Bool) {
        if log {
            let message = "HTTP2Server on \(configuration.host): accept failed: \(errnoString(code)) (errno \(code)); "
                + "not accepting for \(pause) at a time until an accept succeeds (open connections: \(sessions.count))\n"
            FileHandle.standardError.write(Data(message.utf8))
        }
        acceptPaused = true
        loop.unregister(listenFD)
        loop.schedule(after: pause) { [self] in
            acceptPaused = false
            guard !stopped, listenFD >= 0 else { return }
            _ = loop.register(listenFD, events: EPOLLIN.rawValue, handler: self)
            handleEvents(EPOLLIN.rawValue)
        }
    }

    func connectionOpened(_ connection: HTTP2ServerConnection) {
        acceptedCount.add(1, ordering: .relaxed)
        openConnections.withLock { $0[connection.id] = connection }
        onConnection?(connection)
    }

    func sessionClosed(_ session: ServerSession, id: UInt64, handle: HTTP2ServerConnection?) {
        sessions[id] = nil
        if handle != nil {
            _ = openConnections.withLock { $0.removeValue(forKey: id) }
        }
    }

    func shutdown() {
        guard !stopped else { return }
        stopped = true
        if !acceptPaused { loop.unregister(listenFD) }
        Glibc.close(listenFD)
        listenFD = -1
        for session in Array(sessions.values) {
            session.goAway(lastStreamID: nil, errorCode: 0, debugData: [])
            session.flushAtEndOfIteration()
            session.close(nil, abrupt: false)
        }
        sessions.removeAll()
        loop.stop()
    }
}

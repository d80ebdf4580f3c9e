import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd calling an async handler for each complete request.
///
/// Threading: libmicrohttpd runs `threads` epoll loops. When a request's body is complete, its
/// handler starts in a task on that loop thread and runs there until it first suspends; a
/// handler that answers without suspending is answered at once, otherwise the connection is
/// suspended (the loop serves other connections) and resumed when the answer comes. So keep the
/// synchronous part of a handler short, as for any task.
///
/// Keep-alive, `Connection: close`, `Expect: 100-continue`, chunked uploads and `HEAD` work as
/// libmicrohttpd does them.
///
/// Hostile clients: a request head that could be read two ways is answered 400
/// (`"code":"malformed-request"`, the message naming the rule) with `Connection: close`, before
/// its body is read and without calling the handler: `Content-Length` with `Transfer-Encoding`,
/// more than one `Content-Length`, a `Transfer-Encoding` other than `chunked`, whitespace before a
/// header's colon, a NUL or other control character in a header value or the target, a bare LF
/// or a folded header line, an HTTP/1.1 request without exactly one `Host`, and in the path `%00`
/// (or any encoded control), `%2F`, a malformed escape or bytes that are not UTF-8 once decoded.
/// So the handler's `path` is the client's path decoded once, each `/` a real segment boundary.
/// A request's line and headers must arrive within `requestHeaderTimeout` however slowly they are
/// trickled, and `perAddressConnectionLimit` caps the connections of one client address.
/// `tls` makes it an HTTPS server (libmicrohttpd's GnuTLS).
///
/// - Important: call `stop()` before dropping the last reference; a server that is not stopped
///   keeps serving until the process exits.
///
/// Module: LivelineHTTPServer owns HTTP/1.1 on libmicrohttpd: requests, responses, streamed bodies,
/// framing checks, limits (also against slow clients), TLS termination and stopping. It must never import another Liveline module: routes and what they mean
/// belong to the service and the dashboard.
public final class HTTPServer: Sendable {
    /// A request handler: every request gets the response it returns.
    public typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// The port the server listens on (the one chosen when configured with port 0).
    public let port: Int
    /// The address the server listens on, as configured.
    public let host: String
    /// Whether the server speaks HTTPS (`HTTPServerConfiguration.tls` was set).
    public let isTLS: Bool

    private let core: ServerCore
    private let lifecycle: Mutex<Lifecycle>

    private enum Lifecycle {
        case running(DaemonHandle)
        case stopping([CheckedContinuation<Void, Never>])
        case stopped
    }

    private init(host: String, port: Int, isTLS: Bool, core: ServerCore, daemon: OpaquePointer) {
        self.host = host
        self.port = port
        self.isTLS = isTLS
        self.core = core
        self.lifecycle = Mutex(.running(DaemonHandle(pointer: daemon)))
    }

    /// The server's base URL: `http://127.0.0.1:PORT`, `http://[::1]:PORT`, or `https://...` with TLS.
    public var url: String {
        let scheme = isTLS ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    /// Starts listening; returns once the socket is bound and accepting.
    /// - Parameters:
    ///   - configuration: address, limits and thread count.
    ///   - handler: called with each complete request, concurrently with others.
    /// - Throws: `HTTPServerError` for a value out of range, a host that is not an IP address
    ///   literal, or an address that cannot be bound (the message names `host:port` and the
    ///   system's reason, such as "Address already in use").
    public static func start(_ configuration: HTTPServerConfiguration, handler: @escaping Handler) throws(HTTPServerError) -> HTTPServer {
        try validate(configuration)
        let address = try SocketAddress.numeric(host: configuration.host, port: configuration.port)
        let tls = try configuration.tls.map(readTLS)
        defer { tls.map { free($0.key); free($0.certificate) } }
        let core = ServerCore(handler: handler, maxBodyBytes: configuration.maxBodyBytes,
                              requestHeaderTimeout: configuration.requestHeaderTimeout)
        let context = Unmanaged.passRetained(core)
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.family == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        if tls != nil { flags |= MHD_USE_TLS.rawValue }
        errno = 0
        let daemon = address.withSockaddr { sockaddr in
            var options = liveline_MHD_options(
                address: sockaddr,
                completed: MHDCallbacks.completed, completed_context: context.toOpaque(),
                logger: MHDCallbacks.log, logger_context: context.toOpaque(),
                uri_log: MHDCallbacks.uriLog, uri_log_context: context.toOpaque(),
                notify_connection: MHDCallbacks.notifyConnection, notify_connection_context: context.toOpaque(),
                thread_pool_size: UInt32(configuration.threads),
                connection_limit: UInt32(configuration.connectionLimit),
                per_ip_connection_limit: UInt32(configuration.perAddressConnectionLimit),
                connection_timeout_seconds: wholeSeconds(configuration.connectionTimeout),
                connection_memory_limit: configuration.maxHeaderBytes,
                tls_key_pem: tls.map { UnsafePointer($0.key) },
                tls_certificate_pem: tls.map { UnsafePointer($0.certificate) })
            return liveline_MHD_start_daemon(flags, MHDCallbacks.accept, context.toOpaque(),
                                             MHDCallbacks.access, context.toOpaque(), &options)
        }
        let failure = errno
        let log = core.endStartupLog()
        let endpoint = configuration.host.contains(":") ? "[\(configuration.host)]:\(configuration.port)" : "\(configuration.host):\(configuration.port)"
        guard let daemon else {
            core.deadlines?.stop()
            context.release()
            throw HTTPServerError(message: "cannot listen on \(endpoint): \(startFailure(errno: failure, log: log))")
        }
        let port = Int(liveline_MHD_bound_port(daemon))
        guard port > 0 else {
            MHD_stop_daemon(daemon)
            core.deadlines?.stop()
            context.release()
            throw HTTPServerError(message: "listening on \(endpoint), but libmicrohttpd does not report the bound port")
        }
        return HTTPServer(host: configuration.host, port: port, isTLS: tls != nil, core: core, daemon: daemon)
    }

    /// The certificate and key PEM files' contents as C strings (freed by the caller once the
    /// daemon started: GnuTLS keeps its own copy).
    private static func readTLS(_ tls: HTTPServerTLS) throws(HTTPServerError) -> (certificate: UnsafeMutablePointer<CChar>, key: UnsafeMutablePointer<CChar>) {
        guard HTTPServerTLS.isSupported else {
            throw HTTPServerError(message: "TLS was asked for, but this libmicrohttpd was built without HTTPS support")
        }
        func read(_ path: String, _ what: String, _ marker: String) throws(HTTPServerError) -> UnsafeMutablePointer<CChar> {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw HTTPServerError(message: "cannot read the TLS \(what) file \(path): \(reasonText(error))")
            }
            guard text.contains(marker) else {
                throw HTTPServerError(message: "the TLS \(what) file \(path) holds no PEM block (\"\(marker)\")")
            }
            return strdup(text)
        }
        let certificate = try read(tls.certificateFile, "certificate", "-----BEGIN CERTIFICATE-----")
        do {
            return (certificate, try read(tls.privateKeyFile, "private key", "PRIVATE KEY-----"))
        } catch {
            free(certificate)
            throw error
        }
    }

    private static func reasonText(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// Stops accepting connections, waits (bounded by `grace`) for running handlers to answer,
    /// then stops the daemon. Idempotent.
    ///
    /// From the call on, new connections are closed at once, requests that begin on open
    /// connections are answered 503 (`"code":"shutting-down"`) and every response carries
    /// `Connection: close`. Handlers that started get until `grace` to answer and have their
    /// answers sent (a body that completes meanwhile still gets its handler; a client stalled
    /// mid-upload is not waited for). Handlers still running then are answered 503 in their
    /// place (their later answers are dropped) and all connections are closed. Concurrent and
    /// later calls return when the first one is done.
    /// - Parameter grace: how long running handlers may take to answer.
    public func stop(grace: Duration = .seconds(10)) async {
        enum Role { case leader(DaemonHandle), follower, done }
        let role = lifecycle.withLock { state -> Role in
            switch state {
            case .running(let daemon):
                state = .stopping([])
                return .leader(daemon)
            case .stopping:
                return .follower
            case .stopped:
                return .done
            }
        }
        let daemon: DaemonHandle
        switch role {
        case .done:
            return
        case .follower:
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let finished = lifecycle.withLock { state -> Bool in
                    guard case .stopping(var waiters) = state else { return true }
                    waiters.append(continuation)
                    state = .stopping(waiters)
                    return false
                }
                if finished { continuation.resume() }
            }
            return
        case .leader(let handle):
            daemon = handle
        }
        core.beginStopping()
        await core.waitUntilDrained(grace: grace)
        core.answerRunningHandlers()
        await Self.stopDaemon(daemon)
        core.deadlines?.stop()
        Unmanaged.passUnretained(core).release()
        let waiters = lifecycle.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state = .stopped }
            if case .stopping(let waiters) = state { return waiters }
            return []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The daemon pointer. Confinement: only `start` (before the server is returned) and the one
    /// `stop()` call that wins the lifecycle transition use it, the latter on its own thread.
    private struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// `MHD_stop_daemon` joins libmicrohttpd's threads, so it runs on a thread of its own, not
    /// on one of the concurrency pool's.
    private static func stopDaemon(_ daemon: DaemonHandle) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                MHD_stop_daemon(daemon.pointer)
                continuation.resume()
            }
            thread.name = "http-server-stop"
            thread.start()
        }
    }

    private static func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
        func check(_ ok: Bool, _ message: @autoclosure () -> String) throws(HTTPServerError) {
            if !ok { throw HTTPServerError(message: message()) }
        }
        try check((0...65535).contains(configuration.port), "port \(configuration.port) is outside 0...65535 (0 picks a free port)")
        try check((1...1024).contains(configuration.threads), "threads \(configuration.threads) is outside 1...1024")
        try check(configuration.connectionLimit >= configuration.threads && configuration.connectionLimit <= Int(UInt32.max),
                  "connectionLimit \(configuration.connectionLimit) must be at least threads (\(configuration.threads)): each thread takes an equal share of the connections")
        try check(configuration.maxBodyBytes >= 0, "maxBodyBytes \(configuration.maxBodyBytes) must not be negative")
        try check(configuration.maxHeaderBytes >= 4096, "maxHeaderBytes \(configuration.maxHeaderBytes) is below 4096, too small for libmicrohttpd's buffers")
        try check(configuration.connectionTimeout >= .zero, "connectionTimeout \(configuration.connectionTimeout) must not be negative (zero: never time out)")
        try check(configuration.requestHeaderTimeout >= .zero, "requestHeaderTimeout \(configuration.requestHeaderTimeout) must not be negative (zero: no deadline)")
        try check(configuration.perAddressConnectionLimit >= 0 && configuration.perAddressConnectionLimit <= Int(UInt32.max),
                  "perAddressConnectionLimit \(configuration.perAddressConnectionLimit) must not be negative (zero: no limit per address)")
    }

    /// Why `MHD_start_daemon` failed: the `errno` text with a hint, or libmicrohttpd's own
    /// messages when there is no `errno` (they name port 0, the argument it was given, so they
    /// come second).
    private static func startFailure(errno code: Int32, log: [String]) -> String {
        guard code != 0 else {
            return log.isEmpty ? "libmicrohttpd could not start" : "libmicrohttpd: \(log.joined(separator: "; "))"
        }
        let reason = String(cString: strerror(code))
        switch code {
        case EADDRINUSE: return "\(reason) (another socket listens there; choose another port, or 0 for a free one)"
        case EADDRNOTAVAIL: return "\(reason) (the address is not one of this machine's)"
        case EACCES: return "\(reason) (ports below 1024 need privileges)"
        default: return reason
        }
    }

    /// `duration` in whole seconds, rounded up, at most `UInt32.max`.
    private static func wholeSeconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(UInt32.max) else { return UInt32.max }
        return UInt32(clamping: seconds + (attoseconds > 0 ? 1 : 0))
    }
}

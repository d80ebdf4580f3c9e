import CEpoll
import CNghttp2
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The I/O engine under every HTTP/2 connection, client or server: a non-blocking socket, an
/// OpenSSL `SSL`, and an nghttp2 session fed with `mem_recv` and drained with `mem_send`.
///
/// Reads run until OpenSSL wants more bytes or the connection has had its share of the loop
/// pass (`readBudgetPerPass`), so one fast peer cannot keep the loop from its other connections;
/// writes are collected from nghttp2 into one buffer and written once per loop iteration
/// (`flushAtEndOfIteration`), so many small frames become a few TLS records.
///
/// Thread confinement: an instance is created, used and closed on its event loop's thread only.
/// Subclasses add state under the same rule. State touched per request skips run-time exclusivity
/// checks (`@exclusivity(unchecked)`): with one thread, only a bug the static checks also see
/// could overlap two accesses.
class SessionDriver: EventLoopHandler, EventLoopFlushable {
    let loop: EventLoop
    var fd: Int32
    private(set) var ssl: OpaquePointer?
    /// The nghttp2 session, created by the subclass once the handshake is done.
    @exclusivity(unchecked) var session: OpaquePointer?
    private(set) var handshakeComplete = false
    @exclusivity(unchecked) private(set) var isClosed = false
    /// Monotonic time of the last bytes read.
    @exclusivity(unchecked) private(set) var lastReadTime: UInt64 = EventLoop.now()

    @exclusivity(unchecked) var isFlushQueued = false
    @exclusivity(unchecked) private var interest: UInt32 = 0
    @exclusivity(unchecked) private var output = ByteBuffer(capacity: 64 * 1024)
    private static let readSize = 64 * 1024
    private let readBuffer = UnsafeMutablePointer<UInt8>.allocate(capacity: SessionDriver.readSize)
    /// Bytes one connection may read in one loop pass before the loop moves on (a few TLS
    /// records of 16 KB each). What is left is read in the next pass.
    static let readBudgetPerPass = 256 * 1024
    /// A read was cut short with bytes already inside OpenSSL, which epoll cannot see: a timer
    /// continues it in this pass's timer phase, after the other ready connections.
    @exclusivity(unchecked) private var resumeReadScheduled = false
    /// Set while inside nghttp2 calls: closing must wait until they return.
    @exclusivity(unchecked) private var inSessionCall = false
    @exclusivity(unchecked) private var closeRequested: (error: HTTP2Error?, abrupt: Bool)?
    /// Close once everything nghttp2 wants to send is written (after a GOAWAY).
    @exclusivity(unchecked) private var closeWhenFlushed: (error: HTTP2Error?, set: Bool) = (nil, false)

    /// Largest amount of frame bytes gathered before writing.
    private static let flushThreshold = 64 * 1024

    init(loop: EventLoop, fd: Int32) {
        self.loop = loop
        self.fd = fd
    }

    deinit {
        readBuffer.deallocate()
        output.deallocate()
    }

    // MARK: Subclass hooks

    /// The TLS handshake finished; create the session here. Return an error to close.
    func handshakeDidComplete() -> HTTP2Error? { nil }
    /// The transport closed (error nil: a clean close the subclass asked for or the session ended).
    func transportDidClose(_ error: HTTP2Error?) {}
    /// A message for a handshake failure.
    func handshakeFailure(_ detail: String) -> HTTP2Error { HTTP2Error(.tlsFailed, detail) }
    /// Called before each write pass: submit queued work here.
    func willFlush() {}
    /// Asked after each TLS record read: true writes what is ready now, before reading on, so
    /// the peer gets new work while the rest of a large read is still being handled.
    func wantsEarlyFlush() -> Bool { false }

    // MARK: Setup

    /// Creates the `SSL` for `fd` in client or server mode and starts watching the socket.
    func attachTLS(context: TLSContext, isServer: Bool) -> Bool {
        guard let ssl = SSL_new(context.context) else { return false }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        // Read whole socket buffers, not a 5-byte record header and then the record: without
        // read-ahead every small TLS record costs two read(2) calls.
        SSL_set_read_ahead(ssl, 1)
        SSL_set_default_read_buffer_len(ssl, 64 * 1024)
        if isServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        return true
    }

    /// Registers the socket with the loop for `events`.
    func watch(_ events: UInt32) -> Bool {
        interest = events
        return loop.register(fd, events: events, handler: self)
    }

    private func setInterest(_ events: UInt32) {
        guard events != interest, !isClosed else { return }
        interest = events
        loop.modify(fd, events: events)
    }

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        if isClosed { return }
        if ssl == nil { socketEvent(events); return }
        if !handshakeComplete {
            continueHandshake()
            return
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            readAvailable()
        }
        if isClosed { return }
        if events & EPOLLOUT.rawValue != 0 {
            writeOutput()
        }
        loop.flushSoon(self)
    }

    /// Events before TLS is attached (a client's connect in progress).
    func socketEvent(_ events: UInt32) {}

    /// Runs the TLS handshake as far as the socket allows.
    func continueHandshake() {
        guard let ssl else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeComplete = true
            setInterest(EPOLLIN.rawValue)
            if let error = handshakeDidComplete() {
                close(error, abrupt: false)
                return
            }
            loop.flushSoon(self)
            // Bytes may already sit decrypted in OpenSSL's buffer.
            readAvailable()
            return
        }
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ: setInterest(EPOLLIN.rawValue)
        case SSL_ERROR_WANT_WRITE: setInterest(EPOLLIN.rawValue | EPOLLOUT.rawValue)
        default:
            let detail = code == SSL_ERROR_SYSCALL && ERR_peek_error() == 0
                ? "connection closed during the TLS handshake (\(errno == 0 ? "EOF" : errnoString()))"
                : openSSLErrors()
            close(handshakeFailure(detail), abrupt: true)
        }
    }

    private func readAvailable() {
        guard let ssl, let session else { return }
        // The thread's OpenSSL error queue is empty here: the handshake starts by clearing it and
        // every failure path drains it (openSSLErrors) or clears it, so no per-call clear is
        // needed on this hot path (in OpenSSL 3 each ERR_clear_error costs a thread-local lookup).
        var budget = Self.readBudgetPerPass
        while !isClosed {
            if budget <= 0 {
                // Its share of this pass is used: leave the rest to the next pass. Level-triggered
                // epoll reports bytes still in the socket; bytes OpenSSL already holds need a timer.
                if SSL_has_pending(ssl) != 0 && !resumeReadScheduled {
                    resumeReadScheduled = true
                    loop.schedule(after: .zero) { [weak self] in
                        guard let self else { return }
                        resumeReadScheduled = false
                        guard !isClosed else { return }
                        readAvailable()
                        if !isClosed { loop.flushSoon(self) }
                    }
                }
                return
            }
            let count = SSL_read(ssl, readBuffer, Int32(Self.readSize))
            if count > 0 {
                budget -= Int(count)
                lastReadTime = EventLoop.now()
                inSessionCall = true
                let consumed = nghttp2_session_mem_recv(session, readBuffer, Int(count))
                inSessionCall = false
                if consumed < 0 {
                    close(HTTP2Error(.protocolError, "HTTP/2 session error: \(String(cString: nghttp2_strerror(Int32(consumed))))"), abrupt: false)
                    return
                }
                if let request = closeRequested { close(request.error, abrupt: request.abrupt); return }
                if wantsEarlyFlush() { flushAtEndOfIteration() }
                continue
            }
            let code = SSL_get_error(ssl, count)
            switch code {
            case SSL_ERROR_WANT_READ:
                return
            case SSL_ERROR_WANT_WRITE:
                setInterest(EPOLLIN.rawValue | EPOLLOUT.rawValue)
                return
            case SSL_ERROR_ZERO_RETURN:
                close(HTTP2Error(.connectionClosed, "the peer closed the connection (TLS close_notify)"), abrupt: true)
                return
            default:
                let detail: String
                if code == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 {
                    detail = errno == 0 ? "the peer closed the connection (EOF)" : "connection broken: \(errnoString())"
                } else {
                    let text = openSSLErrors()
                    detail = text.contains("unexpected eof") ? "the peer closed the connection (EOF without close_notify)" : "TLS read failed: \(text)"
                }
                close(HTTP2Error(.connectionClosed, detail), abrupt: true)
                return
            }
        }
    }

    /// End-of-iteration flush: let the subclass submit, gather frames, write them.
    func flushAtEndOfIteration() {
        guard !isClosed, handshakeComplete, session != nil else { return }
        willFlush()
        if isClosed { return }
        writeOutput()
        if isClosed { return }
        if let session, output.isEmpty, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            close(nil, abrupt: false)
        }
    }

    /// Fills the output buffer from nghttp2 and writes it until done or the socket is full.
    private func writeOutput() {
        guard let ssl, let session else { return }
        while !isClosed {
            if output.isEmpty {
                output.reset()
                inSessionCall = true
                while output.count < Self.flushThreshold {
                    var pointer: UnsafePointer<UInt8>?
                    let length = nghttp2_session_mem_send(session, &pointer)
                    if length < 0 {
                        inSessionCall = false
                        close(HTTP2Error(.protocolError, "HTTP/2 session error: \(String(cString: nghttp2_strerror(Int32(length))))"), abrupt: false)
                        return
                    }
                    if length == 0 { break }
                    output.append(pointer!, length)
                }
                inSessionCall = false
                if let request = closeRequested, output.isEmpty { close(request.error, abrupt: request.abrupt); return }
                if closeWhenFlushed.set, output.isEmpty { close(closeWhenFlushed.error, abrupt: false); return }
                if output.isEmpty {
                    setInterest(EPOLLIN.rawValue)
                    return
                }
            }
            // The error queue is empty here (see readAvailable).
            let written = SSL_write(ssl, output.readPointer, Int32(output.count))
            if written > 0 {
                output.consume(Int(written))
                continue
            }
            let code = SSL_get_error(ssl, written)
            switch code {
            case SSL_ERROR_WANT_WRITE:
                setInterest(EPOLLIN.rawValue | EPOLLOUT.rawValue)
                return
            case SSL_ERROR_WANT_READ:
                return
            default:
                let detail = code == SSL_ERROR_SYSCALL && ERR_peek_error() == 0 ? errnoString() : openSSLErrors()
                close(HTTP2Error(.connectionClosed, "TLS write failed: \(detail)"), abrupt: true)
                return
            }
        }
        if let request = closeRequested { close(request.error, abrupt: request.abrupt) }
    }

    /// Whether there are bytes waiting to be written.
    var hasPendingOutput: Bool { !output.isEmpty }

    // MARK: Close

    /// Closes after the current nghttp2 call if inside one, else now. `abrupt` skips TLS
    /// close_notify and resets the TCP connection.
    func close(_ error: HTTP2Error?, abrupt: Bool) {
        if isClosed { return }
        if inSessionCall {
            if closeRequested == nil { closeRequested = (error, abrupt) }
            return
        }
        isClosed = true
        if fd >= 0 { loop.unregister(fd) }
        if let ssl {
            if !abrupt && handshakeComplete {
                ERR_clear_error()
                _ = SSL_shutdown(ssl)
                // A shutdown on a broken connection queues errors; leave the queue empty for the
                // next session on this thread.
                ERR_clear_error()
            }
            SSL_free(ssl)
            self.ssl = nil
        }
        if fd >= 0 {
            if abrupt { Socket.setLingerZero(fd) }
            Glibc.close(fd)
            fd = -1
        }
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        transportDidClose(error)
    }

    /// Writes what is pending, then closes (used after GOAWAY).
    func flushThenClose(_ error: HTTP2Error?) {
        closeWhenFlushed = (error, true)
        loop.flushSoon(self)
    }
}

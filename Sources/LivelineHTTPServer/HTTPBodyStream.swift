import CMicroHTTPD
import Synchronization

/// A response body written while it is being sent, such as server-sent events
/// (`text/event-stream`): return it in `HTTPResponse(status:headers:stream:)`, keep it, and
/// `write` to it from any thread.
///
/// libmicrohttpd sends it with chunked transfer encoding. When no bytes are waiting, the
/// connection is suspended (no thread waits and nothing polls); a `write` resumes it. When the
/// client goes away, libmicrohttpd notices on the next send, frees the response and the stream
/// runs its `onClose` callbacks, so a writer that sends something now and then (a comment line
/// for server-sent events) finds out about closed clients. The stream also ends when the server
/// stops, when `finish()` is called, and when more than `bufferLimit` bytes wait for a client
/// that does not read (the connection is then closed).
public final class HTTPBodyStream: Sendable {
    /// The most bytes kept for a client that does not read; writing beyond it closes the stream.
    public let bufferLimit: Int

    private struct State {
        var pending: [UInt8] = []
        var offset = 0
        var finished = false
        var failed = false
        var closed = false
        var connection: Connection?
        var suspended = false
        var onClose: [@Sendable () -> Void] = []
    }

    /// The connection pointer. Confinement: used only under `state`'s lock, to suspend (on the
    /// connection's thread, inside the content reader) and resume (any thread, only while
    /// suspended, hence while the connection is alive).
    private struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    private let state = Mutex(State())

    /// A stream that keeps at most `bufferLimit` unsent bytes.
    public init(bufferLimit: Int = 1 << 20) {
        self.bufferLimit = bufferLimit
    }

    /// Queues `bytes` for the client. Returns false (and drops them) once the stream is finished
    /// or closed; bytes that would take the backlog over `bufferLimit` close it.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        state.withLock { s in
            guard !s.finished, !s.closed else { return false }
            if s.pending.count - s.offset + bytes.count > bufferLimit {
                s.failed = true
                s.finished = true
                Self.resume(&s)
                return false
            }
            s.pending.append(contentsOf: bytes)
            Self.resume(&s)
            return true
        }
    }

    /// Queues `text` as UTF-8; see `write(_:)`.
    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Ends the body once the bytes already written are sent. Idempotent.
    public func finish() {
        state.withLock { s in
            s.finished = true
            Self.resume(&s)
        }
    }

    /// Whether the client is gone (or the response was never sent): nothing written arrives.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Calls `callback` once when the response is done with: the client went away, the stream was
    /// finished and sent, or the server stopped. At once if that already happened.
    public func onClose(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.closed { return true }
            s.onClose.append(callback)
            return false
        }
        if now { callback() }
    }

    // MARK: libmicrohttpd's side

    /// The response is queued on `connection` (its thread).
    func attach(_ connection: OpaquePointer) {
        state.withLock { $0.connection = Connection(pointer: connection) }
    }

    /// `MHD_ContentReaderCallback`: copies waiting bytes, or ends the body, or suspends the
    /// connection until the next write (connection thread).
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { s -> Int in
            if s.failed { return Self.endWithError }
            let available = s.pending.count - s.offset
            if available > 0 {
                let count = min(available, capacity)
                s.pending.withUnsafeBufferPointer { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress! + s.offset, byteCount: count)
                }
                s.offset += count
                if s.offset == s.pending.count {
                    s.pending.removeAll(keepingCapacity: s.pending.count <= 1 << 16)
                    s.offset = 0
                }
                return count
            }
            if s.finished { return Self.endOfStream }
            guard let connection = s.connection else { return Self.endWithError }
            s.suspended = true
            MHD_suspend_connection(connection.pointer)
            return 0
        }
    }

    /// libmicrohttpd freed the response: the stream is closed for good (connection thread).
    func released() {
        let callbacks = state.withLock { s -> [@Sendable () -> Void] in
            s.closed = true
            s.connection = nil
            s.suspended = false
            s.pending = []
            defer { s.onClose = [] }
            return s.onClose
        }
        for callback in callbacks { callback() }
    }

    private static func resume(_ s: inout State) {
        guard s.suspended, let connection = s.connection else { return }
        s.suspended = false
        MHD_resume_connection(connection.pointer)
    }

    /// `MHD_CONTENT_READER_END_OF_STREAM` and `MHD_CONTENT_READER_END_WITH_ERROR` (C casts, not imported).
    private static let endOfStream = -1
    private static let endWithError = -2
}

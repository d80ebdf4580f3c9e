import CMicroHTTPD
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The request-header deadline: a connection must deliver a whole request line and headers within
/// `limit` of opening (and, on a kept-alive connection, of its previous request finishing), however
/// it trickles them. libmicrohttpd's own timeout (`connectionTimeout`) is an idle timeout that every
/// byte resets, so a client sending one byte or one header line at a time would hold a connection
/// for ever; this is the deadline such a client cannot move.
///
/// libmicrohttpd reports connections opening and closing (`MHD_OPTION_NOTIFY_CONNECTION`) and the
/// server reports headers complete and requests finished; a thread of its own sleeps until the
/// earliest deadline and shuts down (`shutdown(2)`) the sockets past it, which libmicrohttpd then
/// sees as closed by the client and cleans up on its own thread. The socket is shut down under the
/// same lock that its close notification takes, and libmicrohttpd notifies before it closes the
/// descriptor, so a descriptor number reused by a newer connection is never touched.
///
/// Thread safety (why `@unchecked Sendable` is sound): every stored property but `limit`, and
/// every entry's deadline, is read and written only while holding `condition`.
final class HeaderDeadlines: @unchecked Sendable {
    /// One connection's socket and deadline (an object, so that a request's two updates are a
    /// lookup and a store each, not a dictionary rewrite).
    private final class Entry {
        let socket: Int32
        /// nil while a request's headers are in (its handler runs or its answer is being sent),
        /// and after the socket was shut down.
        var deadline: ContinuousClock.Instant?

        init(socket: Int32, deadline: ContinuousClock.Instant?) {
            self.socket = socket
            self.deadline = deadline
        }
    }

    private let limit: Duration
    private let condition = NSCondition()
    private var entries: [UInt: Entry] = [:]
    private var stopped = false
    private var expiredCount = 0

    init(limit: Duration) {
        self.limit = limit
        let thread = Thread { [self] in run() }
        thread.name = "http-header-deadlines"
        thread.start()
    }

    /// Connections shut down for missing the deadline, since start.
    var expired: Int {
        condition.lock()
        defer { condition.unlock() }
        return expiredCount
    }

    /// libmicrohttpd opened `connection` (its thread): the deadline starts.
    func opened(_ connection: OpaquePointer) {
        let socket = liveline_MHD_connection_socket(connection)
        guard socket >= 0 else { return }
        let entry = Entry(socket: socket, deadline: .now + limit)
        condition.lock()
        entries[UInt(bitPattern: connection)] = entry
        condition.unlock()
    }

    /// A request's line and headers are complete: no deadline while it is handled and answered.
    func headersComplete(_ connection: OpaquePointer) {
        condition.lock()
        if let entry = entries[UInt(bitPattern: connection)] { entry.deadline = nil }
        condition.unlock()
    }

    /// A request finished: the next request on the connection has `limit` to arrive.
    func requestFinished(_ connection: OpaquePointer) {
        let deadline = ContinuousClock.now + limit
        condition.lock()
        if let entry = entries[UInt(bitPattern: connection)] { entry.deadline = deadline }
        condition.unlock()
    }

    /// libmicrohttpd closes `connection` (its thread, before closing the socket).
    func closed(_ connection: OpaquePointer) {
        condition.lock()
        entries[UInt(bitPattern: connection)] = nil
        condition.unlock()
    }

    /// Ends the thread.
    func stop() {
        condition.lock()
        stopped = true
        entries = [:]
        condition.signal()
        condition.unlock()
    }

    /// Shuts down the sockets past their deadline. No request wakes this thread: every deadline
    /// is set `limit` from the moment it is set, so one set while the thread sleeps is never
    /// earlier than the earliest it sleeps for, nor than `limit` after it went to sleep, and it
    /// never sleeps longer than either.
    private func run() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            let now = ContinuousClock.now
            var earliest: ContinuousClock.Instant?
            for entry in entries.values {
                guard let deadline = entry.deadline else { continue }
                if deadline <= now {
                    shutdown(entry.socket, Int32(SHUT_RDWR))
                    entry.deadline = nil
                    expiredCount += 1
                } else if earliest.map({ deadline < $0 }) ?? true {
                    earliest = deadline
                }
            }
            let (seconds, attoseconds) = ((earliest ?? now + limit) - now).components
            let interval = Double(seconds) + Double(attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: interval + 0.001))
        }
    }
}

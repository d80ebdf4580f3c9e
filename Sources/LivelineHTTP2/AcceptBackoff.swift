#if canImport(Glibc)
import Glibc
#endif

/// What the server's accept loop does after `accept4` fails: the decision as a small state, so
/// it can be tested without running out of descriptors.
///
/// Out of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), the pending connection stays
/// in the backlog and the level-triggered listening socket stays readable: retrying at once would
/// spin the loop at 100% CPU. So the server stops watching the listening socket for `pause`, then
/// tries again; it logs the first failure of each run of failures (until an accept succeeds).
struct AcceptBackoff {
    /// What to do next.
    enum Decision: Equatable {
        /// No connection is waiting (EAGAIN): wait for the next readiness event.
        case wait
        /// A connection went away before it was accepted, or a signal interrupted: accept the next.
        case retry
        /// Stop polling the listening socket for the duration, then accept again; `log` says
        /// whether this failure is the first of its run.
        case pause(Duration, log: Bool)
    }

    /// How long the listening socket is left alone after a resource failure.
    let pause: Duration
    /// Whether the current run of failures has been logged.
    private(set) var logged = false

    init(pause: Duration = .milliseconds(100)) {
        self.pause = pause
    }

    /// The decision for an `accept4` that failed with `code` (an `errno` value).
    mutating func acceptFailed(errno code: Int32) -> Decision {
        switch code {
        case EAGAIN, EWOULDBLOCK:
            return .wait
        case EINTR, ECONNABORTED, EPROTO, EPERM:
            return .retry
        default:
            // EMFILE, ENFILE, ENOBUFS, ENOMEM and anything unexpected: never spin.
            defer { logged = true }
            return .pause(pause, log: !logged)
        }
    }

    /// An accept succeeded: the next failure starts a new run (and is logged again).
    mutating func acceptSucceeded() {
        logged = false
    }
}

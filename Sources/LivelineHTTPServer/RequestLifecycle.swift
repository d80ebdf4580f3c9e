/// The life of one request once its body is in: the handler runs, its answer is stored, the
/// access handler hands it to libmicrohttpd. Pure state, no I/O; `RequestState` keeps it in a
/// mutex and makes the libmicrohttpd calls each transition asks for while holding that mutex,
/// so a suspend always happens before the matching resume and nothing resumes a connection
/// that is not suspended or already gone.
///
/// ```
/// receiving ─start→ running(inAccessHandler) ─answer→ answered ─(same call)→ responded
///                         │ leaveAccessHandler: suspend
///                         ▼
///                   running(suspended) ─answer: resume→ answered ─takeAnswer→ responded
/// any ─close→ closed   (a later answer is dropped)
/// ```
struct RequestLifecycle: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Headers or body still arriving; no handler yet.
        case receiving
        /// The handler runs and the access handler that started it has not returned yet, so the
        /// connection is not suspended.
        case runningInAccessHandler
        /// The handler runs and the connection is suspended.
        case runningSuspended
        /// The handler (or `stop()` in its place) answered; the access handler has not queued it.
        case answered(status: Int)
        /// The response went to libmicrohttpd (or never will: an answer was queued directly).
        case responded
        /// libmicrohttpd reported the request finished or the connection gone.
        case closed
    }

    /// What the access handler does when it returns after starting the handler.
    enum Leave: Equatable {
        /// The handler already answered: queue the stored response now.
        case respond
        /// Still running: suspend the connection.
        case suspend
    }

    /// What an answer leads to.
    enum Answer: Equatable {
        /// Stored; the access handler that is still running picks it up.
        case stored
        /// Stored; resume the suspended connection so libmicrohttpd calls the access handler.
        case storedResume
        /// Too late (already answered, or the connection is gone): drop it.
        case dropped
    }

    private(set) var phase: Phase = .receiving

    /// The access handler starts the handler.
    mutating func start() {
        precondition(phase == .receiving, "handler started twice (\(phase))")
        phase = .runningInAccessHandler
    }

    /// The access handler that started the handler is about to return.
    mutating func leaveAccessHandler() -> Leave {
        switch phase {
        case .runningInAccessHandler:
            phase = .runningSuspended
            return .suspend
        case .answered:
            phase = .responded
            return .respond
        default:
            preconditionFailure("leaving the access handler in phase \(phase)")
        }
    }

    /// The handler answered with `status` (or `stop()` answers for it).
    mutating func answer(status: Int) -> Answer {
        switch phase {
        case .runningInAccessHandler:
            phase = .answered(status: status)
            return .stored
        case .runningSuspended:
            phase = .answered(status: status)
            return .storedResume
        default:
            return .dropped
        }
    }

    /// libmicrohttpd called the access handler again after a resume: whether a stored answer
    /// is there to queue.
    mutating func takeAnswer() -> Bool {
        guard case .answered = phase else { return false }
        phase = .responded
        return true
    }

    /// The access handler answered without running the handler (413, 503).
    mutating func respondDirectly() {
        phase = .responded
    }

    /// libmicrohttpd finished with the request. Returns false if the connection was still
    /// suspended, which the server never lets happen.
    @discardableResult
    mutating func close() -> Bool {
        let wasSuspended = phase == .runningSuspended
        phase = .closed
        return !wasSuspended
    }
}

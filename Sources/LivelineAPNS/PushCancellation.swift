import Synchronization

/// Carries a caller's cancellation to the task a push continues in (the callback path starts
/// its own task, which the caller's cancellation would not reach).
final class PushCancellation: Sendable {
    private struct State {
        var cancelled = false
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())

    /// Cancels the attached task, and any task attached later.
    func cancel() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }

    /// The task the push now continues in; cancelled at once if the caller already cancelled.
    func attach(_ task: Task<Void, Never>) {
        let cancelled = state.withLock { s -> Bool in
            s.task = task
            return s.cancelled
        }
        if cancelled { task.cancel() }
    }
}

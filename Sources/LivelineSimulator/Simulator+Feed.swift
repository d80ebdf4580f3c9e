import Foundation

/// Subscribing to a simulator's changes.
extension Simulator {
    /// Every change from now on (pushes with their verdicts, token and state events, devices
    /// added, interactions, links, clock moves), as it happens. Iterate it in a task; the
    /// subscription ends when the iteration does.
    public func changes() -> AsyncStream<SimulatorChange> {
        state.withLock { $0.feed.subscribe() }
    }

    /// Tells subscribers about `change` (for the control API, outside the simulator's own rules).
    func publish(_ change: SimulatorChange) {
        state.withLock { $0.feed.publish(change) }
    }
}

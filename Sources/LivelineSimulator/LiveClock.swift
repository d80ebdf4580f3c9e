import Foundation
import Synchronization

/// A clock that follows real time and can be moved forward: what a simulator behind a dashboard
/// runs on, so a person can jump past a stale date or the 8-hour limit and then watch time go on.
public final class LiveClock: SimulatorClock {
    private let offset = Mutex<TimeInterval>(0)

    /// A clock reading the system time.
    public init() {}

    public var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// How far ahead of the system time it reads.
    public var advanced: TimeInterval { offset.withLock { $0 } }

    /// Moves the clock forward by `seconds` (at least zero).
    public func advance(by seconds: TimeInterval) {
        guard seconds >= 0 else { return }
        offset.withLock { $0 += seconds }
    }
}

import Foundation
import Synchronization

/// Where the simulator reads the time: the wall clock for a server, a `VirtualClock` for tests.
public protocol SimulatorClock: Sendable {
    /// The current moment.
    var now: Date { get }
}

/// The system's wall clock.
public struct SystemClock: SimulatorClock {
    /// The wall clock.
    public init() {}
    public var now: Date { Date() }
}

/// A clock that moves only when told, so tests can cross 8- and 12-hour limits in microseconds.
public final class VirtualClock: SimulatorClock {
    private let current: Mutex<Date>

    /// A clock reading `start` (2026-01-01T00:00:00Z by default).
    public init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds` (a negative value is refused and leaves the clock alone).
    public func advance(by seconds: TimeInterval) {
        guard seconds >= 0 else { return }
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// Sets the clock to `date`, forwards or backwards.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}

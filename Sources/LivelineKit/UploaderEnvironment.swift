import Foundation

/// Time, randomness and waiting for `TokenUploader`, injectable so tests run without real sleeps.
public struct UploaderEnvironment: Sendable {
    /// The current time.
    public var now: @Sendable () -> Date
    /// A number in `0..<1` for jitter.
    public var random: @Sendable () -> Double
    /// Waits this long (or less, when cancelled).
    public var sleep: @Sendable (Duration) async -> Void
    /// Where the uploader's lines go; they carry ids and token prefixes, never keys or whole tokens.
    public var log: @Sendable (String) -> Void

    public init(now: @escaping @Sendable () -> Date = { Date() },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                sleep: @escaping @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) },
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.now = now
        self.random = random
        self.sleep = sleep
        self.log = log
    }
}

/// How long to wait before attempt `n + 1`: exponential from `base` up to `maximum`, the upper half
/// random ("equal jitter"), so phones that lost the service together do not return together.
public struct RetryBackoff: Sendable, Equatable {
    public var base: Duration
    public var maximum: Duration

    public init(base: Duration = .seconds(1), maximum: Duration = .seconds(300)) {
        self.base = base
        self.maximum = maximum
    }

    /// The delay after `attempts` failed attempts (1 or more), for a `random` in `0..<1`.
    public func delay(afterAttempts attempts: Int, random: Double) -> Duration {
        let exponent = min(max(attempts - 1, 0), 30)
        let ceiling = min(Self.seconds(base) * Double(1 << exponent), Self.seconds(maximum))
        return .milliseconds(Int((ceiling / 2 + ceiling / 2 * random) * 1000))
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

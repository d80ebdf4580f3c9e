import Foundation

/// Capped exponential backoff with jitter: `min(maximum, initial × 2^attempt)`, then a random
/// factor in `[1 − jitter, 1]`, so many clients retrying together spread out.
public struct Backoff: Sendable, Hashable {
    /// The delay before the first retry.
    public var initial: Duration
    /// The cap.
    public var maximum: Duration
    /// The share of the delay that is random, 0...1.
    public var jitter: Double

    /// Makes a backoff; `jitter` is clamped to 0...1.
    public init(initial: Duration, maximum: Duration, jitter: Double = 0.5) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before retry number `attempt` (0 for the first retry); `random` in 0...1.
    public func delay(attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let base = initial.seconds * pow(2, Double(min(max(attempt, 0), 62)))
        let capped = min(base, maximum.seconds)
        return .seconds(capped * (1 - jitter * min(max(random, 0), 1)))
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

import Foundation
import Synchronization

/// Token buckets by name (an installation, an address, a key): `rate` a second, `burst` at most.
/// Bounded: past `capacity` names, buckets that are full again (idle callers) are dropped.
final class RateBuckets: Sendable {
    private let buckets = Mutex([String: (tokens: Double, at: ContinuousClock.Instant)]())
    let rate: Double
    let burst: Double
    private let capacity: Int

    init(rate: Double, burst: Double, capacity: Int = 100_000) {
        self.rate = rate
        self.burst = burst
        self.capacity = capacity
    }

    /// Takes one request from `name`'s bucket; `nil` when allowed, else seconds until one is free.
    func admit(_ name: String) -> Double? { take(name, spend: true) }

    /// Whether `name` has a request left, without taking one.
    func hasRoom(_ name: String) -> Bool { take(name, spend: false) == nil }

    private func take(_ name: String, spend: Bool) -> Double? {
        let now = ContinuousClock.now
        let rate = self.rate, burst = self.burst
        return buckets.withLock { buckets in
            // A name without a bucket has a full one: a look that spends nothing keeps none, and
            // needs no lookup while nobody has a bucket (the failed-authentication budget, mostly).
            if !spend && buckets.isEmpty { return Self.wait(burst, rate: rate) }
            if buckets.count >= capacity && buckets[name] == nil {
                buckets = buckets.filter { entry in
                    let idle = now - entry.value.at
                    return entry.value.tokens + (Double(idle.components.seconds) * rate) < burst
                }
            }
            guard spend else {
                guard let bucket = buckets[name] else { return Self.wait(burst, rate: rate) }
                return Self.wait(Self.refilled(bucket, now: now, rate: rate, burst: burst), rate: rate)
            }
            // One lookup for the read and the write.
            return Self.spend(&buckets[name, default: (burst, now)], now: now, rate: rate, burst: burst)
        }
    }

    /// nil when `tokens` hold a request, else seconds until they do.
    private static func wait(_ tokens: Double, rate: Double) -> Double? {
        tokens >= 1 ? nil : (1 - tokens) / rate
    }

    private static func refilled(_ bucket: (tokens: Double, at: ContinuousClock.Instant), now: ContinuousClock.Instant, rate: Double, burst: Double) -> Double {
        let elapsed = now - bucket.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return min(burst, bucket.tokens + seconds * rate)
    }

    private static func spend(_ bucket: inout (tokens: Double, at: ContinuousClock.Instant), now: ContinuousClock.Instant, rate: Double, burst: Double) -> Double? {
        bucket.tokens = refilled(bucket, now: now, rate: rate, burst: burst)
        bucket.at = now
        guard bucket.tokens >= 1 else { return wait(bucket.tokens, rate: rate) }
        bucket.tokens -= 1
        return nil
    }
}

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
        return buckets.withLock { buckets in
            var bucket = buckets[name] ?? (burst, now)
            let elapsed = now - bucket.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.at = now
            if buckets.count >= capacity && buckets[name] == nil {
                let rate = self.rate, burst = self.burst
                buckets = buckets.filter { entry in
                    let idle = now - entry.value.at
                    return entry.value.tokens + (Double(idle.components.seconds) * rate) < burst
                }
            }
            defer { if spend || buckets[name] != nil { buckets[name] = bucket } }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / rate }
            if spend { bucket.tokens -= 1 }
            return nil
        }
    }
}

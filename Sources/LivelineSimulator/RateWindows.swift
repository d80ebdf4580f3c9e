import Foundation

/// The sliding windows of the per-token and per-channel rate limit (`SimulatorConfiguration.rateLimit`),
/// at most `capacity` of them.
///
/// A window holds the moments of the pushes it counted within the limit's length. When a new key
/// would exceed `capacity`, windows with no push inside the length (they limit nothing) are dropped
/// first; if that is not enough, the least recently used are dropped down to three quarters of
/// `capacity`, so the sweep runs at most once per `capacity / 4` new keys. A dropped window's key
/// starts afresh, as APNs' own limits would after a quiet spell.
struct RateWindows: Sendable {
    private var windows: [String: [Date]] = [:]
    /// The most windows kept (at least 1).
    let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// How many windows are kept.
    var count: Int { windows.count }

    /// Counts a push to `key` at `now`: false (and not counted) when `limit.count` pushes already
    /// fell within the last `limit.seconds`.
    mutating func admit(_ key: String, limit: RateLimit, now: Date) -> Bool {
        var window = windows.removeValue(forKey: key) ?? []
        window.removeAll { now.timeIntervalSince($0) >= limit.seconds }
        if window.count >= limit.count {
            windows[key] = window
            return false
        }
        window.append(now)
        if windows.count >= capacity { makeRoom(limit: limit, now: now) }
        windows[key] = window
        return true
    }

    /// Forgets `key`'s window (its token or channel is gone).
    mutating func remove(_ key: String) { windows[key] = nil }

    private mutating func makeRoom(limit: RateLimit, now: Date) {
        windows = windows.filter { now.timeIntervalSince($0.value.last ?? .distantPast) < limit.seconds }
        let keep = capacity - capacity / 4 - 1
        guard windows.count > keep else { return }
        let recent = windows.sorted { ($0.value.last ?? .distantPast) > ($1.value.last ?? .distantPast) }.prefix(max(0, keep))
        windows = Dictionary(uniqueKeysWithValues: recent.map { ($0.key, $0.value) })
    }
}

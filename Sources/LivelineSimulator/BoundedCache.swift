/// A dictionary that keeps at most `capacity` entries, dropping the oldest inserted first (a
/// capacity of 0 keeps nothing).
///
/// Used for the simulator's cache of checked provider tokens: a client that sends a fresh token
/// per request must not grow it without end.
struct BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var entries: [Key: Value] = [:]
    private var order = FIFOQueue<Key>()
    /// The most entries kept.
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    var count: Int { entries.count }

    subscript(key: Key) -> Value? { entries[key] }

    /// Stores `value` for `key`, dropping the oldest entries beyond `capacity`.
    mutating func insert(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        if entries.updateValue(value, forKey: key) == nil { order.append(key) }
        while entries.count > capacity, let oldest = order.popFirst() {
            entries[oldest] = nil
        }
    }

    mutating func removeAll() {
        entries.removeAll()
        order.removeAll()
    }
}

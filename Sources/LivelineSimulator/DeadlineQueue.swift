import Foundation

/// Activity ids ordered by the moment their next time-based transition is due (a binary min-heap).
///
/// Entries are never updated in place: a new deadline is pushed and the old entry is skipped when
/// it surfaces (`ActivityTable` knows each activity's current deadline). `compact(keeping:)`
/// rebuilds the heap when skipped entries pile up, so it stays proportional to the activities.
struct DeadlineQueue: Sendable {
    struct Entry: Sendable {
        var date: Date
        var id: String
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func push(_ date: Date, _ id: String) {
        entries.append(Entry(date: date, id: id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].date < entries[parent].date else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].date < entries[smallest].date { smallest = left }
            if right < entries.count, entries[right].date < entries[smallest].date { smallest = right }
            if smallest == parent { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    /// Rebuilds the heap from `deadlines` (each activity's current deadline), dropping skipped entries.
    mutating func compact(keeping deadlines: [String: Date]) {
        entries = []
        entries.reserveCapacity(deadlines.count)
        for (id, date) in deadlines { push(date, id) }
    }
}

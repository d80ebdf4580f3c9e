/// Timers in a binary min-heap by deadline; cancelled ones are skipped when they come up.
struct TimerHeap {
    private var heap: [(deadline: UInt64, id: UInt64)] = []
    private var work: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var nextDeadline: UInt64? {
        mutating get {
        while let top = heap.first, work[top.id] == nil { popTop() }
        return heap.first?.deadline
        }
    }

    mutating func add(deadline: UInt64, _ item: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        work[id] = item
        heap.append((deadline, id))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if heap[parent].deadline <= heap[child].deadline { break }
            heap.swapAt(parent, child)
            child = parent
        }
        return id
    }

    mutating func cancel(_ id: UInt64) {
        work[id] = nil
        if work.isEmpty { heap.removeAll(keepingCapacity: true) }
    }

    mutating func popDue(now: UInt64) -> (() -> Void)? {
        while let top = heap.first {
            guard let item = work[top.id] else { popTop(); continue }
            guard top.deadline <= now else { return nil }
            popTop()
            work[top.id] = nil
            return item
        }
        return nil
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

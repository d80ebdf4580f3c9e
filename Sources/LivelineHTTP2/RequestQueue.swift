/// A FIFO of requests waiting for a stream; finished entries (timed out, cancelled) are skipped.
struct RequestQueue {
    private var items: [PendingRequest] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ item: PendingRequest) {
        items.append(item)
    }

    mutating func popFirst() -> PendingRequest? {
        while head < items.count {
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            if !item.isFinished { return item }
        }
        return nil
    }

    /// Removes and returns everything.
    mutating func removeAll() -> [PendingRequest] {
        let rest = Array(items[head...])
        items.removeAll()
        head = 0
        return rest
    }

    /// Calls `body` for each waiting entry.
    func forEach(_ body: (PendingRequest) -> Void) {
        for index in head..<items.count { body(items[index]) }
    }
}

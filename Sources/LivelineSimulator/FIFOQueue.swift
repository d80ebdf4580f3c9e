/// A first-in, first-out queue with O(1) amortised `append` and `popFirst` (the space of popped
/// elements is reclaimed once it is half the storage).
struct FIFOQueue<Element: Sendable>: Sendable {
    private var storage: [Element] = []
    private var head = 0

    /// How many elements are queued.
    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) { storage.append(element) }

    /// Removes and returns the oldest element, or nil when the queue is empty.
    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() {
        storage.removeAll()
        head = 0
    }
}

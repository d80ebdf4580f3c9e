/// A growable byte buffer with a read cursor, for outgoing TLS plaintext.
struct ByteBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    func deallocate() { storage.deallocate() }

    var isEmpty: Bool { start == end }
    var count: Int { end - start }
    var readPointer: UnsafePointer<UInt8> { UnsafePointer(storage + start) }

    mutating func reset() {
        start = 0
        end = 0
    }

    mutating func append(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        if end + length > capacity {
            var newCapacity = capacity * 2
            while newCapacity < end + length { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: storage, count: end)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        (storage + end).update(from: bytes, count: length)
        end += length
    }

    mutating func consume(_ length: Int) {
        start += length
        if start == end { reset() }
    }
}

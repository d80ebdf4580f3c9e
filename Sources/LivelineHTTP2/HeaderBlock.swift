import CNghttp2

/// Reusable storage for an nghttp2 name/value array: all names and values are copied into one
/// byte buffer, so building a header block allocates nothing once the buffers have grown.
/// nghttp2 copies the block when a request or response is submitted, so the storage is reused
/// right after.
///
/// Thread confinement: owned by one session driver and used only on its loop thread.
struct HeaderBlock {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity: Int
    private var byteCount = 0
    private var fields: UnsafeMutablePointer<nghttp2_nv>
    private var fieldCapacity: Int
    private var offsets: [(name: Int, nameLength: Int, value: Int, valueLength: Int, neverIndexed: Bool)] = []

    init() {
        byteCapacity = 1024
        bytes = .allocate(capacity: byteCapacity)
        fieldCapacity = 16
        fields = .allocate(capacity: fieldCapacity)
        offsets.reserveCapacity(16)
    }

    func deallocate() {
        bytes.deallocate()
        fields.deallocate()
    }

    /// Starts a new block.
    mutating func reset() {
        byteCount = 0
        offsets.removeAll(keepingCapacity: true)
    }

    /// Adds a field; `lowercaseName` lower-cases ASCII letters of the name; `neverIndexed` sends
    /// it as a literal HPACK keeps out of the dynamic table (for values that never repeat).
    mutating func add(_ name: String, _ value: String, lowercaseName: Bool = false, neverIndexed: Bool = false) {
        let nameOffset = byteCount
        let nameLength = copy(name, lowercase: lowercaseName)
        let valueOffset = byteCount
        let valueLength = copy(value, lowercase: false)
        offsets.append((nameOffset, nameLength, valueOffset, valueLength, neverIndexed))
    }

    private mutating func copy(_ text: String, lowercase: Bool) -> Int {
        var text = text
        return text.withUTF8 { utf8 in
            reserve(utf8.count)
            let target = bytes + byteCount
            if lowercase {
                for index in 0..<utf8.count {
                    let byte = utf8[index]
                    target[index] = (byte >= 65 && byte <= 90) ? byte | 0x20 : byte
                }
            } else if let base = utf8.baseAddress {
                target.update(from: base, count: utf8.count)
            }
            byteCount += utf8.count
            return utf8.count
        }
    }

    private mutating func reserve(_ extra: Int) {
        guard byteCount + extra > byteCapacity else { return }
        var capacity = byteCapacity * 2
        while capacity < byteCount + extra { capacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = grown
        byteCapacity = capacity
    }

    /// Calls `body` with the `nghttp2_nv` array and its length.
    mutating func withFields<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        if offsets.count > fieldCapacity {
            fields.deallocate()
            fieldCapacity = max(offsets.count, fieldCapacity * 2)
            fields = .allocate(capacity: fieldCapacity)
        }
        for (index, item) in offsets.enumerated() {
            fields[index] = nghttp2_nv(
                name: bytes + item.name, value: bytes + item.value,
                namelen: item.nameLength, valuelen: item.valueLength,
                flags: UInt8(item.neverIndexed ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
        }
        return body(fields, offsets.count)
    }
}

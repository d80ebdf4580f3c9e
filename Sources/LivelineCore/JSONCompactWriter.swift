/// Writes the compact form of a `JSONValue` into raw memory, for `serialized()` and
/// `PushRequest.validate` (once per push, on a connection's event-loop thread).
///
/// It starts in a caller-provided buffer (stack memory) and moves to the heap only when that is
/// full; appends check capacity once per token instead of once per byte, strings without
/// characters to escape are copied in one piece, and the pass also records whether every number
/// was finite so validation needs no second walk. The output is byte for byte what the reference
/// writer in `JSONValue+Serialization.swift` prints.
///
/// Thread confinement: a writer lives on one thread's stack for one call and is never shared.
struct JSONCompactWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0
    /// Whether `base` is heap memory this writer allocated (and must free).
    private var ownsBase = false
    /// False once a NaN or an infinity was written (as `null`, like `JSON.stringify`).
    private(set) var allFinite = true

    /// The bytes of the compact form of `value`, and whether all its numbers were finite.
    static func serialize(_ value: JSONValue) -> (bytes: [UInt8], allFinite: Bool) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { scratch in
            var writer = JSONCompactWriter(scratch: scratch)
            withUnsafePointer(to: value) { writer.write($0) }
            let bytes = writer.makeArray()
            return (bytes, writer.allFinite)
        }
    }

    private init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        base = scratch.baseAddress!
        capacity = scratch.count
    }

    deinit {
        if ownsBase { base.deallocate() }
    }

    /// A right-sized array holding what was written.
    private func makeArray() -> [UInt8] {
        // Not `Array(unsafeUninitializedCapacity:)`: on Linux that path looks up the generic
        // metadata of the array's storage on every call (a locked hash lookup), which costs more
        // than the whole copy.
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity * 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = newBase
        capacity = newCapacity
        ownsBase = true
    }

    @inline(__always)
    private mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends bytes the caller has already made room for.
    @inline(__always)
    private mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    @inline(__always)
    private mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    /// Writes the value at `value`, reading it in place: scalars, strings and the arrays of
    /// containers without copying them out of their parent (each copy costs a retain and a release).
    private mutating func write(_ value: UnsafePointer<JSONValue>) {
        switch value.pointee {
        case .number(let n): writeNumber(n)
        case .string(let s):
            if let done: Void = s.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) { return done }
            writeString(s)
        case .bool(let b): append(b ? "true" : "false")
        case .null: append("null")
        case .array(let items):
            append(UInt8(ascii: "["))
            items.withUnsafeBufferPointer { items in
                guard let first = items.baseAddress else { return }
                for index in 0..<items.count {
                    if index > 0 { append(UInt8(ascii: ",")) }
                    write(first + index)
                }
            }
            append(UInt8(ascii: "]"))
        case .object(let object):
            append(UInt8(ascii: "{"))
            object.members.withUnsafeBufferPointer { members in
                guard let first = members.baseAddress else { return }
                for index in 0..<members.count {
                    if index > 0 { append(UInt8(ascii: ",")) }
                    writeString(at: (first + index).pointer(to: \.key)!)
                    append(UInt8(ascii: ":"))
                    write((first + index).pointer(to: \.value)!)
                }
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// Integers below 10^15 (timestamps, counts: the common case) digit by digit; everything else
    /// through `JSONValue.javaScriptNumber`.
    private mutating func writeNumber(_ number: Double) {
        guard number.isFinite else {
            allFinite = false
            append("null")
            return
        }
        // Below 10^15 the conversion to Int64 is exact for integers and cannot trap.
        guard number.magnitude < 1e15, number != 0, Double(Int64(number)) == number else {
            var text = JSONValue.javaScriptNumber(number)
            text.withUTF8 { append($0) }
            return
        }
        var value = Int64(number)
        reserve(16)  // a sign and at most 15 digits
        if value < 0 {
            appendReserved(UInt8(ascii: "-"))
            value = -value
        }
        var digits = 1
        var power: Int64 = 10
        while digits < 15 && value >= power {
            digits &+= 1
            power &*= 10
        }
        var position = count &+ digits
        count = position
        Self.digitPairs.withUTF8Buffer { pairs in
            // Two digits per division, from the right.
            while value >= 10 {
                let pair = Int(truncatingIfNeeded: value % 100) &* 2
                value /= 100
                position &-= 2
                base[position] = pairs[pair]
                base[position &+ 1] = pairs[pair &+ 1]
            }
            if value > 0 {
                position &-= 1
                base[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            }
        }
    }

    /// "00" through "99", for printing integers two digits at a time.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// A key, read in place.
    @inline(__always)
    private mutating func writeString(at string: UnsafePointer<String>) {
        if let done: Void = string.pointee.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) { return done }
        writeString(string.pointee)
    }

    private mutating func writeString(_ string: borrowing String) {
        if let done: Void = string.utf8.withContiguousStorageIfAvailable({ writeString(utf8: $0) }) { return done }
        var copy = copy string
        copy.withUTF8 { writeString(utf8: $0) }
    }

    /// Writes a JSON string literal with `JSON.stringify`'s escaping: `\"`, `\\`, `\b \f \n \r \t`,
    /// lowercase `\u00xx` for other control characters; everything else (`/`, non-ASCII) as is.
    private mutating func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        let length = bytes.count
        reserve(length &+ 2 &+ 8)  // 8: the last word is stored whole
        base[count] = UInt8(ascii: "\"")
        count &+= 1
        guard let source = bytes.baseAddress, length > 0 else {
            appendReserved(UInt8(ascii: "\""))
            return
        }
        // The common case: nothing to escape. Scan and copy eight bytes at a time.
        let input = UnsafeRawPointer(source)
        let output = UnsafeMutableRawPointer(base + count)
        var index = 0
        while length &- index >= 8 {
            let word = input.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if Self.needsEscape(word) { break }
            output.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        #if _endian(little)
        if length &- index < 8 && index < length {
            // The last one to seven bytes as one padded word, read with loads of 4, 2 and 1 bytes
            // (not an overlapping 8-byte load: for small strings the bytes were just spilled to
            // the stack, and a load straddling two stores stalls).
            let remaining = length &- index
            var tail: UInt64 = 0
            var filled = 0
            if remaining & 4 != 0 {
                tail = UInt64(input.loadUnaligned(fromByteOffset: index, as: UInt32.self))
                filled = 4
            }
            if remaining & 2 != 0 {
                tail |= UInt64(input.loadUnaligned(fromByteOffset: index &+ filled, as: UInt16.self)) << UInt64(filled &* 8)
                filled &+= 2
            }
            if remaining & 1 != 0 {
                tail |= UInt64(input.load(fromByteOffset: index &+ filled, as: UInt8.self)) << UInt64(filled &* 8)
            }
            let padding: UInt64 = 0x4141_4141_4141_4141 << UInt64(remaining &* 8)  // "A"s, which need no escape
            if !Self.needsEscape(tail | padding) {
                // Eight bytes stored, `remaining` kept: `reserve` left room for the rest.
                output.storeBytes(of: tail, toByteOffset: index, as: UInt64.self)
                index = length
            }
        }
        #endif
        while index < length {
            let byte = source[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            output.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
            index &+= 1
        }
        count &+= index
        if index < length { writeEscaping(bytes, from: index) }
        appendReserved(UInt8(ascii: "\""))
    }

    /// The rest of a string literal from `index`, the first byte that needs an escape; leaves room
    /// for the closing quote.
    @inline(never)
    private mutating func writeEscaping(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) {
        var start = index
        var index = index
        while true {
            index = Self.firstByteToEscape(in: bytes, from: index)
            if index == bytes.count { break }
            let byte = bytes[index]
            append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            reserve(6 + bytes.count - index + 1)
            appendReserved(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): appendReserved(byte)
            case 0x08: appendReserved(UInt8(ascii: "b"))
            case 0x0C: appendReserved(UInt8(ascii: "f"))
            case 0x0A: appendReserved(UInt8(ascii: "n"))
            case 0x0D: appendReserved(UInt8(ascii: "r"))
            case 0x09: appendReserved(UInt8(ascii: "t"))
            default:
                appendReserved(UInt8(ascii: "u"))
                appendReserved(UInt8(ascii: "0"))
                appendReserved(UInt8(ascii: "0"))
                appendReserved(Self.hexDigit(byte >> 4))
                appendReserved(Self.hexDigit(byte & 0xF))
            }
            index += 1
            start = index
        }
        append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        reserve(1)
    }

    /// Whether one of the eight bytes of `word` is a control character, `"` or `\\`. Each term is
    /// the classic zero-byte test: exact (no false answers) for thresholds up to 0x80.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & highs != 0
    }

    /// The index of the first byte at or after `index` that needs an escape (a control character,
    /// `"` or `\\`), or `bytes.count`. Looks at eight bytes at a time: a word has such a byte
    /// exactly when one of the three zero-byte tests below is nonzero.
    @inline(__always)
    static func firstByteToEscape(in bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        guard let start = bytes.baseAddress else { return index }
        let raw = UnsafeRawPointer(start)
        var index = index
        while bytes.count - index >= 8 {
            if needsEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { break }
            index += 8
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}

/// Byte-class checks over whole strings, eight bytes at a time (SWAR: the bytes of one `UInt64`
/// compared in parallel), for the per-request checks on the send path (paths of ~170 bytes and
/// device tokens of 64–200 hex digits).
///
/// The word tricks: for ASCII bytes, `(word | 0x80…80) - n·0x01…01` leaves a byte's high bit set
/// exactly when that byte is `>= n` (the 0x80 in every byte stops borrows between bytes), and
/// `(v - 0x01…01) & ~v & 0x80…80` is non-zero exactly when some byte of `v` is zero.
package enum ByteScan {
    @inline(__always) static func splat(_ byte: UInt8) -> UInt64 { UInt64(byte) &* 0x0101_0101_0101_0101 }
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// High bit of each byte set where the ASCII byte is `>= n` (bytes must be < 0x80).
    @inline(__always) static func atLeast(_ word: UInt64, _ n: UInt8) -> UInt64 {
        ((word | highBits) &- splat(n)) & highBits
    }

    /// Whether some byte of `word` equals `byte`.
    @inline(__always) static func contains(_ word: UInt64, _ byte: UInt8) -> Bool {
        let v = word ^ splat(byte)
        return (v &- splat(1)) & ~v & highBits != 0
    }

    /// Calls `body` with the string's UTF-8 bytes: whole words, then the tail byte by byte.
    @inline(__always)
    static func all(_ text: String, word: (UInt64) -> Bool, byte: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return true }
            let raw = UnsafeRawPointer(base)
            var index = 0
            while index + 8 <= buffer.count {
                if !word(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) { return false }
                index += 8
            }
            while index < buffer.count {
                if !byte(buffer[index]) { return false }
                index += 1
            }
            return true
        }
    }

    /// Every byte is an ASCII hex digit (`0-9`, `a-f`, `A-F`).
    package static func isHex(_ text: String) -> Bool {
        all(text, word: { w in
            guard w & highBits == 0 else { return false }
            let digit = atLeast(w, 0x30) & ~atLeast(w, 0x3A)
            let folded = w | splat(0x20)
            let letter = atLeast(folded, 0x61) & ~atLeast(folded, 0x67)
            return digit | letter == highBits
        }, byte: { b in
            b &- 48 < 10 || (b | 0x20) &- 97 < 6
        })
    }

    /// No byte is a control character, space or DEL (bytes >= 0x80 pass): an HTTP/2 `:path`.
    package static func isPath(_ text: String) -> Bool {
        all(text, word: { w in
            // ASCII bytes must be >= 0x21; bytes with the high bit set pass the first test.
            let ascii = ~w & highBits
            let low = ascii & ~atLeast(w & ~highBits, 0x21)
            return low == 0 && !contains(w, 0x7F)
        }, byte: { b in b > 32 && b != 127 })
    }

    /// Printable ASCII without `:`: an HTTP/2 field name (case is handled by the caller).
    package static func isFieldName(_ text: String) -> Bool {
        all(text, word: { w in
            w & highBits == 0 && atLeast(w, 0x21) == highBits && !contains(w, 0x7F) && !contains(w, UInt8(ascii: ":"))
        }, byte: { b in b > 32 && b < 127 && b != UInt8(ascii: ":") })
    }

    /// No NUL, CR or LF: an HTTP/2 field value.
    package static func isFieldValue(_ text: String) -> Bool {
        all(text, word: { w in
            !contains(w, 0) && !contains(w, 10) && !contains(w, 13)
        }, byte: { b in b != 0 && b != 10 && b != 13 })
    }

    /// Printable ASCII: an HTTP method.
    package static func isToken(_ text: String) -> Bool {
        all(text, word: { w in
            w & highBits == 0 && atLeast(w, 0x21) == highBits && !contains(w, 0x7F)
        }, byte: { b in b > 32 && b < 127 })
    }
}

import LivelineHTTP2
import Testing

/// The word-at-a-time checks against one-byte-at-a-time references: every byte value at every
/// position of a word and of the tail, so a borrow between bytes or a missed tail shows up.
struct ByteScanTests {
    typealias Check = (name: String, fast: @Sendable (String) -> Bool, reference: @Sendable (UInt8) -> Bool)

    static let checks: [Check] = [
        ("isHex", ByteScan.isHex, { (48...57).contains($0) || (65...70).contains($0) || (97...102).contains($0) }),
        ("isPath", ByteScan.isPath, { $0 > 32 && $0 != 127 }),
        ("isFieldName", ByteScan.isFieldName, { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }),
        ("isFieldValue", ByteScan.isFieldValue, { $0 != 0 && $0 != 10 && $0 != 13 }),
        ("isToken", ByteScan.isToken, { $0 > 32 && $0 < 127 }),
    ]

    /// A string of `length` bytes that every check accepts, with `byte` at `position`.
    static func probe(length: Int, position: Int, byte: UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        bytes[position] = byte
        return bytes
    }

    @Test(arguments: 0..<checks.count)
    func everyByteAtEveryPosition(_ index: Int) {
        let check = Self.checks[index]
        // 19 bytes: two whole words and a 3-byte tail.
        for position in 0..<19 {
            for value in 0...255 {
                let byte = UInt8(value)
                let bytes = Self.probe(length: 19, position: position, byte: byte)
                // Lone bytes >= 0x80 are not UTF-8: pair them into a valid 2-byte sequence
                // (C3 xx) so the string holds exactly the bytes tested.
                if byte >= 0x80 {
                    guard position < 18, byte < 0xC0 else { continue }
                    var pair = bytes
                    pair[position] = 0xC3
                    pair[position + 1] = byte
                    let text = String(decoding: pair, as: UTF8.self)
                    #expect(Array(text.utf8) == pair)
                    #expect(check.fast(text) == (check.reference(0xC3) && check.reference(byte)), "\(check.name): C3 \(byte) at \(position)")
                    continue
                }
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(check.fast(text) == check.reference(byte), "\(check.name): byte \(byte) at \(position)")
            }
        }
    }

    @Test func emptyAndSmallStrings() {
        for check in Self.checks {
            #expect(check.fast(""))
            #expect(check.fast("a"))
            #expect(check.fast("abcdefab"))
        }
        #expect(ByteScan.isHex(String(repeating: "0123456789abcdefABCDEF", count: 9)))
        #expect(!ByteScan.isHex(String(repeating: "0123456789abcdef", count: 9) + "g"))
        #expect(ByteScan.isPath("/3/device/" + String(repeating: "ab", count: 80)))
        #expect(!ByteScan.isPath("/3/device/" + String(repeating: "ab", count: 40) + " " + String(repeating: "ab", count: 40)))
        #expect(ByteScan.isPath("/caf\u{E9}/\u{1F600}"))
    }
}

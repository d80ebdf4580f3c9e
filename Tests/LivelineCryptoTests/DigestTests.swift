import LivelineCrypto
import Testing

@Suite struct DigestTests {
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0 ..< $0 + 2], as: UTF8.self), radix: 16)! }
    }

    @Test func sha256OfABC() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func sha256OfTheEmptyMessage() {
        #expect(Digest.hex(Digest.sha256([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func sha256AcceptsNonContiguousCollections() {
        let abc = Array("abc".utf8)
        let expected = Digest.sha256(abc)
        #expect(Digest.sha256("abc".utf8) == expected)
        #expect(Digest.sha256(abc.reversed().reversed()) == expected)
        #expect(Digest.sha256(Array("xabcx".utf8).dropFirst().dropLast()) == expected)
        #expect(expected.count == 32)
    }

    /// RFC 4231 section 4: test cases 1, 2 and 6 (6 uses a key longer than the 64-byte block).
    @Test(arguments: [
        ([UInt8](repeating: 0x0b, count: 20), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), "what do ya want for nothing?",
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacSHA256RFC4231(key: [UInt8], message: String, expected: String) {
        #expect(Digest.hex(Digest.hmacSHA256(key: key, message: Array(message.utf8))) == expected)
        #expect(Digest.hex(Digest.hmacSHA256(key: key, message: message.utf8)) == expected)
    }

    /// Empty key and empty message (values from Python's hmac module).
    @Test func hmacSHA256WithEmptyKeyOrMessage() {
        #expect(Digest.hex(Digest.hmacSHA256(key: [], message: Array("msg".utf8)))
            == "5f576a8d68fe4fb7eb823227246353c0870c3b0e878997341db1226b4bd88d61")
        #expect(Digest.hex(Digest.hmacSHA256(key: Array("k".utf8), message: [UInt8]()))
            == "8bb990c40a7d61cb97597a942125025be50ac8beb74436e3735b98893a7f6620")
    }

    @Test func constantTimeEqualEdgeCases() {
        let a = Self.bytes(hex: "00112233445566778899aabbccddeeff")
        #expect(Digest.constantTimeEqual([], []))
        #expect(Digest.constantTimeEqual(a, a))
        #expect(Digest.constantTimeEqual(a, Array(a)))
        #expect(!Digest.constantTimeEqual(a, []))
        #expect(!Digest.constantTimeEqual([], a))
        #expect(!Digest.constantTimeEqual(a, Array(a.dropLast())), "a prefix is not equal")
        #expect(!Digest.constantTimeEqual(a, a + [0]), "a longer array is not equal")
        var firstByte = a; firstByte[0] ^= 0x01
        var lastByte = a; lastByte[a.count - 1] ^= 0x80
        #expect(!Digest.constantTimeEqual(a, firstByte))
        #expect(!Digest.constantTimeEqual(a, lastByte))
        #expect(Digest.constantTimeEqual([0], [0]))
        #expect(!Digest.constantTimeEqual([0], [1]))
    }

    @Test func randomBytesHaveTheLengthAskedForAndDiffer() {
        #expect(Digest.randomBytes(0) == [])
        #expect(Digest.randomBytes(1).count == 1)
        #expect(Digest.randomBytes(1000).count == 1000)
        let first = Digest.randomBytes(32)
        let second = Digest.randomBytes(32)
        #expect(first.count == 32)
        // Equal draws happen with probability 2^-256.
        #expect(first != second)
    }

    @Test func hexIsLowercaseTwoDigitsAByte() {
        #expect(Digest.hex([UInt8]()) == "")
        #expect(Digest.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Digest.hex(Array(0 ... 255)).count == 512)
        #expect(Digest.hex([0xAB, 0xCD]) == "abcd")
    }
}

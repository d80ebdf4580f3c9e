import Foundation

/// SplitMix64: a small, fast generator whose whole output follows from its seed, so fault
/// injection, ids and tokens repeat run after run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator that yields the same sequence for the same `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            var word = next()
            for _ in 0..<8 where out.count < count {
                out.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return out
    }

    /// `count` random bytes as lowercase hex.
    mutating func hex(bytes count: Int) -> String { Hex.encode(bytes(count)) }

    /// A random version-4 UUID in APNs' canonical lowercase form.
    mutating func uuidString() -> String {
        let hi = next()
        let lo = next()
        return String(unsafeUninitializedCapacity: 36) { out in
            var i = 0
            for n in 0..<16 {
                if n == 4 || n == 6 || n == 8 || n == 10 {
                    out[i] = UInt8(ascii: "-")
                    i += 1
                }
                var byte = UInt8(truncatingIfNeeded: (n < 8 ? hi : lo) >> (UInt64(n % 8) * 8))
                if n == 6 { byte = (byte & 0x0F) | 0x40 }
                if n == 8 { byte = (byte & 0x3F) | 0x80 }
                out[i] = Hex.digit(byte >> 4)
                out[i + 1] = Hex.digit(byte & 0x0F)
                i += 2
            }
            return 36
        }
    }

    /// A uniform value in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Lowercase hex encoding and the checks APNs applies to hex tokens.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    @inline(__always)
    static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isHex(_ text: Substring.UTF8View) -> Bool {
        for c in text {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): continue
            default: return false
            }
        }
        return true
    }
}

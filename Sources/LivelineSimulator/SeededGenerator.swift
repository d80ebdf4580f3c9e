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
        // Bytes 0-7 come from `hi`, 8-15 from `lo`, low byte first; byte 6 carries the version, byte 8 the variant.
        return String(unsafeUninitializedCapacity: 36) { out in
            func put(_ word: UInt64, _ shift: UInt64, at i: Int) {
                let byte = UInt8(truncatingIfNeeded: word >> shift)
                out[i] = Hex.digit(byte >> 4)
                out[i + 1] = Hex.digit(byte & 0x0F)
            }
            let dash = UInt8(ascii: "-")
            put(hi, 0, at: 0)
            put(hi, 8, at: 2)
            put(hi, 16, at: 4)
            put(hi, 24, at: 6)
            out[8] = dash
            put(hi, 32, at: 9)
            put(hi, 40, at: 11)
            out[13] = dash
            put(UInt64((UInt8(truncatingIfNeeded: hi >> 48) & 0x0F) | 0x40), 0, at: 14)
            put(hi, 56, at: 16)
            out[18] = dash
            put(UInt64((UInt8(truncatingIfNeeded: lo) & 0x3F) | 0x80), 0, at: 19)
            put(lo, 8, at: 21)
            out[23] = dash
            put(lo, 16, at: 24)
            put(lo, 24, at: 26)
            put(lo, 32, at: 28)
            put(lo, 40, at: 30)
            put(lo, 48, at: 32)
            put(lo, 56, at: 34)
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

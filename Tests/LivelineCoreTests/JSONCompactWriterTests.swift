import Foundation
import Testing
@testable import LivelineCore

/// A deterministic generator (SplitMix64), so a failure reproduces.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The plain serializer the fast writer must match byte for byte: one value at a time, one
/// Unicode scalar at a time, numbers through `javaScriptNumber`.
enum ReferenceJSON {
    static func serialize(_ value: JSONValue) -> [UInt8] {
        var out = ""
        write(value, to: &out)
        return Array(out.utf8)
    }

    static func write(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += JSONValue.javaScriptNumber(n)
        case .string(let s): writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                writeString(member.key, to: &out)
                out += ":"
                write(member.value, to: &out)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Random JSON trees that reach every branch of the writer.
struct JSONValueGenerator {
    var random: SeededGenerator

    static let pieces: [String] = [
        "a", "gate", "B12", "/", "\"", "\\", "é", "日本", "✈︎", "🚀", "\u{2028}", "\u{7F}", "\u{80}", " ", "x",
    ] + (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }

    static let numbers: [Double] = [
        0, -0.0, 1, -1, 16, 75, 100, -42, 0.1, 0.5, -0.5, 0.1 + 0.2, 3.14, 123.456, 721692800.5, 1_800_000_000, 799_999_999,
        1e15 - 1, -(1e15 - 1), 1e15, 1e16, 1e20, 1e21, -1e21, 2.5e25, 1e-6, 1e-7, 1.5e-7, -1.5e-7, 0.000001,
        1767225600000, 1.2345678901234568e17, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
        Double(Int64.max), Double(Int32.max), 9_007_199_254_740_992, 9_007_199_254_740_994, 999_999_999_999_999, 123_456_789_012_345,
    ]

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func string() -> String {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            // Plain ASCII of every length around the eight-byte word size.
            return String(repeating: "abcdefghij", count: 5).prefix(Int.random(in: 0...40, using: &random)).description
        case 1:
            // One character to escape at a random position of a longer string.
            var bytes = Array(String(repeating: "k", count: Int.random(in: 1...30, using: &random)))
            bytes.insert(contentsOf: Self.pieces.randomElement(using: &random)!, at: Int.random(in: 0...bytes.count, using: &random))
            return String(bytes)
        default:
            return (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
        }
    }

    mutating func number() -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Self.numbers.randomElement(using: &random)!
        case 1: return Double(Int64.random(in: -2_000_000_000_000_000...2_000_000_000_000_000, using: &random))
        case 2: return Double(Int.random(in: -1000...1000, using: &random))
        default: return Double(bitPattern: random.next() & ~(0x7FF << 52) | (UInt64.random(in: 900...1150, using: &random) << 52))
        }
    }

    mutating func value(depth: Int = 0) -> JSONValue {
        let kind = Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &random)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(number())
        case 3: return .string(string())
        case 4: return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth: depth + 1) })
        default:
            // Duplicate keys on purpose: the writer prints members as stored.
            return .object(JSONObject((0..<Int.random(in: 0...5, using: &random)).map { _ in
                JSONObject.Member(key: string(), value: value(depth: depth + 1))
            }))
        }
    }
}

@Suite("JSONCompactWriter")
struct JSONCompactWriterTests {
    @Test("matches the reference serializer byte for byte on random trees", arguments: [1, 2, 3, 4] as [UInt64])
    func differential(seed: UInt64) {
        var generator = JSONValueGenerator(seed: seed)
        for _ in 0..<500 {
            let value = generator.value()
            let expected = ReferenceJSON.serialize(value)
            let actual = value.serialized()
            if actual != expected {
                Issue.record("\(String(decoding: actual, as: UTF8.self)) != \(String(decoding: expected, as: UTF8.self))")
                return
            }
        }
    }

    @Test("every byte below 0x80 escapes like the reference, alone and inside strings of every length")
    func everyByte() {
        for byte in UInt8(0)..<0x80 {
            let character = String(UnicodeScalar(byte))
            for length in 0..<20 {
                for position in [0, length / 2, length] {
                    var text = String(repeating: "x", count: length)
                    text.insert(contentsOf: character, at: text.index(text.startIndex, offsetBy: position))
                    let value = JSONValue.string(text)
                    #expect(value.serialized() == ReferenceJSON.serialize(value), "byte \(byte) at \(position) of \(length)")
                }
            }
        }
    }

    @Test("numbers print as the reference prints them", arguments: JSONValueGenerator.numbers + [.nan, .infinity, -.infinity])
    func numbers(value: Double) {
        for n in [value, -value] {
            #expect(JSONValue.number(n).serialized() == Array(JSONValue.javaScriptNumber(n).utf8))
            #expect(JSONValue.array([.number(n), .number(n)]).serialized() == ReferenceJSON.serialize(.array([.number(n), .number(n)])))
        }
    }

    @Test("bodies far past the scratch buffer (heap growth mid-string and mid-number)", arguments: [1000, 1023, 1024, 1025, 5000, 70_000])
    func large(size: Int) {
        let escaped = String(repeating: "ab\"\n", count: size / 4)
        let value: JSONValue = [
            "pad": .string(String(repeating: "p", count: size)), "escaped": .string(escaped),
            "list": .array((0..<size / 10).map { .number(Double($0 * 7919)) }),
        ]
        #expect(value.serialized() == ReferenceJSON.serialize(value))
        #expect(value.serializedSize == ReferenceJSON.serialize(value).count)
    }

    static let finitenessCases: [(JSONValue, Bool)] = [
        (.number(1), true), (.number(.nan), false), (["a": [1, 2, .number(.infinity)]], false),
        (["a": [1, 2, 3], "b": "x"], true), (.array([.object(["x": .number(-.infinity)])]), false), (.null, true),
    ]

    @Test("reports non-finite numbers, which print as null", arguments: finitenessCases)
    func finiteness(value: JSONValue, finite: Bool) {
        let result = JSONCompactWriter.serialize(value)
        #expect(result.allFinite == finite)
        #expect(result.bytes == ReferenceJSON.serialize(value))
    }
}

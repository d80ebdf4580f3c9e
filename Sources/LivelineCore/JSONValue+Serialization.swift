import Foundation

extension JSONValue {
    /// Compact JSON bytes, printed as JavaScript's `JSON.stringify` prints them: no spaces, keys in
    /// order, `/` unescaped, lowercase `\u00xx` for other control characters, numbers in JavaScript's
    /// shortest form (`16`, `0.5`, `1e+21`, `1e-7`), non-finite numbers as `null`.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, indent: nil, depth: 0)
        return out
    }

    /// The compact form as a `String`.
    public var jsonString: String { String(decoding: serialized(), as: UTF8.self) }

    /// An indented form for people (two spaces, `"key": value`), keys in order.
    public func prettyPrinted() -> String {
        var out: [UInt8] = []
        write(to: &out, indent: 2, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte count of the compact form.
    public var serializedSize: Int { serialized().count }

    private func write(to out: inout [UInt8], indent: Int?, depth: Int) {
        switch self {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .number(let n): out.append(contentsOf: Array(JSONValue.javaScriptNumber(n).utf8))
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                item.write(to: &out, indent: indent, depth: depth + 1)
            }
            if !items.isEmpty { newline(&out, indent, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, depth + 1)
                JSONValue.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                member.value.write(to: &out, indent: indent, depth: depth + 1)
            }
            if !object.isEmpty { newline(&out, indent, depth) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: Int?, _ depth: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
    }

    /// Writes `string` as a JSON string literal with `JSON.stringify`'s escaping.
    public static func writeString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0x08: out.append(contentsOf: [92, UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [92, UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [92, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [92, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [92, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `number` as JavaScript's `Number.prototype.toString` prints it (ECMA-262 §6.1.6.1.20):
    /// the shortest round-trip digits, plain notation for exponents in -6..<21, exponent notation
    /// (`1e+21`, `1.5e-7`) outside, `-0` as `0`, and `null` for NaN and the infinities.
    public static func javaScriptNumber(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == 0 { return "0" }
        if number.magnitude < 1e15, number == number.rounded() { return String(Int64(number)) }
        // Swift's description also gives the shortest round-trip digits; only the layout differs.
        let negative = number < 0
        let text = number.magnitude.description  // e.g. "0.1", "1.5e-07", "1e+16", "123.45"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...].replacingOccurrences(of: "+", with: "")) ?? 0
        }
        var digits = mantissa.replacingOccurrences(of: ".", with: "")
        // n = position of the decimal point relative to the digit string.
        var n = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count) + exponent
        while digits.hasPrefix("0") && digits.count > 1 {
            digits.removeFirst()
            n -= 1
        }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        let k = digits.count
        var result: String
        if k <= n && n <= 21 {
            result = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            result = String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            result = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let e = n - 1
            let sign = e < 0 ? "-" : "+"
            result = k == 1
                ? digits + "e" + sign + String(abs(e))
                : String(digits.prefix(1)) + "." + String(digits.dropFirst()) + "e" + sign + String(abs(e))
        }
        return negative ? "-" + result : result
    }
}

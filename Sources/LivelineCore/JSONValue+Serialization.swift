import Foundation

extension JSONValue {
    /// Compact JSON bytes, printed as JavaScript's `JSON.stringify` prints them: no spaces, keys in
    /// order, `/` unescaped, lowercase `\u00xx` for other control characters, numbers in JavaScript's
    /// shortest form (`16`, `0.5`, `1e+21`, `1e-7`), non-finite numbers as `null`.
    public func serialized() -> [UInt8] {
        JSONCompactWriter.serialize(self).bytes
    }

    /// The compact form as a `String`.
    public var jsonString: String { String(decoding: serialized(), as: UTF8.self) }

    /// An indented form for people (two spaces, `"key": value`), keys in order.
    public func prettyPrinted() -> String {
        var out: [UInt8] = []
        writeIndented(to: &out, depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// The byte count of the compact form.
    public var serializedSize: Int { serialized().count }

    /// The indented form; scalars print exactly as in the compact form.
    private func writeIndented(to out: inout [UInt8], depth: Int) {
        switch self {
        case .null, .bool, .number, .string: out.append(contentsOf: serialized())
        case .array(let items):
            out.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.newline(&out, depth + 1)
                item.writeIndented(to: &out, depth: depth + 1)
            }
            if !items.isEmpty { Self.newline(&out, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.newline(&out, depth + 1)
                JSONValue.writeString(member.key, to: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                member.value.writeIndented(to: &out, depth: depth + 1)
            }
            if !object.isEmpty { Self.newline(&out, depth) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ depth: Int) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// Writes `string` as a JSON string literal with `JSON.stringify`'s escaping (the compact
    /// writer's, so both forms escape alike).
    public static func writeString(_ string: String, to out: inout [UInt8]) {
        out.append(contentsOf: JSONValue.string(string).serialized())
    }

    /// `number` as JavaScript's `Number.prototype.toString` prints it (ECMA-262 §6.1.6.1.20):
    /// the shortest round-trip digits, plain notation for exponents in -6..<21, exponent notation
    /// (`1e+21`, `1.5e-7`) outside, `-0` as `0`, and `null` for NaN and the infinities.
    public static func javaScriptNumber(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == 0 { return "0" }
        if number.magnitude < 1e15, number == number.rounded() { return String(Int64(number)) }
        // Swift's description also gives the shortest round-trip digits; only the layout differs.
        // It looks like "0.1", "123.45", "1.5e-07" or "1e+16".
        let text = Array(number.magnitude.description.utf8)
        let e = text.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? text.count
        var exponent = 0
        if e < text.count {
            var i = e + 1
            var negativeExponent = false
            if text[i] == UInt8(ascii: "+") || text[i] == UInt8(ascii: "-") {
                negativeExponent = text[i] == UInt8(ascii: "-")
                i += 1
            }
            while i < text.count {
                exponent = exponent * 10 + Int(text[i] - UInt8(ascii: "0"))
                i += 1
            }
            if negativeExponent { exponent = -exponent }
        }
        let mantissa = text[..<e]
        var digits = mantissa.filter { $0 != UInt8(ascii: ".") }
        // n = position of the decimal point relative to the digit string.
        var n = (mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.count) + exponent
        while digits.count > 1 && digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            n -= 1
        }
        while digits.count > 1 && digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        var out: [UInt8] = number < 0 ? [UInt8(ascii: "-")] : []
        if k <= n && n <= 21 {
            out += digits
            out += repeatElement(UInt8(ascii: "0"), count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits[..<n]
            out.append(UInt8(ascii: "."))
            out += digits[n...]
        } else if -6 < n && n <= 0 {
            out += Array("0.".utf8)
            out += repeatElement(UInt8(ascii: "0"), count: -n)
            out += digits
        } else {
            let power = n - 1
            out.append(digits[0])
            if k > 1 {
                out.append(UInt8(ascii: "."))
                out += digits[1...]
            }
            out += Array("e\(power < 0 ? "-" : "+")\(abs(power))".utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

}

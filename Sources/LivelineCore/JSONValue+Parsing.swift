import Foundation

/// A JSON text that could not be parsed, with the line and column of the problem.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong, e.g. `duplicate key "event" (first at line 1, column 10)`.
    public let message: String
    /// The line of the problem, from 1.
    public let line: Int
    /// The column of the problem, from 1, counted in bytes (UTF-8).
    public let column: Int
    /// `invalid JSON at line L, column C: message`.
    public var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
}

extension JSONValue {
    /// Parses a JSON text (RFC 8259), keeping object keys in order.
    ///
    /// Stricter than RFC 8259 where it leaves room for two readings: a key that appears twice in
    /// one object is an error (APNs and the device may each read either value), as are text that
    /// is not UTF-8 and nesting deeper than 512 arrays and objects.
    ///
    /// - Throws: `JSONParseError` naming the line, column and what was expected.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = Parser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < parser.bytes.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    /// Parses a JSON text given as a `String`.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}

private struct Parser {
    let bytes: [UInt8]
    var index = 0
    /// Most arrays and objects one inside another, as in Foundation's JSON reader. The parser
    /// itself does not recurse; the limit keeps what walks the value afterwards (printing,
    /// comparing, `JSONDecoder`) within a 1 MiB event-loop thread's stack.
    static let maxDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> JSONParseError {
        let (line, column) = position(of: index)
        return JSONParseError(message: message, line: line, column: column)
    }

    /// The line and column (from 1, in bytes) of byte `offset`.
    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else { column += 1 }
        }
        return (line, column)
    }

    /// How a byte that cannot start what was expected is named: ASCII as itself, others in hex
    /// (a lone byte of a multi-byte character is not a character).
    func shown(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "character '\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    /// An object being read: its members so far, where each key began (its opening quote, to
    /// name both places of a duplicate), and the key whose value comes next.
    struct OpenObject {
        var members: [JSONObject.Member] = []
        var seen: [String: Int] = [:]
        var key = ""
    }

    /// Parses one value without recursion: the arrays and objects being read wait on explicit
    /// stacks, so nesting costs heap memory, not the thread's stack.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var open: [Bool] = []  // one per array or object being read: true for an object
        var arrays: [[JSONValue]] = []
        var objects: [OpenObject] = []
        while true {
            guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
            var value: JSONValue
            switch bytes[index] {
            case UInt8(ascii: "{"):
                try checkDepth(open.count)
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    value = .object(JSONObject())
                } else {
                    var object = OpenObject()
                    try readKey(into: &object)
                    objects.append(object)
                    open.append(true)
                    continue
                }
            case UInt8(ascii: "["):
                try checkDepth(open.count)
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    value = .array([])
                } else {
                    arrays.append([])
                    open.append(false)
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
            case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
            case UInt8(ascii: "n"): try literal("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw error("unexpected \(shown(bytes[index])), expected a value")
            }
            // Hand the value to the innermost open container, closing each one that ends here.
            attach: while true {
                guard let isObject = open.last else { return value }
                skipWhitespace()
                if isObject {
                    let last = objects.count - 1
                    let key = objects[last].key
                    objects[last].members.append(JSONObject.Member(key: key, value: value))
                    guard index < bytes.count else { throw error("unexpected end of input inside an object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        try readKey(into: &objects[last])
                        break attach
                    }
                    guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}' in an object") }
                    index += 1
                    value = .object(JSONObject(objects.removeLast().members))
                } else {
                    arrays[arrays.count - 1].append(value)
                    guard index < bytes.count else { throw error("unexpected end of input inside an array") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        skipWhitespace()
                        break attach
                    }
                    guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']' in an array") }
                    index += 1
                    value = .array(arrays.removeLast())
                }
                open.removeLast()
            }
        }
    }

    mutating func literal(_ word: String) throws(JSONParseError) {
        let w = Array(word.utf8)
        guard bytes.count - index >= w.count, Array(bytes[index..<index + w.count]) == w else {
            throw error("expected '\(word)'")
        }
        index += w.count
    }

    /// Refuses an array or object inside `depth` others.
    func checkDepth(_ depth: Int) throws(JSONParseError) {
        guard depth < Parser.maxDepth else { throw error("more than \(Parser.maxDepth) arrays and objects nested in one another") }
    }

    /// Reads `"key":` and the whitespace after it into `object`, refusing a key it already has.
    mutating func readKey(into object: inout OpenObject) throws(JSONParseError) {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
        let keyStart = index
        let key = try parseString()
        if let first = object.seen.updateValue(keyStart, forKey: key) {
            index = keyStart
            let (line, column) = position(of: first)
            throw error("duplicate key \"\(key)\" (first at line \(line), column \(column)): APNs and the device may each read either value; keep one")
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
        index += 1
        skipWhitespace()
        object.key = key
    }

    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout Parser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) { p.index += 1 }
            return p.index - s
        }
        let intStart = index
        let intDigits = digits(&self)
        guard intDigits > 0 else { throw error("expected digits in a number") }
        if intDigits > 1, bytes[intStart] == UInt8(ascii: "0") {
            index = intStart
            throw error("numbers cannot have leading zeros")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("expected digits after the decimal point") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number \(text) is out of range") }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        var out: [UInt8] = []
        var sawNonASCII = false
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Escapes decode to valid UTF-8, so the raw bytes are valid exactly when the string is.
                if sawNonASCII, let bad = Self.firstInvalidUTF8(bytes[start..<index]) {
                    index = bad
                    throw error("invalid UTF-8 in a string (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)))")
                }
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(34)
                case UInt8(ascii: "\\"): out.append(92)
                case UInt8(ascii: "/"): out.append(47)
                case UInt8(ascii: "b"): out.append(8)
                case UInt8(ascii: "f"): out.append(12)
                case UInt8(ascii: "n"): out.append(10)
                case UInt8(ascii: "r"): out.append(13)
                case UInt8(ascii: "t"): out.append(9)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == 92, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw error("lone high surrogate \\u\(String(scalar, radix: 16))")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("lone low surrogate \\u\(String(scalar, radix: 16))")
                    }
                    guard let u = UnicodeScalar(scalar) else { throw error("invalid unicode escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'")
                }
            case 0..<0x20:
                throw error("control character in a string (escape it)")
            default:
                if byte >= 0x80 { sawNonASCII = true }
                out.append(byte)
                index += 1
            }
        }
    }

    /// The offset of the first byte of `slice` that is not part of a valid UTF-8 sequence
    /// (overlong forms, surrogates and values above U+10FFFF are invalid), or nil.
    static func firstInvalidUTF8(_ slice: ArraySlice<UInt8>) -> Int? {
        var iterator = slice.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = slice.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    /// Four hex digits, and only those (`UInt32(_:radix:)` would also take a sign: `\u+041`).
    mutating func hex4() throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unterminated escape: expected four hex digits after \\u") }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("expected four hex digits after \\u, got \(shown(byte))")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}

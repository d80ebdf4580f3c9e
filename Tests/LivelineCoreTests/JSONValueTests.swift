import Foundation
import Testing
@testable import LivelineCore

@Suite("JSONValue")
struct JSONValueTests {
    @Test("numbers print as JavaScript's JSON.stringify prints them", arguments: [
        (16.0, "16"), (-0.5, "-0.5"), (0.1 + 0.2, "0.30000000000000004"), (1e21, "1e+21"), (1e-7, "1e-7"),
        (-0.0, "0"), (1767225600000, "1767225600000"), (1.2345678901234568e17, "123456789012345680"), (1.5e-7, "1.5e-7"),
        (0.000001, "0.000001"), (2.5e25, "2.5e+25"), (100, "100"), (Double.nan, "null"), (Double.infinity, "null"), (3.14, "3.14"),
        (1e16, "10000000000000000"), (-1.5e-7, "-1.5e-7"), (123.456, "123.456"), (Double.leastNonzeroMagnitude, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"), (721692800.5, "721692800.5"), (-42, "-42"), (1e20, "100000000000000000000"),
    ])
    func javaScriptNumbers(value: Double, expected: String) {
        #expect(JSONValue.javaScriptNumber(value) == expected)
    }

    @Test("strings escape like JSON.stringify: slash literal, lowercase \\u00xx, raw UTF-8")
    func stringEscaping() {
        let value: JSONValue = .string("a/b \"q\" \\ \n\t\u{01}\u{1F} é ✈︎ \u{2028}")
        #expect(value.jsonString == "\"a/b \\\"q\\\" \\\\ \\n\\t\\u0001\\u001f é ✈︎ \u{2028}\"")
    }

    @Test("objects keep the order their keys were written in, through a parse and a print")
    func keyOrder() throws {
        let text = #"{"z":1,"a":{"y":[true,false,null],"b":"x"},"m":-2.5}"#
        let value = try JSONValue.parse(text)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.jsonString == text)
    }

    @Test("escapes and surrogate pairs decode")
    func escapes() throws {
        let value = try JSONValue.parse(#"["\u00e9\ud83d\ude80\/\b"]"#)
        #expect(value.arrayValue?.first?.stringValue == "é🚀/\u{08}")
    }

    @Test("parse errors name the line, the column and the problem", arguments: [
        ("{\"a\": 1,\n  \"b\" 2}", 2, 7, "expected ':'"),
        ("[1, 2", 1, 6, "unexpected end of input"),
        ("{\"a\": 01}", 1, 7, "leading zeros"),
        ("\"\\ud800\"", 1, 8, "lone high surrogate"),
        ("{} x", 1, 4, "unexpected text after"),
        ("nul", 1, 1, "expected 'null'"),
    ])
    func parseErrors(text: String, line: Int, column: Int, message: String) {
        #expect {
            _ = try JSONValue.parse(text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.line == line && error.column == column && error.description.contains(message)
        }
    }

    @Test("a \\u escape takes four hex digits and nothing else, naming where it went wrong", arguments: [
        (#""\u+041""#, 1, 4, "expected four hex digits after \\u, got character '+'"),
        (#""\u-041""#, 1, 4, "expected four hex digits after \\u, got character '-'"),
        (#""\u 041""#, 1, 4, "expected four hex digits after \\u, got character ' '"),
        (#""\u004""#, 1, 7, "expected four hex digits after \\u, got character '\"'"),
        (#""\ud83d\u+e80""#, 1, 10, "expected four hex digits after \\u, got character '+'"),
        (#""\u00"#, 1, 6, "unterminated escape: expected four hex digits after \\u"),
    ])
    func unicodeEscapes(text: String, line: Int, column: Int, message: String) {
        #expect(throws: JSONParseError(message: message, line: line, column: column)) { try JSONValue.parse(text) }
    }

    @Test("a key twice in one object is refused, naming the key and both places", arguments: [
        (#"{"aps":{"event":"update","event":"end"}}"#, 1, 26, "event", 1, 9),
        ("{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}", 4, 3, "a", 2, 3),
        (#"{"a":1,"\u0061":2}"#, 1, 8, "a", 1, 2),
        (#"[{"x":[]},{"x":1,"x":2}]"#, 1, 18, "x", 1, 12),
    ])
    func duplicateKeys(text: String, line: Int, column: Int, key: String, firstLine: Int, firstColumn: Int) {
        let message = "duplicate key \"\(key)\" (first at line \(firstLine), column \(firstColumn)): APNs and the device may each read either value; keep one"
        #expect(throws: JSONParseError(message: message, line: line, column: column)) { try JSONValue.parse(text) }
    }

    @Test("the same key in different objects is fine")
    func sameKeyInDifferentObjects() throws {
        let value = try JSONValue.parse(#"{"a":{"a":1},"b":[{"a":2},{"a":3}]}"#)
        #expect(value["a"]?["a"] == 1)
    }

    @Test("bytes that are not UTF-8 are refused at the first bad byte", arguments: [
        ([0x5B, 0x22, 0x61, 0xFF, 0x62, 0x22, 0x5D], 1, 4, "invalid UTF-8 in a string (byte 0xFF)"),
        ([0x22, 0xC3, 0xA9, 0xC0, 0xAF, 0x22], 1, 4, "invalid UTF-8 in a string (byte 0xC0)"),   // é, then an overlong '/'
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2, "invalid UTF-8 in a string (byte 0xED)"),         // an encoded surrogate
        ([0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22], 1, 4, "invalid UTF-8 in a string (byte 0xE2)"),   // \n, then a cut-off €
        ([0x5B, 0xFF, 0x5D], 1, 2, "unexpected byte 0xFF, expected a value"),
        ([0x7B, 0x22, 0x6B, 0x80, 0x22, 0x3A, 0x31, 0x7D], 1, 4, "invalid UTF-8 in a string (byte 0x80)"),
    ] as [([UInt8], Int, Int, String)])
    func invalidUTF8(bytes: [UInt8], line: Int, column: Int, message: String) {
        #expect(throws: JSONParseError(message: message, line: line, column: column)) { try JSONValue.parse(bytes) }
    }

    /// `count` arrays or objects, one inside the other, around `null`.
    static func nested(_ count: Int, objects: Bool) -> String {
        objects ? String(repeating: #"{"a":"#, count: count) + "null" + String(repeating: "}", count: count)
            : String(repeating: "[", count: count) + "null" + String(repeating: "]", count: count)
    }

    @Test("512 arrays or objects nested in one another parse; 513 are refused where the 513th opens", arguments: [false, true])
    func depth(objects: Bool) throws {
        let deepest = try JSONValue.parse(Self.nested(512, objects: objects))
        #expect(deepest.serializedSize == Self.nested(512, objects: objects).utf8.count)
        let column = objects ? 512 * 5 + 1 : 513
        #expect(throws: JSONParseError(message: "more than 512 arrays and objects nested in one another", line: 1, column: column)) {
            try JSONValue.parse(Self.nested(513, objects: objects))
        }
    }

    @Test("the deepest accepted value parses, prints, compares and is freed on a 1 MiB stack (an event-loop thread's)")
    func depthFitsALoopThread() async {
        let text = Self.nested(256, objects: true).replacingOccurrences(of: "null", with: Self.nested(256, objects: false))
        let ok: Bool = await withCheckedContinuation { continuation in
            let thread = Thread {
                do {
                    let value = try JSONValue.parse(text)
                    let again = try JSONValue.parse(value.serialized())
                    continuation.resume(returning: value.jsonString == text && value == again)
                } catch {
                    continuation.resume(returning: false)
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        #expect(ok)
    }

    @Test("pretty printing indents by two spaces and parses back to the same value")
    func pretty() throws {
        let value: JSONValue = ["aps": ["event": "update", "list": [1, 2]], "empty": [:]]
        let pretty = value.prettyPrinted()
        #expect(pretty.contains("\n  \"aps\": {\n    \"event\": \"update\""))
        #expect(try JSONValue.parse(pretty) == value)
    }
}

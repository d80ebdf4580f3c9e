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

    @Test("pretty printing indents by two spaces and parses back to the same value")
    func pretty() throws {
        let value: JSONValue = ["aps": ["event": "update", "list": [1, 2]], "empty": [:]]
        let pretty = value.prettyPrinted()
        #expect(pretty.contains("\n  \"aps\": {\n    \"event\": \"update\""))
        #expect(try JSONValue.parse(pretty) == value)
    }
}

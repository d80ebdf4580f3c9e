import Foundation
import Testing
@testable import LivelineCore

@Suite("Schema files")
struct ActivitySchemaTests {
    @Test("a schema file reads every kind of type")
    func parse() throws {
        let schema = try ActivitySchema(json: JSONValue.parse("""
        {"name": "Trip", "attributes": {"name": "string"},
         "contentState": {"eta": "date", "tags": "[string]?", "window": "dateRange", "photo": "data", "link": "url",
           "score": "double", "phase": {"enum": ["a", "b"], "optional": true}, "seat": {"row": "int", "letter": "string"},
           "extras": {"dictionary": "bool"}, "legs": {"array": {"object": {"to": "string"}}}}}
        """))
        #expect(schema.name == "Trip")
        guard case .object(let fields) = schema.contentState else { Issue.record("not an object"); return }
        let types = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.type) })
        #expect(types["tags"] == .optional(.array(.string)))
        #expect(types["phase"] == .optional(.enumeration(["a", "b"])))
        #expect(types["seat"] == .object([.init("row", .int), .init("letter", .string)]))
        #expect(types["legs"] == .array(.object([.init("to", .string)])))
        #expect(types["extras"] == .dictionary(.bool))
        let ok: JSONValue = ["eta": 1, "window": [1, 2], "photo": "AAEC", "link": "https://x.y", "score": 1.5,
                             "seat": ["row": 3, "letter": "A"], "extras": ["wifi": true], "legs": [["to": "ZRH"]]]
        #expect(schema.checkContentState(ok) == [])
        let bad: JSONValue = ["eta": 1, "window": [2, 1], "photo": "%%", "link": "https://x.y", "score": 1.5,
                              "seat": ["row": 3, "letter": "A"], "extras": ["wifi": 1], "legs": [["to": 5]]]
        let paths = Set(schema.checkContentState(bad).map(\.path))
        #expect(paths == ["aps.content-state.window", "aps.content-state.photo", "aps.content-state.extras.wifi", "aps.content-state.legs[0].to"])
    }

    @Test("bad schema files get messages naming the problem", arguments: [
        (#"[]"#, "must be a JSON object"),
        (#"{"contentState": {}}"#, "missing \"name\""),
        (#"{"name": "X"}"#, "missing \"contentState\""),
        (#"{"name": "X", "contentState": {"a": "integer"}}"#, "contentState.a: unknown type \"integer\""),
        (#"{"name": "X", "contentState": {"a": {"enum": []}}}"#, "contentState.a: \"enum\" must be a non-empty array"),
        (#"{"name": "X", "contentState": {"a": 5}}"#, "contentState.a: a type must be a string"),
        (#"{"name": "X", "contentState": {}, "extra": 1}"#, "unknown top-level key \"extra\""),
    ])
    func errors(text: String, message: String) {
        #expect {
            _ = try ActivitySchema(json: JSONValue.parse(text))
        } throws: { error in
            (error as? SchemaError)?.message.contains(message) == true
        }
    }

    @Test("the built-in FlightAttributes schema agrees with the Swift type's encoding")
    func flightSchemaMatchesType() throws {
        let flight = FlightAttributes.example(departure: Date(timeIntervalSince1970: 1_764_432_000))
        for status in FlightAttributes.Status.allCases {
            for gate in ["B12", nil] {
                let state = FlightAttributes.ContentState(status: status, gate: gate, boardingTime: flight.departure, delayMinutes: 5, isBoarding: true)
                #expect(FlightAttributes.schema.checkContentState(try JSONValue(encoding: state)) == [])
            }
        }
        #expect(FlightAttributes.schema.checkAttributes(try JSONValue(encoding: flight)) == [])
    }
}

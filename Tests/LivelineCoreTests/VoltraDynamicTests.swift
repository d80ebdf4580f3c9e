import Foundation
import Testing
@testable import LivelineCore

@Suite("Voltra Dynamic Live Activities: generated type names, props schemas, props checks")
struct VoltraDynamicTests {
    /// The declaration the tests share: a delivery with a required status, an optional ETA and a
    /// nested courier.
    static let schemaText = """
    {"voltraDynamic": "order_finished",
     "props": {"orderNumber": "string", "status": {"enum": ["preparing", "ready"]}, "etaMinutes": "int?",
               "courier": {"name": "string", "rating": "double"}, "items": "[string]"}}
    """

    static func schema() throws -> ActivitySchema { try ActivitySchema(json: JSONValue.parse(schemaText)) }

    static let good: JSONValue = ["props": ["orderNumber": "123", "status": "ready", "etaMinutes": 4,
                                            "courier": ["name": "Ana", "rating": 4.5], "items": ["tea"]]]

    @Test("the generated attributes type: Voltra + UpperCamelCase of the id's _ parts + LiveActivityAttributes")
    func typeNames() {
        #expect(VoltraDynamic.attributesType(definitionID: "order_finished") == "VoltraOrderFinishedLiveActivityAttributes")
        #expect(VoltraDynamic.attributesType(definitionID: "order__finished") == "VoltraOrderFinishedLiveActivityAttributes")
        #expect(VoltraDynamic.attributesType(definitionID: "_driver_arrived_") == "VoltraDriverArrivedLiveActivityAttributes")
        #expect(VoltraDynamic.attributesType(definitionID: "alreadyCamel") == "VoltraAlreadyCamelLiveActivityAttributes")
        #expect(VoltraDynamic.attributesType(definitionID: "flight2go") == "VoltraFlight2goLiveActivityAttributes")
        #expect(VoltraDynamic.isDefinitionID("order_finished_v2"))
        #expect(!VoltraDynamic.isDefinitionID("order-finished"))
        #expect(!VoltraDynamic.isDefinitionID(""))
        #expect(!VoltraDynamic.isDefinitionID("zürich"))
        #expect(VoltraDynamic.isAttributesType("VoltraOrderFinishedLiveActivityAttributes"))
        #expect(!VoltraDynamic.isAttributesType("VoltraAttributes"))
        #expect(!VoltraDynamic.isAttributesType("VoltraLiveActivityAttributes"))
    }

    @Test("the short form declares the generated type: attributes {name, deepLinkUrl?}, content state {props}")
    func shortForm() throws {
        let schema = try Self.schema()
        #expect(schema.name == "VoltraOrderFinishedLiveActivityAttributes")
        #expect(schema.attributes == VoltraDynamic.attributes)
        #expect(schema.voltraDynamicProps?.map(\.name) == ["orderNumber", "status", "etaMinutes", "courier", "items"])
        // The long form (what PUT /v1/schemas/{type}/versions/{v} takes) reads the same.
        let long = try ActivitySchema(json: JSONValue.parse("""
        {"name": "VoltraOrderFinishedLiveActivityAttributes",
         "contentState": {"props": {"orderNumber": "string", "status": {"enum": ["preparing", "ready"]}, "etaMinutes": "int?",
                                    "courier": {"name": "string", "rating": "double"}, "items": "[string]"}}}
        """))
        #expect(long == schema)
        #expect(schema.checkAttributes(["name": "order-123", "deepLinkUrl": "myapp://orders/123"]) == [])
    }

    @Test("declarations the generated type cannot have are refused, naming the problem")
    func badDeclarations() {
        func error(_ text: String) -> String {
            do { _ = try ActivitySchema(json: JSONValue.parse(text)); return "" } catch { return "\(error)" }
        }
        #expect(error(#"{"voltraDynamic": "order-finished", "props": {}}"#).contains("not a Voltra definition id"))
        #expect(error(#"{"voltraDynamic": "x", "props": {"at": "date"}}"#).contains("props.at"))
        #expect(error(#"{"voltraDynamic": "x", "props": {"at": "date"}}"#).contains("cannot be declared"))
        #expect(error(#"{"voltraDynamic": "x", "props": [1]}"#).contains("\"props\" must be an object"))
        #expect(error(#"{"voltraDynamic": "x", "props": {}, "extra": 1}"#).contains("unknown key \"extra\""))
        #expect(error(#"{"name": "VoltraXLiveActivityAttributes", "contentState": {"status": "string"}}"#).contains("must be {\"props\""))
    }

    @Test("props that match the declaration pass; each mismatch is a finding naming the prop, the type and the path")
    func propsFindings() throws {
        let schema = try Self.schema()
        #expect(schema.checkContentState(Self.good) == [])
        let bad: JSONValue = ["props": ["orderNumber": 123, "status": "lost", "courier": ["name": "Ana", "rating": "high", "phone": "1"],
                                        "items": ["tea", 2], "tip": 1]]
        let findings = schema.checkContentState(bad)
        let byPath = Dictionary(findings.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byPath["aps.content-state.props.orderNumber"]?.code == .wrongPropType)
        #expect(byPath["aps.content-state.props.orderNumber"]?.message.contains("\"orderNumber\" must be a string (string), got number 123") == true)
        #expect(byPath["aps.content-state.props.status"]?.code == .wrongPropType)
        #expect(byPath["aps.content-state.props.courier.rating"]?.code == .wrongPropType)
        #expect(byPath["aps.content-state.props.courier.phone"]?.code == .undeclaredProp)
        #expect(byPath["aps.content-state.props.items[1]"]?.code == .wrongPropType)
        #expect(byPath["aps.content-state.props.tip"]?.code == .undeclaredProp)
        #expect(byPath["aps.content-state.props.tip"]?.message.contains("declared: orderNumber, status, etaMinutes, courier, items") == true)
        #expect(findings.count == 6)
        #expect(findings.allSatisfy { $0.severity == .error })
        // A required prop left out: every update replaces the whole record.
        let missing = schema.checkContentState(["props": ["orderNumber": "1", "courier": ["name": "A", "rating": 1], "items": []]])
        #expect(missing.map(\.code) == [.missingProp])
        #expect(missing.first?.path == "aps.content-state.props.status")
    }

    @Test("what the generated type cannot decode is props-undecodable; other content-state keys are warned about")
    func undecodable() throws {
        let schema = try Self.schema()
        #expect(schema.checkContentState(["uiJsonData": "abc"]).first?.code == .propsUndecodable)
        #expect(schema.checkContentState(["props": "x"]).first?.code == .propsUndecodable)
        #expect(schema.checkContentState([1]).first?.code == .propsUndecodable)
        var state = Self.good.objectValue!
        state["uiJsonData"] = "abc"
        let warned = schema.checkContentState(.object(state))
        #expect(warned.map(\.code) == [.unknownKey])
        #expect(warned.first?.severity == .warning)
        if case .failure(let f) = VoltraDynamic.decodeProps(["props": [1]]) { #expect(f.message.contains("props")) } else { Issue.record("decoded") }
        if case .success(let p) = VoltraDynamic.decodeProps(Self.good) { #expect(p["orderNumber"] == "123") } else { Issue.record("not decoded") }
    }

    @Test("an integer prop past 2^53 is refused: the device's Double cannot hold it")
    func precision() throws {
        let schema = try ActivitySchema(json: JSONValue.parse(#"{"voltraDynamic": "x", "props": {"id": "int"}}"#))
        #expect(schema.checkContentState(["props": ["id": 9_007_199_254_740_992]]) == [])
        #expect(schema.checkContentState(["props": ["id": .number(18_014_398_509_481_984)]]).map(\.code) == [.propPrecision])
        #expect(schema.checkContentState(["props": ["id": 1.5]]).map(\.code) == [.wrongPropType])
    }

    @Test("props too large for any update to fit APNs' 4096 bytes are refused, the largest props named")
    func size() throws {
        let schema = try ActivitySchema(json: JSONValue.parse(#"{"voltraDynamic": "x", "props": {"a": "string", "b": "string"}}"#))
        let limit = VoltraDynamic.deviceLimit - VoltraDynamic.updateEnvelopeBytes
        // {"props":{"a":"…","b":""}}: its bytes beside a's text, then a's text exactly at the limit, then one over.
        let frame = JSONValue.object(["props": ["a": "", "b": ""]]).serializedSize
        let fits: JSONValue = ["props": ["a": .string(String(repeating: "x", count: limit - frame)), "b": ""]]
        #expect(fits.serializedSize == limit)
        #expect(schema.checkContentState(fits) == [])
        let over: JSONValue = ["props": ["a": .string(String(repeating: "x", count: limit - frame + 1)), "b": ""]]
        let findings = schema.checkContentState(over)
        #expect(findings.map(\.code) == [.propsTooLarge])
        #expect(findings.first?.message.contains("Largest props: a (") == true)
        // And the update it makes is indeed one byte over APNs' limit.
        let body: JSONValue = ["aps": ["timestamp": 1_700_000_000, "event": "update", "content-state": over]]
        #expect(body.serializedSize == VoltraDynamic.deviceLimit + 1)
    }

    @Test("lint: an update's props are checked against the declared schema")
    func lint() throws {
        let schema = try Self.schema()
        let linter = Linter(schemas: [schema], schema: schema, now: Date(timeIntervalSince1970: 1_700_000_000))
        let body: JSONValue = ["aps": ["timestamp": 1_700_000_000, "event": "update", "content-state": ["props": ["orderNumber": "1"]]]]
        let codes = Set(linter.lint(body: body).map(\.code))
        #expect(codes.contains(.missingProp))
        let start: JSONValue = ["aps": ["timestamp": 1_700_000_000, "event": "start", "attributes-type": "VoltraOrderFinishedLiveActivityAttributes",
                                        "attributes": ["name": "order-123"], "alert": ["title": "Order"], "content-state": Self.good]]
        #expect(linter.lint(body: start).filter { $0.severity == .error } == [])
    }
}

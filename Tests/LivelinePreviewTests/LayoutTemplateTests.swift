import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// Design templates: a JSON-form layout bound to a type's attributes and content state, evaluated
/// per state, and every mistake an error naming its path.
@Suite struct LayoutTemplateTests {
    static let schema: JSONValue = [
        "name": "RideAttributes",
        "attributes": ["driver": "string", "pickup": "date"],
        "contentState": ["stage": ["enum": ["coming", "arrived", "riding"]], "minutes": "int", "plate": "string?", "paid": "bool"],
    ]

    static func template(lets: JSONValue = [:], _ layout: JSONValue) throws -> LayoutTemplate {
        try LayoutTemplate(json: ["attributesType": "RideAttributes", "schema": schema, "let": lets, "layout": layout], name: "ride.json", directory: nil)
    }

    static func text(_ layout: UILayout) -> String { LayoutForm.json(layout).jsonString }

    /// 2026-01-01 09:00 UTC in seconds since 2001, as the device encodes dates.
    static let pickup = Date(timeIntervalSince1970: 1_767_258_000).timeIntervalSinceReferenceDate
    static let attributes: JSONValue = ["driver": "Ana", "pickup": .number(pickup)]
    static func state(_ stage: String, minutes: Int = 4, plate: JSONValue = "AB-12", paid: Bool = false) -> JSONValue {
        ["stage": .string(stage), "minutes": .number(Double(minutes)), "plate": plate, "paid": .bool(paid)]
    }

    @Test("bindings fill text, dates print as clock times in the time zone or as epoch milliseconds for a Timer")
    func bindings() throws {
        let template = try Self.template([
            "lockScreen": ["type": "VStack", "children": [
                ["type": "Text", "children": [["bind": "attributes.driver"], " in ", ["bind": "state.minutes"], " min"]],
                ["type": "Text", "children": ["bind": "attributes.pickup", "format": "time", "plusMinutes": ["bind": "state.minutes"]]],
                ["type": "Timer", "props": ["endAtMs": ["bind": "attributes.pickup", "format": "epochMs"]]],
            ]],
        ])
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        let layout = try template.layout(attributes: Self.attributes, state: Self.state("coming", minutes: 7), isStale: false, timeZone: tokyo)
        let json = Self.text(layout)
        #expect(json.contains(#""Ana in 7 min""#), "\(json)")
        #expect(json.contains(#""18:07""#), "Tokyo is UTC+9 and the pickup moves 7 minutes: \(json)")
        #expect(json.contains("1767258000000"), "\(json)")
        let utc = try template.layout(attributes: Self.attributes, state: Self.state("coming", minutes: 0), isStale: false, timeZone: TimeZone(secondsFromGMT: 0)!)
        #expect(Self.text(utc).contains(#""09:00""#))
    }

    @Test("conditions and switches choose per state; let values are computed once and reused")
    func perState() throws {
        let template = try Self.template(lets: [
            "here": ["in": [["bind": "state.stage"], ["arrived", "riding"]]],
            "headline": ["switch": ["bind": "state.stage"], "cases": ["coming": ["concat": ["In ", ["bind": "state.minutes"], " min"]], "arrived": "Outside"],
                         "default": "On the way"],
        ], [
            "lockScreen": ["type": "VStack", "children": [
                ["type": "Text", "children": ["bind": "let.headline"]],
                ["if": ["all": [["bind": "let.here"], ["not": ["bind": "state.paid"]]]], "then": ["type": "Text", "children": "Pay now"]],
                ["if": ["greater": [["bind": "state.minutes"], 5]], "then": ["type": "Text", "children": "Late"], "else": ["type": "Text", "children": "Soon"]],
                ["if": ["bind": "context.isStale"], "then": ["type": "Text", "children": "Stale"]],
                ["type": "Text", "children": ["bind": "state.plate", "default": "no plate yet"]],
            ]],
        ])
        func draw(_ state: JSONValue, stale: Bool = false) throws -> String {
            Self.text(try template.layout(attributes: Self.attributes, state: state, isStale: stale, timeZone: TimeZone(secondsFromGMT: 0)!))
        }
        let coming = try draw(Self.state("coming", minutes: 9))
        #expect(coming.contains("In 9 min") && coming.contains("Late") && !coming.contains("Pay now") && !coming.contains("Stale"))
        let arrived = try draw(Self.state("arrived", minutes: 0))
        #expect(arrived.contains("Outside") && arrived.contains("Pay now") && arrived.contains("Soon"))
        let paid = try draw(Self.state("riding", paid: true), stale: true)
        #expect(paid.contains("On the way") && !paid.contains("Pay now") && paid.contains("Stale"))
        #expect(try draw(Self.state("coming", plate: .null)).contains("no plate yet"))
    }

    @Test("a bad template is refused when read, with the path of the mistake and what would be right",
          arguments: [
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "state.gate"}}}"#,
             #"layout.lockScreen.children.bind: unknown binding "state.gate": RideAttributes's content state has stage, minutes, plate, paid"#),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "attributes.car"}}}"#, "RideAttributes's attributes has driver, pickup"),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "let.eta"}}}"#, #"unknown binding "let.eta": the template defines no let values"#),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "device.name"}}}"#, "a binding starts with state., attributes., let. or is context.isStale"),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "state.minutes", "format": "time"}}}"#,
             "layout.lockScreen.children.format: time formats a date; state.minutes is an int"),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "attributes.pickup", "format": "hh:mm"}}}"#, #"unknown format "hh:mm"; known: time, epochMs"#),
            (#"{"lockScreen": {"type": "Text", "children": {"bind": "state.plate", "fallback": "x"}}}"#,
             #"layout.lockScreen.children.fallback: unknown key beside "bind"; it takes "format", "plusMinutes", "default""#),
            (#"{"lockScreen": {"if": {"bind": "state.minutes"}, "then": {"type": "Text", "children": "x"}}}"#,
             "layout.lockScreen.if: a condition must be a bool (a bool field, or equals/in/greater/not/all/any), got an int"),
            (#"{"lockScreen": {"if": {"greater": [{"bind": "state.plate"}, 1]}, "then": null}}"#, "layout.lockScreen.if.greater[0]: greater compares numbers, not a string"),
            (#"{"lockScreen": {"switch": {"bind": "state.stage"}, "cases": []}}"#, "layout.lockScreen.cases: expected an object from each value to its result"),
            (#"{"lockScreen": {"if": {"bind": "state.paid"}, "switch": 1}}"#, #"one expression per object: "if" and "switch" cannot be together"#),
            (#"{"lockScreen": {"type": "Txt", "children": {"bind": "state.stage"}}}"#, #"template ride.json: layout: invalid layout at lockScreen.type: unknown component "Txt""#),
          ])
    func badTemplates(layout: String, message: String) throws {
        let error = #expect(throws: TemplateError.self) { try Self.template(try JSONValue.parse(Array(layout.utf8))) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
        #expect(error?.message.hasPrefix("template ride.json: ") == true)
    }

    @Test("a let value may use only those defined before it")
    func letOrder() throws {
        let error = #expect(throws: TemplateError.self) {
            try Self.template(lets: ["a": ["bind": "let.b"], "b": "x"], ["lockScreen": ["type": "Text", "children": "x"]])
        }
        #expect(error?.message.contains(#"let.a.bind: unknown binding "let.b""#) == true, "\(error?.message ?? "")")
    }

    @Test("the file's shape: its type, a schema for that type, a layout")
    func fileShape() throws {
        let layout: JSONValue = ["lockScreen": ["type": "Text", "children": "x"]]
        let cases: [(JSONValue, String)] = [
            (["schema": Self.schema, "layout": layout], "attributesType: missing"),
            (["attributesType": "PizzaAttributes", "schema": Self.schema, "layout": layout], "schema: the schema is for RideAttributes, not PizzaAttributes"),
            (["attributesType": "RideAttributes", "layout": layout], "schema: missing"),
            (["attributesType": "RideAttributes", "schema": "nowhere.json", "layout": layout], "schema: cannot read the schema file"),
            (["attributesType": "RideAttributes", "schema": Self.schema], "layout: missing"),
            (["attributesType": "RideAttributes", "schema": Self.schema, "layout": layout, "theme": "dark"], "theme: unknown key"),
        ]
        for (json, message) in cases {
            let error = #expect(throws: TemplateError.self) { try LayoutTemplate(json: json, name: "ride.json", directory: nil) }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
        }
    }

    @Test("a payload without a field the template binds is an error naming the binding's path, not an empty text")
    func missingField() throws {
        let template = try Self.template(["island": ["minimal": ["type": "Text", "children": ["bind": "state.minutes"]]]])
        let error = #expect(throws: TemplateError.self) {
            try template.layout(attributes: Self.attributes, state: ["stage": "coming"], isStale: false, timeZone: .current)
        }
        #expect(error?.message == "template ride.json: layout.island.minimal.children.bind: state.minutes is missing from the content state")
        let noAttributes = try Self.template(["lockScreen": ["type": "Text", "children": ["bind": "attributes.driver"]]])
        let missing = #expect(throws: TemplateError.self) {
            try noAttributes.layout(attributes: nil, state: Self.state("coming"), isStale: false, timeZone: .current)
        }
        #expect(missing?.message.contains("attributes.driver needs the activity's attributes") == true)
    }

    @Test("a payload's type is drawn through a template given in the options, and the page names the file")
    func throughOptions() throws {
        var options = PreviewOptions(at: Date(timeIntervalSince1970: 1_767_250_000))
        options.template = try Self.template(["lockScreen": ["type": "Text", "children": ["Driver ", ["bind": "attributes.driver"]]]])
        let document = try ActivityPreview.document(attributesType: "RideAttributes", attributes: Self.attributes, contentState: Self.state("coming"), options: options)
        #expect(document.fragments[.lockScreen]?.contains(">Driver Ana<") == true)
        #expect(document.html.contains("RideAttributes through its template (ride.json)"))
        // Its schema checks the payload: a stage the enum lacks would not decode on the device.
        #expect(throws: PreviewError.self) {
            try ActivityPreview.document(attributesType: "RideAttributes", attributes: Self.attributes, contentState: Self.state("lost"), options: options)
        }
        let other = #expect(throws: PreviewError.self) {
            try ActivityPreview.document(attributesType: "FlightAttributes", attributes: Self.attributes, contentState: Self.state("coming"), options: options)
        }
        #expect(other?.description.contains("the template ride.json draws RideAttributes, but the payload's attributes type is 'FlightAttributes'") == true)
    }
}

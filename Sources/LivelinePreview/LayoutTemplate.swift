import Foundation
import LivelineCore
import LivelineUI

/// A design for a typed Live Activity, written once as a file: a JSON-form layout (what
/// `liveline ui` reads) whose values may be bound to the activity's attributes and content state.
///
/// ```json
/// {"attributesType": "FlightActivityAttributes",
///  "schema": "../FlightActivityAttributes.schema.json",
///  "let": {"late": {"greater": [{"bind": "state.delayMinutes"}, 0]}},
///  "layout": {"lockScreen": {"type": "Text", "children": ["Gate ", {"bind": "state.gateNumber"}]}}}
/// ```
/// Anywhere in `layout` (and in `let`), an object with one of these keys is an expression:
/// `bind` (a path `state.F`, `attributes.F`, `let.N` or `context.isStale`; with `format` `time` or
/// `epochMs` for dates, `plusMinutes`, `default` for a missing or null field), `if`/`then`/`else`,
/// `switch`/`cases`/`default`, `concat`, and the conditions `equals`, `in`, `greater`, `not`,
/// `all`, `any`. Every binding is checked against the schema when the file is read, so a typo is
/// an error naming its path, not an empty picture. The preview draws it (`liveline preview
/// --template`), and `SwiftUIGenerator` writes the widget's SwiftUI views from the same file.
public struct LayoutTemplate: Sendable {
    /// The attributes type the design draws (`FlightActivityAttributes`).
    public let attributesType: String
    /// The type's schema: the fields bindings may name, and the payload's checks.
    public let schema: ActivitySchema
    /// Where the design came from, for the page and errors (the file's path as given).
    public let name: String
    /// The named values of `let`, in order (each may use those before it).
    let definitions: [(name: String, value: JSONValue)]
    /// The JSON-form layout with expressions.
    let layout: JSONValue
    /// The type of each definition.
    let definitionTypes: [String: ValueType]

    /// The keys that make an object an expression, and the keys each allows beside it.
    static let expressionKeys: [String: [String]] = [
        "bind": ["format", "plusMinutes", "default"], "if": ["then", "else"], "switch": ["cases", "default"], "concat": [],
        "equals": [], "in": [], "greater": [], "not": [], "all": [], "any": [],
    ]
    static let formats = ["time", "epochMs"]

    /// The type of a value, as far as the template's checks and the Swift generator need it.
    enum ValueType: Equatable, Sendable {
        case string, int, double, bool, date, null, other
        var name: String {
            switch self {
            case .string: "a string"
            case .int: "an int"
            case .double: "a number"
            case .bool: "a bool"
            case .date: "a date"
            case .null: "null"
            case .other: "a node or object"
            }
        }
        var isNumber: Bool { self == .int || self == .double }
    }

    /// Reads a template file; a relative `schema` path is read from beside it.
    /// - Throws: `TemplateError` naming the file and the path of what is wrong.
    public static func load(file path: String) throws -> LayoutTemplate {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw TemplateError("template \(path): cannot be read (\(error.localizedDescription))")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(Array(data)) } catch { throw TemplateError("template \(path): not valid JSON: \(error.description)") }
        return try LayoutTemplate(json: json, name: path, directory: url.deletingLastPathComponent())
    }

    /// A template from its JSON; `directory` is where a relative `schema` path is read from (nil:
    /// the schema must be inline or built in).
    /// - Throws: `TemplateError` naming `name` and the path of what is wrong.
    /// `schema`, when given, is used instead of reading a `schema` path (a template built into the binary).
    public init(json: JSONValue, name: String, directory: URL?, schema given: ActivitySchema? = nil) throws {
        func fail(_ path: String, _ message: String) -> TemplateError { TemplateError("template \(name): \(path): \(message)") }
        guard let root = json.objectValue else { throw TemplateError("template \(name): expected an object with attributesType, schema, let and layout") }
        for key in root.keys where !["attributesType", "schema", "let", "layout", "description"].contains(key) {
            throw fail(key, "unknown key; a template has attributesType, schema, let, layout and description")
        }
        guard let type = root["attributesType"]?.stringValue, !type.isEmpty else {
            throw fail("attributesType", "missing: the Swift ActivityAttributes type the design draws (a string)")
        }
        self.attributesType = type
        self.name = name
        if let given, root["schema"]?.stringValue != nil {
            self.schema = given
        } else {
            self.schema = try Self.schema(root["schema"], type: type, directory: directory, fail: fail)
        }
        guard schema.name == type else {
            throw fail("schema", "the schema is for \(schema.name), not \(type)")
        }
        guard let layout = root["layout"], layout.objectValue != nil else { throw fail("layout", "missing: the JSON-form layout (lockScreen, island)") }
        self.layout = layout
        var definitions: [(name: String, value: JSONValue)] = []
        var types: [String: ValueType] = [:]
        if let lets = root["let"] {
            guard let object = lets.objectValue else { throw fail("let", "expected an object of named values") }
            for member in object {
                guard member.key.first?.isLetter == true, member.key.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                    throw fail("let.\(member.key)", "a name is letters and digits, starting with a letter")
                }
                let checker = Checker(template: name, schema: schema, definitions: types)
                types[member.key] = try checker.check(member.value, path: "let.\(member.key)")
                definitions.append((member.key, member.value))
            }
        }
        self.definitions = definitions
        self.definitionTypes = types
        _ = try Checker(template: name, schema: schema, definitions: types).check(layout, path: "layout")
        // The layout must be a layout whatever the bindings hold: checked with every binding as a sample value.
        do { _ = try LayoutForm.parse(Checker.sample(layout)) } catch {
            throw TemplateError("template \(name): layout: \(error.message)")
        }
    }

    static func schema(_ value: JSONValue?, type: String, directory: URL?, fail: (String, String) -> TemplateError) throws -> ActivitySchema {
        switch value {
        case nil, .null?:
            if type == FlightAttributes.attributesType { return FlightAttributes.schema }
            throw fail("schema", "missing: the type's schema, inline or a schema file's path relative to the template")
        case .string(let path)?:
            let url = path.hasPrefix("/") || directory == nil ? URL(fileURLWithPath: path) : directory!.appendingPathComponent(path)
            guard let data = try? Data(contentsOf: url), let json = try? JSONValue.parse(Array(data)) else {
                throw fail("schema", "cannot read the schema file \(url.path) as JSON")
            }
            do { return try ActivitySchema(json: json) } catch { throw fail("schema", "\(url.path): \(error.message)") }
        case let inline?:
            do { return try ActivitySchema(json: inline) } catch { throw fail("schema", error.message) }
        }
    }

    /// The fields of an object type, by name.
    static func fields(_ type: ActivitySchema.FieldType) -> [ActivitySchema.Field] {
        if case .object(let fields) = type { return fields }
        return []
    }

    static func valueType(_ field: ActivitySchema.FieldType) -> ValueType {
        switch field {
        case .string, .enumeration, .url: .string
        case .int: .int
        case .double: .double
        case .bool: .bool
        case .date: .date
        case .optional(let inner): valueType(inner)
        default: .other
        }
    }
}

/// A template that cannot be read, or whose bindings do not fit the payload.
public struct TemplateError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
    init(_ message: String) { self.message = message }
}

extension LayoutTemplate {
    /// The static checks of a template's values: known keys, known bindings, types that fit.
    struct Checker {
        var template: String
        var schema: ActivitySchema
        var definitions: [String: ValueType]

        func fail(_ path: String, _ message: String) -> TemplateError { TemplateError("template \(template): \(path): \(message)") }

        /// The expression's key in `object`, if it is one.
        static func expressionKey(_ object: JSONObject) -> String? {
            object.keys.first { LayoutTemplate.expressionKeys[$0] != nil }
        }

        /// Checks `value` and every expression in it; returns its type.
        func check(_ value: JSONValue, path: String) throws -> ValueType {
            switch value {
            case .string: return .string
            case .number(let n): return n == n.rounded() && abs(n) < 1e15 ? .int : .double
            case .bool: return .bool
            case .null: return .null
            case .array(let list):
                for (i, item) in list.enumerated() { _ = try check(item, path: "\(path)[\(i)]") }
                return .other
            case .object(let object):
                guard let key = Self.expressionKey(object) else {
                    for member in object { _ = try check(member.value, path: "\(path).\(member.key)") }
                    return .other
                }
                let allowed = [key] + (LayoutTemplate.expressionKeys[key] ?? [])
                for other in object.keys where !allowed.contains(other) {
                    throw fail("\(path).\(other)", LayoutTemplate.expressionKeys[other] != nil
                        ? "one expression per object: \"\(key)\" and \"\(other)\" cannot be together (nest them)"
                        : "unknown key beside \"\(key)\"; it takes \(allowed.dropFirst().map { "\"\($0)\"" }.joined(separator: ", ").ifEmpty("nothing else"))")
                }
                return try checkExpression(key, object, path: path)
            }
        }

        func operands(_ value: JSONValue?, count: Int?, path: String, what: String) throws -> [JSONValue] {
            guard let list = value?.arrayValue, count.map({ list.count == $0 }) ?? !list.isEmpty else {
                throw fail(path, "expected \(what)")
            }
            return list
        }

        func checkExpression(_ key: String, _ object: JSONObject, path: String) throws -> ValueType {
            let here = "\(path).\(key)"
            switch key {
            case "bind":
                guard let binding = object["bind"]?.stringValue else { throw fail(here, "expected a path such as \"state.gate\" (a string)") }
                var type = try bindingType(binding, path: here)
                if let format = object["format"] {
                    guard let name = format.stringValue, LayoutTemplate.formats.contains(name) else {
                        throw fail("\(path).format", "unknown format \(format.jsonString); known: \(LayoutTemplate.formats.joined(separator: ", "))")
                    }
                    guard type == .date else { throw fail("\(path).format", "\(name) formats a date; \(binding) is \(type.name)") }
                    type = name == "time" ? .string : .double
                }
                if let minutes = object["plusMinutes"] {
                    guard try bindingType(binding, path: here) == .date else { throw fail("\(path).plusMinutes", "plusMinutes moves a date; \(binding) is not one") }
                    let added = try check(minutes, path: "\(path).plusMinutes")
                    guard added.isNumber else { throw fail("\(path).plusMinutes", "expected a number of minutes, got \(added.name)") }
                }
                if let fallback = object["default"] { _ = try check(fallback, path: "\(path).default") }
                return type
            case "if":
                try condition(object["if"]!, path: here)
                let then = try object["then"].map { try check($0, path: "\(path).then") } ?? .null
                let otherwise = try object["else"].map { try check($0, path: "\(path).else") } ?? .null
                return then == .null ? otherwise : then
            case "switch":
                let subject = try check(object["switch"]!, path: here)
                guard [.string, .int, .bool].contains(subject) else { throw fail(here, "a switch chooses by a string, int or bool, not \(subject.name)") }
                guard let cases = object["cases"]?.objectValue, !cases.isEmpty else {
                    throw fail("\(path).cases", "expected an object from each value to its result")
                }
                var type = ValueType.null
                for member in cases {
                    let t = try check(member.value, path: "\(path).cases.\(member.key)")
                    if type == .null { type = t }
                }
                if let fallback = object["default"] {
                    let t = try check(fallback, path: "\(path).default")
                    if type == .null { type = t }
                }
                return type
            case "concat":
                for (i, part) in try operands(object["concat"], count: nil, path: here, what: "a list of parts").enumerated() {
                    let t = try check(part, path: "\(here)[\(i)]")
                    guard [.string, .int, .double, .null].contains(t) else { throw fail("\(here)[\(i)]", "concat joins text and numbers, not \(t.name)") }
                }
                return .string
            default:
                try condition(.object(object), path: path)
                return .bool
            }
        }

        /// Checks a condition: a bool value, or a comparison.
        func condition(_ value: JSONValue, path: String) throws {
            if let object = value.objectValue, let key = Self.expressionKey(object), ["equals", "in", "greater", "not", "all", "any"].contains(key) {
                let here = "\(path).\(key)"
                switch key {
                case "equals":
                    let pair = try operands(object[key], count: 2, path: here, what: "two values to compare, [a, b]")
                    _ = try check(pair[0], path: "\(here)[0]")
                    _ = try check(pair[1], path: "\(here)[1]")
                case "in":
                    let pair = try operands(object[key], count: 2, path: here, what: "a value and a list, [a, [\"x\", \"y\"]]")
                    _ = try check(pair[0], path: "\(here)[0]")
                    guard pair[1].arrayValue != nil else { throw fail("\(here)[1]", "expected a list of values") }
                case "greater":
                    let pair = try operands(object[key], count: 2, path: here, what: "two numbers, [a, b] (true when a > b)")
                    for i in 0..<2 {
                        let t = try check(pair[i], path: "\(here)[\(i)]")
                        guard t.isNumber else { throw fail("\(here)[\(i)]", "greater compares numbers, not \(t.name)") }
                    }
                case "not":
                    try condition(object[key]!, path: here)
                default:
                    for (i, item) in try operands(object[key], count: nil, path: here, what: "a list of conditions").enumerated() {
                        try condition(item, path: "\(here)[\(i)]")
                    }
                }
                return
            }
            let type = try check(value, path: path)
            guard type == .bool else { throw fail(path, "a condition must be a bool (a bool field, or equals/in/greater/not/all/any), got \(type.name)") }
        }

        /// The type a binding path reads, or an error naming what exists.
        func bindingType(_ binding: String, path: String) throws -> ValueType {
            let parts = binding.split(separator: ".", maxSplits: 1).map(String.init)
            let field = parts.count == 2 ? parts[1] : ""
            switch parts.first {
            case "state", "attributes":
                let fields = LayoutTemplate.fields(parts[0] == "state" ? schema.contentState : schema.attributes)
                guard let found = fields.first(where: { $0.name == field }) else {
                    throw fail(path, "unknown binding \"\(binding)\": \(schema.name)'s \(parts[0] == "state" ? "content state" : "attributes") has "
                        + fields.map(\.name).joined(separator: ", "))
                }
                return LayoutTemplate.valueType(found.type)
            case "let":
                guard let type = definitions[field] else {
                    throw fail(path, "unknown binding \"\(binding)\": " + (definitions.isEmpty ? "the template defines no let values"
                        : "defined before it: \(definitions.keys.sorted().joined(separator: ", "))"))
                }
                return type
            case "context" where field == "isStale":
                return .bool
            default:
                throw fail(path, "unknown binding \"\(binding)\": a binding starts with state., attributes., let. or is context.isStale")
            }
        }

        /// `value` with every expression replaced by a sample of its type (to check the layout's shape).
        static func sample(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let list): return .array(list.map(sample))
            case .object(let object):
                guard let key = expressionKey(object) else { return .object(JSONObject(object.members.map { .init(key: $0.key, value: sample($0.value)) })) }
                switch key {
                case "if": return sample(object["then"] ?? object["else"] ?? .null)
                case "switch": return sample(object["cases"]?.objectValue?.members.first?.value ?? object["default"] ?? .null)
                case "bind": return object["format"]?.stringValue == "epochMs" ? .number(0) : .string("x")
                case "concat": return .string("x")
                default: return .bool(true)
                }
            default: return value
            }
        }
    }
}

extension String {
    fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}

import Foundation
import LivelineCommandLine
import LivelineCore

/// The states `liveline fixtures` sends, as the API takes them (ISO 8601 dates): typical values,
/// every optional left out, each case of each enumeration, and edge values.
enum FixtureStates {
    struct Variant {
        var name: String
        var value: JSONValue
    }

    static func attributes(_ schema: ActivitySchema) -> [Variant] {
        variants(schema.attributes, enumerations: false)
    }

    static func contentStates(_ schema: ActivitySchema) -> [Variant] {
        variants(schema.contentState, enumerations: true)
    }

    private static func variants(_ type: ActivitySchema.FieldType, enumerations: Bool) -> [Variant] {
        var out = [Variant(name: "typical", value: value(type, name: "", style: .typical))]
        let minimal = value(type, name: "", style: .minimal)
        if minimal != out[0].value { out.append(Variant(name: "optionals-omitted", value: minimal)) }
        let edges = value(type, name: "", style: .edges)
        if edges != out[0].value { out.append(Variant(name: "edges", value: edges)) }
        if enumerations, case .object(let fields) = type {
            for field in fields {
                guard case .enumeration(let cases) = field.type.unwrapped else { continue }
                for c in cases.dropFirst() {
                    guard case .object(var o) = out[0].value else { continue }
                    o[field.name] = .string(c)
                    out.append(Variant(name: "\(field.name)-\(c)", value: .object(o)))
                }
            }
        }
        return out
    }

    enum Style { case typical, minimal, edges }

    private static func value(_ type: ActivitySchema.FieldType, name: String, style: Style) -> JSONValue {
        switch type {
        case .string: return .string(style == .edges ? "Zürich ✈︎ \"quoted\" \\ \(name)" : "\(name.isEmpty ? "text" : name) 1")
        case .int: return style == .edges ? -2_147_483_648 : 42
        case .double: return style == .edges ? -0.125 : 12.5
        case .bool: return .bool(style != .edges)
        case .date: return style == .edges ? "2027-02-28T23:59:59.500Z" : "2026-12-01T18:00:00Z"
        case .data: return "AQID"
        case .url: return .string(style == .edges ? "https://example.com/a%20b?c=d&e=f" : "https://example.com/\(name)")
        case .dateRange: return ["2026-12-01T17:00:00Z", style == .edges ? "2026-12-01T17:00:00Z" : "2026-12-01T19:00:00Z"]
        case .any: return ["note": "any JSON"]
        case .enumeration(let cases): return .string(style == .edges ? (cases.last ?? "") : (cases.first ?? ""))
        case .optional(let inner): return style == .minimal ? .null : value(inner, name: name, style: style)
        case .array(let element): return style == .edges ? [] : [value(element, name: name, style: style)]
        case .dictionary(let element): return style == .edges ? [:] : ["key": value(element, name: name, style: style)]
        case .object(let fields):
            var o = JSONObject()
            for field in fields {
                let v = value(field.type, name: field.name, style: style)
                if v != .null { o[field.name] = v }
            }
            return .object(o)
        }
    }
}

extension ActivitySchema.FieldType {
    /// The type under any optionals.
    var unwrapped: ActivitySchema.FieldType {
        if case .optional(let inner) = self { return inner.unwrapped }
        return self
    }
}

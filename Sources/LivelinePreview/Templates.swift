import Foundation
import LivelineCore
import LivelineUI

/// The typed templates previews know, by `attributes-type`, each with the schema its payloads are
/// checked against (the checks' findings become the document's warnings).
enum Templates {
    typealias Render = @Sendable (_ attributes: JSONValue?, _ state: JSONValue, _ options: PreviewOptions) throws -> UILayout

    struct Template: Sendable {
        /// The template's name, for the page ("Liveline's FlightTemplate").
        var name: String
        var schema: ActivitySchema
        var render: Render
    }

    /// The built-in designs: the flight example's (`FlightActivityAttributes`, from its template file
    /// compiled in), and Liveline's own `FlightAttributes` drawn through the same design, its fields
    /// read as the example's (one flight design, the one the example's widget is generated from).
    static let all: [String: Template] = [
        FlightDesign.attributesType: Template(name: FlightDesign.path, schema: FlightDesign.schema) { attributes, state, options in
            try FlightDesign.template().layout(attributes: attributes, state: state, isStale: options.stale, timeZone: options.timeZone)
        },
        FlightAttributes.attributesType: Template(name: "\(FlightDesign.path), its fields read as \(FlightDesign.attributesType)'s", schema: FlightAttributes.schema) {
            attributes, state, options in
            let typed: FlightAttributes = try decode(attributes, as: FlightAttributes.self, field: "attributes", type: "FlightAttributes")
            let content: FlightAttributes.ContentState = try decode(state, as: FlightAttributes.ContentState.self, field: "content-state",
                                                                    type: "FlightAttributes")
            let (exampleAttributes, exampleState) = try FlightDesign.asExample(typed, content)
            return try FlightDesign.template().layout(attributes: exampleAttributes, state: exampleState, isStale: options.stale, timeZone: options.timeZone)
        },
    ]

    /// The template `options` names for `type` (`liveline preview --template`), or the built-in one.
    /// - Throws: `PreviewError` when the given template is for another type.
    static func template(for type: String, options: PreviewOptions) throws -> Template? {
        guard let file = options.template else { return all[type] }
        guard file.attributesType == type else {
            throw PreviewError("the template \(file.name) draws \(file.attributesType), but the payload's attributes type is '\(type)'")
        }
        return Template(name: file.name, schema: file.schema) { attributes, state, options in
            try file.layout(attributes: attributes, state: state, isStale: options.stale, timeZone: options.timeZone)
        }
    }

    /// The layout of `type`'s state and what its schema finds in the payload (dates in the wrong
    /// unit, keys the device ignores).
    /// - Throws: `PreviewError` when the state or attributes would not decode on the device.
    static func layout(_ template: Template, type: String, attributes: JSONValue?, state: JSONValue,
                       options: PreviewOptions) throws -> (UILayout, [String]) {
        var findings = template.schema.checkContentState(state)
        if let attributes, attributes != .null { findings += template.schema.checkAttributes(attributes) }
        if let failure = findings.first(where: \.isDecodingFailure) {
            throw PreviewError("the \(type) payload would not decode on the device, so it cannot be drawn: \(failure)")
        }
        return (try template.render(attributes, state, options), findings.map(\.description))
    }

    /// `value` decoded as the device does (Foundation's default decoder: dates in reference-date seconds).
    static func decode<T: Decodable>(_ value: JSONValue?, as type: T.Type, field: String, type name: String) throws -> T {
        guard let value, value != .null else {
            throw PreviewError("""
                \(name) needs its \(field) to be drawn (an update push carries no attributes: take them from the \
                push-to-start body or the device's activity)
                """)
        }
        do { return try value.decode(T.self) } catch {
            throw PreviewError("\(field) does not decode as \(name)'s \(field == "attributes" ? "attributes" : "ContentState"): \(Self.reason(error))")
        }
    }

    /// A decoding error as a short sentence naming the field.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context).isEmpty ? "" : path(context) + ".")\(key.stringValue)"
        case .typeMismatch(let type, let context): return "\(path(context)) is not \(type == Date.self ? "a date (seconds since 2001-01-01)" : "\(type)")"
        case .valueNotFound(_, let context): return "\(path(context)) is null"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}

extension ActivityPreview {
    /// What a typed activity of `attributesType` is drawn through, as its page says it
    /// ("FlightActivityAttributes through its template (Examples/FlightTracker/FlightActivity.template.json)");
    /// nil for a type without a built-in template.
    public static func design(of attributesType: String) -> String? {
        Templates.all[attributesType].map { "\(attributesType) through its template (\($0.name))" }
    }
}

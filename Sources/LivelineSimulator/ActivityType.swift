import Foundation
import LivelineCore
import LivelineUI

/// An `ActivityAttributes` type an app registers on a simulated device: its `attributes-type` name
/// and how the device decodes its attributes and content state.
///
/// Register a Swift type (`.type(FlightAttributes.self)`: decoded with a default `JSONDecoder` into
/// the real type, exactly as a device does) or a schema (`.schema(...)`: for apps in any language).
public struct ActivityType: Sendable {
    /// The `attributes-type` a push-to-start must name.
    public let name: String
    private let checkAttributes: @Sendable (JSONValue) -> String?
    private let checkContentState: @Sendable (JSONValue) -> String?
    /// The attributes as the app reads them back: decoded into the type, so keys it does not
    /// declare are gone (ActivityKit's `JSONDecoder` ignores them, and nothing keeps them).
    private let keptAttributes: @Sendable (JSONValue) -> JSONValue
    /// What the device shows for a content state that decoded: a layout, or why it renders nothing
    /// (`nil` for types the simulator does not render).
    let render: (@Sendable (JSONValue) throws -> UILayout)?

    /// Registers a Swift type: attributes decode into `A`, content states into `A.ContentState`.
    public static func type<A: ActivityAttributes>(_: A.Type) -> ActivityType {
        ActivityType(
            name: A.attributesType,
            checkAttributes: { json in decodeError(A.self, json, field: "attributes") },
            checkContentState: { json in decodeError(A.ContentState.self, json, field: "content-state") },
            keptAttributes: { json in roundTrip(A.self, json) })
    }

    /// Registers a type by its schema.
    public static func schema(_ schema: ActivitySchema) -> ActivityType {
        // A Voltra props declaration: the device decodes any props object (ActivityType+VoltraDynamic.swift).
        if schema.voltraDynamicProps != nil { return voltraDynamic(attributesType: schema.name, layout: nil) }
        return ActivityType(
            name: schema.name,
            checkAttributes: { json in firstError(schema.checkAttributes(json, path: "attributes")) },
            checkContentState: { json in firstError(schema.checkContentState(json, path: "content-state")) },
            keptAttributes: { json in declaredOnly(json, schema.attributes) })
    }

    /// Voltra's `VoltraAttributes` (LivelineUI): attributes `{name, deepLinkUrl?}`, content state
    /// `{uiJsonData}`. Like Voltra's extension, decoding also base64-decodes, brotli-decompresses and
    /// parses `uiJsonData`; any failure drops the update.
    public static let voltra = ActivityType(
        name: VoltraAttributes.attributesType,
        checkAttributes: { json in decodeError(VoltraAttributes.self, json, field: "attributes") },
        checkContentState: { json in
            if let error = decodeError(VoltraAttributes.ContentState.self, json, field: "content-state") { return error }
            do {
                _ = try VoltraDecoder.decode(base64: json["uiJsonData"]?.stringValue ?? "")
                return nil
            } catch {
                return "content-state.uiJsonData: \(error)"
            }
        },
        keptAttributes: { json in roundTrip(VoltraAttributes.self, json) },
        render: { json in try VoltraDecoder.decode(base64: json["uiJsonData"]?.stringValue ?? "").layout })

    /// A type with checks of your own: each closure returns `nil` when the JSON decodes, else the
    /// error. `kept` is what the app reads back of the attributes (by default all of them).
    public static func custom(
        name: String, attributes: @escaping @Sendable (JSONValue) -> String?, contentState: @escaping @Sendable (JSONValue) -> String?,
        kept: @escaping @Sendable (JSONValue) -> JSONValue = { $0 }
    ) -> ActivityType {
        ActivityType(name: name, checkAttributes: attributes, checkContentState: contentState, keptAttributes: kept)
    }

    /// `nil` when `attributes` decodes, else the decoding error as a device would report it.
    public func attributesError(_ attributes: JSONValue) -> String? { checkAttributes(attributes) }

    /// `nil` when `state` decodes, else the decoding error.
    public func contentStateError(_ state: JSONValue) -> String? { checkContentState(state) }

    /// The attributes an activity keeps once the device has decoded them (call after
    /// `attributesError` returned nil): the keys the type declares. A key it does not declare, such
    /// as the service's `livelineActivityID`, is dropped as ActivityKit drops it.
    public func decodedAttributes(_ attributes: JSONValue) -> JSONValue { keptAttributes(attributes) }

    init(name: String, checkAttributes: @escaping @Sendable (JSONValue) -> String?, checkContentState: @escaping @Sendable (JSONValue) -> String?,
         keptAttributes: @escaping @Sendable (JSONValue) -> JSONValue, render: (@Sendable (JSONValue) throws -> UILayout)? = nil) {
        self.name = name
        self.checkAttributes = checkAttributes
        self.checkContentState = checkContentState
        self.keptAttributes = keptAttributes
        self.render = render
    }

    /// Decoded into `T` and encoded again, with the default coders as ActivityKit has them.
    static func roundTrip<T: Codable>(_ type: T.Type, _ json: JSONValue) -> JSONValue {
        guard let value = try? JSONDecoder().decode(type, from: Data(json.serialized())),
              let data = try? JSONEncoder().encode(value), let back = try? JSONValue.parse(Array(data)) else { return json }
        return back
    }

    /// The members `type` declares (an object type); any other value as it is.
    private static func declaredOnly(_ json: JSONValue, _ type: ActivitySchema.FieldType) -> JSONValue {
        guard case .object(let fields) = type, case .object(let object) = json else { return json }
        let declared = Set(fields.map(\.name))
        return .object(JSONObject(object.filter { declared.contains($0.key) }))
    }

    private static func firstError(_ findings: [LintFinding]) -> String? {
        findings.first(where: \.isDecodingFailure).map { "\($0.code): \($0.path): \($0.message)" }
    }

    static func decodeError<T: Decodable>(_ type: T.Type, _ json: JSONValue, field: String) -> String? {
        do {
            _ = try JSONDecoder().decode(type, from: Data(json.serialized()))
            return nil
        } catch let error as DecodingError {
            return describe(error, field: field)
        } catch {
            return "\(field): \(error)"
        }
    }

    /// A decoding error in one line: the path from the field and what went wrong.
    static func describe(_ error: DecodingError, field: String) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            ([field] + keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }).joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "keyNotFound: \(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context):
            return "typeMismatch: \(path(context.codingPath)) is not \(type): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "valueNotFound: \(path(context.codingPath)) is null, expected \(type)"
        case .dataCorrupted(let context):
            return "dataCorrupted: \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(field): \(error)"
        }
    }
}

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

    /// Registers a Swift type: attributes decode into `A`, content states into `A.ContentState`.
    public static func type<A: ActivityAttributes>(_: A.Type) -> ActivityType {
        ActivityType(
            name: A.attributesType,
            checkAttributes: { json in decodeError(A.self, json, field: "attributes") },
            checkContentState: { json in decodeError(A.ContentState.self, json, field: "content-state") })
    }

    /// Registers a type by its schema.
    public static func schema(_ schema: ActivitySchema) -> ActivityType {
        ActivityType(
            name: schema.name,
            checkAttributes: { json in firstError(schema.checkAttributes(json, path: "attributes")) },
            checkContentState: { json in firstError(schema.checkContentState(json, path: "content-state")) })
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
        })

    /// A type with checks of your own: each closure returns `nil` when the JSON decodes, else the error.
    public static func custom(
        name: String, attributes: @escaping @Sendable (JSONValue) -> String?, contentState: @escaping @Sendable (JSONValue) -> String?
    ) -> ActivityType {
        ActivityType(name: name, checkAttributes: attributes, checkContentState: contentState)
    }

    /// `nil` when `attributes` decodes, else the decoding error as a device would report it.
    public func attributesError(_ attributes: JSONValue) -> String? { checkAttributes(attributes) }

    /// `nil` when `state` decodes, else the decoding error.
    public func contentStateError(_ state: JSONValue) -> String? { checkContentState(state) }

    private init(name: String, checkAttributes: @escaping @Sendable (JSONValue) -> String?, checkContentState: @escaping @Sendable (JSONValue) -> String?) {
        self.name = name
        self.checkAttributes = checkAttributes
        self.checkContentState = checkContentState
    }

    private static func firstError(_ findings: [LintFinding]) -> String? {
        findings.first(where: \.isDecodingFailure).map { "\($0.code): \($0.path): \($0.message)" }
    }

    private static func decodeError<T: Decodable>(_ type: T.Type, _ json: JSONValue, field: String) -> String? {
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

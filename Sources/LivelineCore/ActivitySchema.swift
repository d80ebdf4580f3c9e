import Foundation

/// A description of an `ActivityAttributes` type's JSON: its attributes and its `ContentState`.
///
/// It lets `liveline lint` and the simulator check payloads for apps not written in Swift. In a
/// schema file each field maps to a type: `"string"`, `"int"`, `"double"`, `"bool"`, `"date"`
/// (reference-date seconds), `"data"` (base64), `"url"`, `"dateRange"` (two dates), `"any"`; a `?`
/// suffix makes it optional and `[T]` is an array (`"[string]?"`). An object is either a nested
/// struct (its fields) or one of `{"enum": ["a", "b"]}`, `{"array": T}`, `{"dictionary": T}`, with
/// `"optional": true` beside it when it may be absent.
///
/// ```json
/// {"name": "FlightAttributes",
///  "attributes": {"flightNumber": "string", "departure": "date"},
///  "contentState": {"status": {"enum": ["scheduled", "delayed"]}, "gate": "string?", "delayMinutes": "int"}}
/// ```
///
/// A Voltra Dynamic Live Activity's props are declared as `{"voltraDynamic": "<definition id>",
/// "props": {…}}` (`VoltraDynamic`); its content state is then checked as props, strictly.
public struct ActivitySchema: Sendable, Hashable {
    /// A field of a struct.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: FieldType
        public init(_ name: String, _ type: FieldType) {
            self.name = name
            self.type = type
        }
    }

    /// The JSON shape a Swift property's type decodes from with a default `JSONDecoder`.
    public indirect enum FieldType: Sendable, Hashable {
        case string, int, double, bool, date, data, url, dateRange, any
        case enumeration([String])
        case optional(FieldType)
        case array(FieldType)
        case dictionary(FieldType)
        case object([Field])

        /// How the type is written in a schema file.
        public var name: String {
            switch self {
            case .string: "string"
            case .int: "int"
            case .double: "double"
            case .bool: "bool"
            case .date: "date"
            case .data: "data"
            case .url: "url"
            case .dateRange: "dateRange"
            case .any: "any"
            case .enumeration(let cases): "one of " + cases.map { "\"\($0)\"" }.joined(separator: ", ")
            case .optional(let t): t.name + "?"
            case .array(let t): "[\(t.name)]"
            case .dictionary(let t): "[string: \(t.name)]"
            case .object: "object"
            }
        }
    }

    /// The `attributes-type`, the Swift struct's name.
    public var name: String
    public var attributes: FieldType
    public var contentState: FieldType

    public init(name: String, attributes: FieldType, contentState: FieldType) {
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
    }
}

/// A schema file that does not describe a valid schema.
public struct SchemaError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

extension ActivitySchema {
    /// Reads a schema from the JSON format described on `ActivitySchema`.
    ///
    /// - Throws: `SchemaError` naming the field and what is wrong with it.
    public init(json: JSONValue) throws(SchemaError) {
        guard let object = json.objectValue else { throw SchemaError(message: "a schema must be a JSON object with \"name\", \"attributes\" and \"contentState\"") }
        if object["voltraDynamic"] != nil {  // a Voltra Dynamic Live Activity's props (VoltraDynamic.swift)
            self = try VoltraDynamic.schema(shortForm: object)
            return
        }
        guard let name = object["name"]?.stringValue, !name.isEmpty else {
            throw SchemaError(message: "schema is missing \"name\" (the ActivityAttributes type name, a string)")
        }
        guard let state = object["contentState"] else { throw SchemaError(message: "schema \(name) is missing \"contentState\"") }
        self.name = name
        self.contentState = try Self.parseType(state, path: "contentState")
        self.attributes = try object["attributes"].map { v throws(SchemaError) in try Self.parseType(v, path: "attributes") } ?? .object([])
        for key in object.keys where !["name", "attributes", "contentState"].contains(key) {
            throw SchemaError(message: "schema has an unknown top-level key \"\(key)\" (expected name, attributes, contentState)")
        }
        if VoltraDynamic.isAttributesType(name) {
            if case .object(let fields) = attributes, fields.isEmpty { attributes = VoltraDynamic.attributes }
            try VoltraDynamic.checkDeclaration(self)
        }
    }

    static func parseType(_ value: JSONValue, path: String) throws(SchemaError) -> FieldType {
        switch value {
        case .string(let text):
            return try parseTypeName(text, path: path)
        case .object(let object):
            var type: FieldType
            if let cases = object["enum"] {
                guard let list = cases.arrayValue, !list.isEmpty, list.allSatisfy({ $0.stringValue != nil }) else {
                    throw SchemaError(message: "\(path): \"enum\" must be a non-empty array of strings")
                }
                type = .enumeration(list.compactMap(\.stringValue))
            } else if let element = object["array"] {
                type = .array(try parseType(element, path: path + "[]"))
            } else if let element = object["dictionary"] {
                type = .dictionary(try parseType(element, path: path + "[*]"))
            } else if let fields = object["object"]?.objectValue {
                type = .object(try parseFields(fields, path: path))
            } else {
                return .object(try parseFields(object, path: path))
            }
            if object["optional"]?.boolValue == true { type = .optional(type) }
            return type
        default:
            throw SchemaError(message: "\(path): a type must be a string such as \"string\" or \"date?\", or an object, not \(value.typeName)")
        }
    }

    private static func parseFields(_ object: JSONObject, path: String) throws(SchemaError) -> [Field] {
        var fields: [Field] = []
        for member in object {
            fields.append(Field(member.key, try parseType(member.value, path: path + "." + member.key)))
        }
        return fields
    }

    private static func parseTypeName(_ text: String, path: String) throws(SchemaError) -> FieldType {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("?") { return .optional(try parseTypeName(String(trimmed.dropLast()), path: path)) }
        if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
            return .array(try parseTypeName(String(trimmed.dropFirst().dropLast()), path: path))
        }
        switch trimmed {
        case "string": return .string
        case "int": return .int
        case "double", "number": return .double
        case "bool": return .bool
        case "date": return .date
        case "data": return .data
        case "url": return .url
        case "dateRange": return .dateRange
        case "any": return .any
        default:
            throw SchemaError(message: "\(path): unknown type \"\(text)\" (expected string, int, double, bool, date, data, url, dateRange, any, T?, [T])")
        }
    }
}

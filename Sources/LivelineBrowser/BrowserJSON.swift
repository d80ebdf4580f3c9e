import Foundation

/// A JSON value as WebDriver carries it: command parameters, responses, a script's arguments and
/// its result.
public enum BrowserJSON: Sendable, Equatable, Codable, ExpressibleByStringLiteral {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([BrowserJSON])
    case object([String: BrowserJSON])

    public init(stringLiteral value: String) { self = .string(value) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([BrowserJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: BrowserJSON].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, nil otherwise.
    public subscript(key: String) -> BrowserJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var doubleValue: Double? { if case .number(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var arrayValue: [BrowserJSON]? { if case .array(let v) = self { v } else { nil } }
}

import Foundation
import LivelineCore

/// Turns API JSON into what the registered type decodes: ISO 8601 date strings become seconds
/// since 2001 (a Swift `Date` under a default `JSONDecoder`), date ranges two such numbers, and
/// `null` optionals are left out. Numbers where a date belongs are refused: that is the
/// Unix-seconds mistake this conversion exists to prevent.
enum ContentEncoder {
    static func encode(_ value: JSONValue, as type: ActivitySchema.FieldType, path: String) throws(APIError) -> JSONValue {
        switch type {
        case .optional(let inner):
            return value == .null ? .null : try encode(value, as: inner, path: path)
        case .date:
            return .number(try date(value, path: path).timeIntervalSinceReferenceDate)
        case .dateRange:
            guard let a = value.arrayValue, a.count == 2 else {
                throw .invalid(path, "expected a date range: two ISO 8601 date strings, got \(value.typeName)")
            }
            let lower = try date(a[0], path: "\(path)[0]"), upper = try date(a[1], path: "\(path)[1]")
            guard lower <= upper else { throw .invalid(path, "the range ends before it starts") }
            return .array([.number(lower.timeIntervalSinceReferenceDate), .number(upper.timeIntervalSinceReferenceDate)])
        case .array(let element):
            guard let a = value.arrayValue else { return value }
            var out: [JSONValue] = []
            for (i, e) in a.enumerated() { out.append(try encode(e, as: element, path: "\(path)[\(i)]")) }
            return .array(out)
        case .dictionary(let element):
            guard let o = value.objectValue else { return value }
            var out = JSONObject()
            for m in o { out[m.key] = try encode(m.value, as: element, path: "\(path).\(m.key)") }
            return .object(out)
        case .object(let fields):
            guard let o = value.objectValue else { return value }
            var out = JSONObject()
            for m in o {
                guard let field = fields.first(where: { $0.name == m.key }) else {
                    out[m.key] = m.value  // lint names keys the type does not have
                    continue
                }
                let encoded = try encode(m.value, as: field.type, path: "\(path).\(m.key)")
                if encoded != .null { out[m.key] = encoded }
            }
            return .object(out)
        case .string, .int, .double, .bool, .data, .url, .any, .enumeration:
            return value
        }
    }

    private static func date(_ value: JSONValue, path: String) throws(APIError) -> Date {
        guard let s = value.stringValue else {
            throw .invalid(path, "expected an ISO 8601 date string such as \"2026-12-01T18:00:00Z\", got \(value.typeName) \(value.jsonString.prefix(24)); the service converts dates to what the type decodes")
        }
        guard let d = ISODate.parse(s) else { throw .invalid(path, "\"\(s.prefix(40))\" is not an ISO 8601 date such as \"2026-12-01T18:00:00Z\"") }
        return d
    }
}

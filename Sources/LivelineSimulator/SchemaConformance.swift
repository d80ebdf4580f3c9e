import Foundation
import LivelineCore

/// Checks JSON against an `ActivitySchema` field type the way a default `JSONDecoder` would decode
/// it into the described Swift type, reporting the first failure in `DecodingError`'s terms.
enum SchemaConformance {
    static func check(_ value: JSONValue?, against type: ActivitySchema.FieldType, path: String) -> String? {
        if case .optional(let inner) = type {
            guard let value, value != .null else { return nil }
            return check(value, against: inner, path: path)
        }
        guard let value else { return "keyNotFound: \(path) is missing" }
        if value == .null, type != .any { return "valueNotFound: \(path) is null, expected \(type.name)" }
        func mismatch() -> String { "typeMismatch: \(path) is not \(type.name): found \(value.typeName)" }
        switch type {
        case .any: return nil
        case .string: return value.stringValue == nil ? mismatch() : nil
        case .bool: return value.boolValue == nil ? mismatch() : nil
        case .double, .date: return value.numberValue == nil ? mismatch() : nil
        case .int:
            guard let n = value.numberValue else { return mismatch() }
            return n.rounded() == n && abs(n) < 9.2e18 ? nil : "dataCorrupted: \(path): number \(n) does not fit in Int"
        case .data:
            guard let s = value.stringValue else { return mismatch() }
            return Data(base64Encoded: s) == nil ? "dataCorrupted: \(path): encountered Data is not valid Base64" : nil
        case .url:
            guard let s = value.stringValue else { return mismatch() }
            return URL(string: s) == nil ? "dataCorrupted: \(path): invalid URL string" : nil
        case .dateRange:
            guard let a = value.arrayValue else { return mismatch() }
            guard a.count == 2, let lo = a[0].numberValue, let hi = a[1].numberValue else {
                return "dataCorrupted: \(path): a date range is an array of two numbers"
            }
            return lo <= hi ? nil : "dataCorrupted: \(path): range requires lowerBound <= upperBound"
        case .enumeration(let cases):
            guard let s = value.stringValue else { return mismatch() }
            return cases.contains(s) ? nil : "dataCorrupted: \(path): cannot initialize enum from invalid value \"\(s)\" (expected one of \(cases.joined(separator: ", ")))"
        case .array(let element):
            guard let items = value.arrayValue else { return mismatch() }
            for (i, item) in items.enumerated() {
                if let e = check(item, against: element, path: "\(path)[\(i)]") { return e }
            }
            return nil
        case .dictionary(let element):
            guard let object = value.objectValue else { return mismatch() }
            for member in object {
                if let e = check(member.value, against: element, path: "\(path).\(member.key)") { return e }
            }
            return nil
        case .object(let fields):
            guard let object = value.objectValue else { return mismatch() }
            for field in fields {
                if let e = check(object[field.name], against: field.type, path: "\(path).\(field.name)") { return e }
            }
            return nil
        case .optional: return nil
        }
    }
}

import Foundation
import LivelineCore

/// A request body read strictly: JSON with an object at the top, each member taken by name with
/// its type checked, and any member left untaken refused as unknown. Every error names the field.
struct JSONBody {
    private let object: JSONObject
    private let prefix: String
    private var taken: Set<String> = []

    /// Parses `bytes`; an empty body reads as `{}`.
    init(_ bytes: [UInt8]) throws(APIError) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            self.init(object: [:], prefix: "")
            return
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw APIError(400, "malformed-json", "the body is not valid JSON: \(error)") }
        guard let object = value.objectValue else { throw APIError(400, "malformed-json", "the body must be a JSON object, got \(value.typeName)") }
        self.init(object: object, prefix: "")
    }

    init(object: JSONObject, prefix: String) {
        self.object = object
        self.prefix = prefix
    }

    private func path(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix).\(key)" }

    private mutating func take(_ key: String) -> JSONValue? {
        taken.insert(key)
        guard let v = object[key], v != .null else { return nil }
        return v
    }

    mutating func value(_ key: String) -> JSONValue? { take(key) }

    mutating func string(_ key: String, maxLength: Int = 1024) throws(APIError) -> String? {
        guard let v = take(key) else { return nil }
        guard let s = v.stringValue else { throw .invalid(path(key), "expected a string, got \(v.typeName)") }
        if s.utf8.count > maxLength { throw .invalid(path(key), "is \(s.utf8.count) bytes; the limit is \(maxLength)") }
        return s
    }

    mutating func requiredString(_ key: String, maxLength: Int = 1024) throws(APIError) -> String {
        guard let s = try string(key, maxLength: maxLength) else { throw .invalid(path(key), "is required") }
        if s.isEmpty { throw .invalid(path(key), "must not be empty") }
        return s
    }

    mutating func bool(_ key: String) throws(APIError) -> Bool? {
        guard let v = take(key) else { return nil }
        guard let b = v.boolValue else { throw .invalid(path(key), "expected true or false, got \(v.typeName)") }
        return b
    }

    mutating func number(_ key: String) throws(APIError) -> Double? {
        guard let v = take(key) else { return nil }
        guard let n = v.numberValue, n.isFinite else { throw .invalid(path(key), "expected a number, got \(v.typeName)") }
        return n
    }

    mutating func integer(_ key: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let n = try number(key) else { return nil }
        guard n == n.rounded(), n >= Double(range.lowerBound), n <= Double(range.upperBound) else {
            throw .invalid(path(key), "expected an integer from \(range.lowerBound) to \(range.upperBound), got \(JSONValue.javaScriptNumber(n))")
        }
        return Int(n)
    }

    /// An ISO 8601 date-time string (`2026-12-01T18:00:00Z`, fractional seconds and offsets allowed).
    mutating func date(_ key: String) throws(APIError) -> Date? {
        guard let v = take(key) else { return nil }
        guard let s = v.stringValue else {
            throw .invalid(path(key), "expected an ISO 8601 date string such as \"2026-12-01T18:00:00Z\", got \(v.typeName)")
        }
        guard let d = ISODate.parse(s) else { throw .invalid(path(key), "\"\(s.prefix(40))\" is not an ISO 8601 date such as \"2026-12-01T18:00:00Z\"") }
        return d
    }

    mutating func object(_ key: String) throws(APIError) -> JSONBody? {
        guard let v = take(key) else { return nil }
        guard let o = v.objectValue else { throw .invalid(path(key), "expected an object, got \(v.typeName)") }
        return JSONBody(object: o, prefix: path(key))
    }

    mutating func rawObject(_ key: String) throws(APIError) -> JSONObject? {
        guard let v = take(key) else { return nil }
        guard let o = v.objectValue else { throw .invalid(path(key), "expected an object, got \(v.typeName)") }
        return o
    }

    mutating func strings(_ key: String, maxCount: Int) throws(APIError) -> [String]? {
        guard let v = take(key) else { return nil }
        guard let a = v.arrayValue else { throw .invalid(path(key), "expected an array of strings, got \(v.typeName)") }
        if a.count > maxCount { throw .invalid(path(key), "has \(a.count) entries; the limit is \(maxCount)") }
        var result: [String] = []
        for (i, e) in a.enumerated() {
            guard let s = e.stringValue, !s.isEmpty else { throw .invalid("\(path(key))[\(i)]", "expected a non-empty string, got \(e.typeName)") }
            result.append(s)
        }
        return result
    }

    /// Refuses members nobody took.
    func finish() throws(APIError) {
        for key in object.keys where !taken.contains(key) {
            throw APIError(400, "unknown-field", "\(path(key)): unknown field (known: \(taken.sorted().joined(separator: ", ")))", field: path(key))
        }
    }
}

/// ISO 8601 dates as the API writes and reads them.
enum ISODate {
    static func parse(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let d = plain.date(from: text) { return d }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    /// One formatter of each kind per thread (making one costs more than formatting with it; a
    /// device status writes several dates, a start judging 10,000 devices many thousands).
    static func string(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970
        let key = whole ? "liveline.ISODate.whole" : "liveline.ISODate.fractional"
        let cache = Thread.current.threadDictionary
        if let f = cache[key] as? ISO8601DateFormatter { return f.string(from: date) }
        let f = ISO8601DateFormatter()
        if !whole { f.formatOptions = [.withInternetDateTime, .withFractionalSeconds] }
        cache[key] = f
        return f.string(from: date)
    }
}

import Foundation
import Synchronization
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
        if let n = v.numberValue { throw Self.numberAsDate(n, path: path(key)) }
        guard let s = v.stringValue else {
            throw .invalid(path(key), "expected an ISO 8601 date string such as \"2026-12-01T18:00:00Z\", got \(v.typeName)")
        }
        guard let d = ISODate.parse(s) else { throw .invalid(path(key), "\"\(s.prefix(40))\" is not an ISO 8601 date such as \"2026-12-01T18:00:00Z\"") }
        return d
    }

    /// A number where a date belongs: 422 with lint's `unix-date` finding, which says what the number
    /// would have meant (Unix seconds or milliseconds) and what to send instead.
    static func numberAsDate(_ n: Double, path: String) -> APIError {
        var reading = ""
        if n.isFinite, n > 1e9, n < 1e10 {
            reading = " (as Unix seconds: \(ISODate.string(Date(timeIntervalSince1970: n))))"
        } else if n.isFinite, n > 1e12, n < 1e13 {
            reading = " (as Unix milliseconds: \(ISODate.string(Date(timeIntervalSince1970: n / 1000))))"
        }
        let message = "\(JSONValue.javaScriptNumber(n)) is a number\(reading); dates in the API are ISO 8601 strings such as \"2026-12-01T18:00:00Z\", which the service converts"
        return APIError(422, LintFinding.Code.unixDate.rawValue, "\(path): \(message)", field: path, findings: [LintFinding(.error, .unixDate, path: path, message)])
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
///
/// Parsing uses `Date.ISO8601FormatStyle` (a value, about 0.5 µs), not a new `ISO8601DateFormatter`
/// per call (about 90 µs: it dominated the CPU of a small send). The style accepts an hour of 24 or
/// more, a 60th second and February 30, so the text's shape and ranges are checked first; fractions are
/// kept to the millisecond, as the formatter kept them. Writing keeps the formatter (its output is the
/// contract), one per kind, created once and used under a lock.
enum ISODate {
    private static let plainStyle = Date.ISO8601FormatStyle()
    private static let fractionalStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let writers = Mutex(Writers())

    private struct Writers: ~Copyable {
        let plain = ISO8601DateFormatter()
        let fractional: ISO8601DateFormatter = {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f
        }()
    }

    static func parse(_ text: String) -> Date? {
        guard wellFormed(text) else { return nil }
        guard let date = (try? plainStyle.parse(text)) ?? (try? fractionalStyle.parse(text)) else { return nil }
        let t = date.timeIntervalSince1970
        return t.rounded() == t ? date : Date(timeIntervalSince1970: (t * 1000).rounded() / 1000)
    }

    /// `yyyy-MM-ddTHH:mm:ss[.f…](Z|±HH:MM)` exactly, with a day the month has, the hour below 24
    /// and minutes and seconds below 60 (the style alone would roll February 30 into March).
    private static func wellFormed(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func digits(_ i: Int, _ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                guard (48...57).contains(b[k]) else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            return v
        }
        func at(_ i: Int, _ c: Character) -> Bool { i < b.count && b[i] == c.asciiValue! }
        guard let year = digits(0, 4), at(4, "-"), let month = digits(5, 2), at(7, "-"), let day = digits(8, 2), at(10, "T"),
              let hour = digits(11, 2), at(13, ":"), let minute = digits(14, 2), at(16, ":"), let second = digits(17, 2),
              (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        var i = 19
        if at(i, ".") {
            i += 1
            let first = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > first else { return false }
        }
        if at(i, "Z") { return i + 1 == b.count }
        guard at(i, "+") || at(i, "-"), let h = digits(i + 1, 2), at(i + 3, ":"), let m = digits(i + 4, 2), h < 24, m < 60 else { return false }
        return i + 6 == b.count
    }

    static func string(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970
        return writers.withLock { whole ? $0.plain.string(from: date) : $0.fractional.string(from: date) }
    }
}

import Foundation

extension ActivitySchema {
    /// Checks a `content-state` object the way a default `JSONDecoder` decoding into the described
    /// `ContentState` would, plus the silent mistakes that decode but show the wrong thing.
    ///
    /// - Parameter path: prefix for the findings' paths.
    /// - Returns: errors for what fails to decode (missing keys, wrong JSON types) and for dates
    ///   that are no date between 2001 and 2100 in any unit (`implausible-date`, which decode),
    ///   warnings for keys the decoder ignores and for dates that look like Unix seconds or
    ///   milliseconds.
    public func checkContentState(_ value: JSONValue, path: String = "aps.content-state") -> [LintFinding] {
        if let props = voltraDynamicProps { return VoltraDynamic.check(contentState: value, props: props, path: path) }
        var findings: [LintFinding] = []
        Self.check(value, against: contentState, path: path, into: &findings)
        return findings
    }

    /// The key under which Liveline's service carries the logical activity id inside a start's
    /// `attributes`. A `Decodable` type that does not declare it ignores it, so lint does not warn about it.
    public static let activityIDKey = "livelineActivityID"

    /// Checks an `attributes` object against the described attributes type; the reserved
    /// `activityIDKey` must be a string when present.
    public func checkAttributes(_ value: JSONValue, path: String = "aps.attributes") -> [LintFinding] {
        var findings: [LintFinding] = []
        var value = value
        if case .object(var object) = value, let id = object[Self.activityIDKey] {
            if id.stringValue == nil {
                findings.append(LintFinding(.error, .wrongType, path: "\(path).\(Self.activityIDKey)", "the logical activity id must be a string, got \(id.typeName)"))
            }
            object[Self.activityIDKey] = nil
            value = .object(object)
        }
        Self.check(value, against: attributes, path: path, into: &findings)
        return findings
    }

    /// Whether `value` decodes into the described type: the first error finding, or `nil`.
    public func decodingError(contentState value: JSONValue) -> LintFinding? {
        checkContentState(value).first(where: \.isDecodingFailure)
    }

    static func check(_ value: JSONValue, against type: FieldType, path: String, into findings: inout [LintFinding]) {
        func wrongType(_ expected: String) {
            findings.append(LintFinding(.error, .wrongType, path: path, "expected \(expected), got \(value.typeName) \(preview(value)); the device cannot decode this and keeps the old state"))
        }
        switch type {
        case .any:
            return
        case .optional(let inner):
            if value == .null { return }
            check(value, against: inner, path: path, into: &findings)
        case .string:
            if value.stringValue == nil { wrongType("a string") }
        case .int:
            guard let n = value.numberValue else { return wrongType("an integer") }
            if n != n.rounded() || n.magnitude > 9.22e18 { wrongType("an integer") }
        case .double:
            if value.numberValue == nil { wrongType("a number") }
        case .bool:
            if value.boolValue == nil { wrongType("true or false") }
        case .date:
            guard let n = value.numberValue else {
                if let s = value.stringValue, s.contains("-") || s.contains(":") {
                    findings.append(LintFinding(.error, .wrongType, path: path, "dates are numbers of seconds since 2001-01-01, not strings like \"\(s)\"; a default JSONDecoder cannot decode it"))
                } else {
                    wrongType("a date: seconds since 2001-01-01")
                }
                return
            }
            checkDateMagnitude(n, path: path, into: &findings)
        case .data:
            guard let s = value.stringValue else { return wrongType("base64 data as a string") }
            if Data(base64Encoded: s) == nil { findings.append(LintFinding(.error, .wrongType, path: path, "\"\(s.prefix(24))\" is not valid base64")) }
        case .url:
            guard let s = value.stringValue else { return wrongType("a URL string") }
            if URL(string: s) == nil { findings.append(LintFinding(.error, .wrongType, path: path, "\"\(s)\" is not a valid URL")) }
        case .dateRange:
            guard let items = value.arrayValue, items.count == 2, let lower = items[0].numberValue, let upper = items[1].numberValue else {
                return wrongType("a date range: [lower, upper] in seconds since 2001-01-01")
            }
            if lower > upper {
                findings.append(LintFinding(.error, .wrongType, path: path, "the range's lower bound \(JSONValue.javaScriptNumber(lower)) is after its upper bound \(JSONValue.javaScriptNumber(upper))"))
            }
            checkDateMagnitude(lower, path: path + "[0]", into: &findings)
            checkDateMagnitude(upper, path: path + "[1]", into: &findings)
        case .enumeration(let cases):
            guard let s = value.stringValue else { return wrongType("one of \(cases.map { "\"\($0)\"" }.joined(separator: ", "))") }
            if !cases.contains(s) {
                findings.append(LintFinding(.error, .wrongType, path: path, "\"\(s)\" is not one of \(cases.map { "\"\($0)\"" }.joined(separator: ", "))"))
            }
        case .array(let element):
            guard let items = value.arrayValue else { return wrongType("an array") }
            for (i, item) in items.enumerated() { check(item, against: element, path: "\(path)[\(i)]", into: &findings) }
        case .dictionary(let element):
            guard let object = value.objectValue else { return wrongType("an object") }
            for member in object { check(member.value, against: element, path: "\(path).\(member.key)", into: &findings) }
        case .object(let fields):
            guard let object = value.objectValue else { return wrongType("an object") }
            let names = Set(fields.map(\.name))
            for field in fields {
                let fieldPath = "\(path).\(field.name)"
                if let v = object[field.name] {
                    check(v, against: field.type, path: fieldPath, into: &findings)
                } else if case .optional = field.type {
                    continue
                } else if let near = object.keys.first(where: { !names.contains($0) && camelCase($0) == field.name }) {
                    findings.append(LintFinding(.error, .snakeCaseKey, path: fieldPath, "required key \"\(field.name)\" is missing, but \"\(near)\" is there: ActivityKit matches property names exactly (no snake_case conversion)"))
                } else {
                    findings.append(LintFinding(.error, .missingKey, path: fieldPath, "required key \"\(field.name)\" (\(field.type.name)) is missing; the device cannot decode this and keeps the old state"))
                }
            }
            for key in object.keys where !names.contains(key) {
                let camel = camelCase(key)
                if camel != key, names.contains(camel) {
                    let reported = findings.contains { $0.path == "\(path).\(camel)" && $0.code == .snakeCaseKey }
                    if !reported {
                        findings.append(LintFinding(.warning, .snakeCaseKey, path: "\(path).\(key)", "\"\(key)\" is ignored: the property is \"\(camel)\" (ActivityKit does no snake_case conversion)"))
                    }
                } else {
                    findings.append(LintFinding(.warning, .unknownKey, path: "\(path).\(key)", "\"\(key)\" is not a field of the type and is ignored"))
                }
            }
        }
    }

    /// Warns when a date field holds Unix seconds or milliseconds instead of reference-date seconds.
    static func checkDateMagnitude(_ n: Double, path: String, into findings: inout [LintFinding]) {
        guard PlausibleDate.contains(n) else {
            findings.append(PlausibleDate.finding(n, path: path, unit: "ActivityKit reads dates as seconds since 2001-01-01"))
            return
        }
        let asDate = Date(timeIntervalSinceReferenceDate: n)
        let year = Calendar(identifier: .gregorian).component(.year, from: asDate)
        if n >= 1e11 {
            let fixed = n / 1000 - ReferenceDate.unixOffset
            findings.append(LintFinding(.warning, .millisecondDate, path: path, "\(JSONValue.javaScriptNumber(n)) looks like Unix milliseconds; ActivityKit reads dates as seconds since 2001-01-01 (this one lands in year \(year > 9999 ? "after 9999" : String(year))). Use \(JSONValue.javaScriptNumber(fixed.rounded()))"))
        } else if n >= 1.2e9 {
            let fixed = n - ReferenceDate.unixOffset
            findings.append(LintFinding(.warning, .unixDate, path: path, "\(JSONValue.javaScriptNumber(n)) looks like Unix seconds; ActivityKit reads dates as seconds since 2001-01-01, so this shows year \(year), 31 years late. Use \(JSONValue.javaScriptNumber(fixed))"))
        }
    }

    static func camelCase(_ key: String) -> String {
        let parts = key.split(separator: "_", omittingEmptySubsequences: true)
        guard parts.count > 1 else { return key }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    private static func preview(_ value: JSONValue) -> String {
        let text = value.jsonString
        return text.count > 40 ? String(text.prefix(37)) + "..." : text
    }
}

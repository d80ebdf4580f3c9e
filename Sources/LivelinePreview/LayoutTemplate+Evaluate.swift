import Foundation
import LivelineCore
import LivelineUI

extension LayoutTemplate {
    /// The layout for one state: every expression evaluated against the attributes, the content
    /// state (as the device decodes them: dates in seconds since 2001) and staleness, then read as
    /// a JSON-form layout.
    /// - Throws: `TemplateError` naming the path of a binding whose field the payload lacks.
    public func layout(attributes: JSONValue?, state: JSONValue, isStale: Bool, timeZone: TimeZone) throws -> UILayout {
        var evaluator = Evaluator(template: name, attributes: attributes?.objectValue, state: state.objectValue ?? JSONObject(),
                                  isStale: isStale, timeZone: timeZone)
        for definition in definitions {
            evaluator.values[definition.name] = try evaluator.evaluate(definition.value, path: "let.\(definition.name)")
        }
        let form = try evaluator.evaluate(layout, path: "layout")
        do { return try LayoutForm.parse(form) } catch { throw TemplateError("template \(name): layout: \(error.message)") }
    }

    struct Evaluator {
        var template: String
        var attributes: JSONObject?
        var state: JSONObject
        var isStale: Bool
        var timeZone: TimeZone
        var values: [String: JSONValue] = [:]

        func fail(_ path: String, _ message: String) -> TemplateError { TemplateError("template \(template): \(path): \(message)") }

        func evaluate(_ value: JSONValue, path: String) throws -> JSONValue {
            switch value {
            case .array(let list):
                return .array(try list.enumerated().map { try evaluate($0.element, path: "\(path)[\($0.offset)]") })
            case .object(let object):
                guard let key = Checker.expressionKey(object) else {
                    return .object(JSONObject(try object.members.map { .init(key: $0.key, value: try evaluate($0.value, path: "\(path).\($0.key)")) }))
                }
                return try expression(key, object, path: path)
            default:
                return value
            }
        }

        func expression(_ key: String, _ object: JSONObject, path: String) throws -> JSONValue {
            switch key {
            case "bind": return try bind(object, path: path)
            case "if":
                return try truth(object["if"]!, path: "\(path).if")
                    ? try evaluate(object["then"] ?? .null, path: "\(path).then") : try evaluate(object["else"] ?? .null, path: "\(path).else")
            case "switch":
                let subject = Self.text(try evaluate(object["switch"]!, path: "\(path).switch"))
                if let match = object["cases"]?.objectValue?[subject] { return try evaluate(match, path: "\(path).cases.\(subject)") }
                return try evaluate(object["default"] ?? .null, path: "\(path).default")
            case "concat":
                return .string(try (object["concat"]?.arrayValue ?? []).enumerated().map {
                    Self.text(try evaluate($0.element, path: "\(path).concat[\($0.offset)]"))
                }.joined())
            default:
                return .bool(try truth(.object(object), path: path))
            }
        }

        /// A condition's truth.
        func truth(_ value: JSONValue, path: String) throws -> Bool {
            if let object = value.objectValue, let key = Checker.expressionKey(object) {
                let here = "\(path).\(key)"
                let list = object[key]?.arrayValue ?? []
                switch key {
                case "equals": return Self.same(try evaluate(list[0], path: "\(here)[0]"), try evaluate(list[1], path: "\(here)[1]"))
                case "in":
                    let item = try evaluate(list[0], path: "\(here)[0]")
                    return try evaluate(list[1], path: "\(here)[1]").arrayValue?.contains { Self.same($0, item) } == true
                case "greater":
                    let a = try evaluate(list[0], path: "\(here)[0]"), b = try evaluate(list[1], path: "\(here)[1]")
                    guard let x = a.numberValue, let y = b.numberValue else { throw fail(here, "greater compares numbers, got \(a.typeName) and \(b.typeName)") }
                    return x > y
                case "not": return !(try truth(object[key]!, path: here))
                case "all": return try list.enumerated().allSatisfy { try truth($0.element, path: "\(here)[\($0.offset)]") }
                case "any": return try list.enumerated().contains { try truth($0.element, path: "\(here)[\($0.offset)]") }
                default: break
                }
            }
            let result = try evaluate(value, path: path)
            guard let truth = result.boolValue else { throw fail(path, "a condition must be a bool, got \(result.typeName) \(result.jsonString.prefix(40))") }
            return truth
        }

        func bind(_ object: JSONObject, path: String) throws -> JSONValue {
            let binding = object["bind"]?.stringValue ?? ""
            let parts = binding.split(separator: ".", maxSplits: 1).map(String.init)
            let field = parts.count == 2 ? parts[1] : ""
            var value: JSONValue?
            switch parts.first {
            case "state": value = state[field]
            case "attributes":
                guard let attributes else {
                    throw fail("\(path).bind", "\(binding) needs the activity's attributes (an update carries none: give them with --attributes or --start)")
                }
                value = attributes[field]
            case "let": value = values[field]
            default: value = .bool(isStale)
            }
            if value == nil || value == .null {
                if let fallback = object["default"] { return try evaluate(fallback, path: "\(path).default") }
                if value == nil {
                    throw fail("\(path).bind", "\(binding) is missing from the \(parts.first == "state" ? "content state" : parts.first ?? "payload")")
                }
                return .null
            }
            guard object["format"] != nil || object["plusMinutes"] != nil else { return value! }
            guard var seconds = value!.numberValue else {
                throw fail("\(path).bind", "\(binding) is \(value!.typeName), not a date (seconds since 2001-01-01)")
            }
            if let minutes = object["plusMinutes"] {
                let added = try evaluate(minutes, path: "\(path).plusMinutes")
                guard let n = added.numberValue else { throw fail("\(path).plusMinutes", "expected a number of minutes, got \(added.typeName)") }
                seconds += n * 60
            }
            switch object["format"]?.stringValue {
            case "time": return .string(Self.clock(Date(timeIntervalSinceReferenceDate: seconds), timeZone: timeZone))
            case "epochMs": return .number(((seconds + Date.timeIntervalBetween1970AndReferenceDate) * 1000).rounded())
            default: return .number(seconds)
            }
        }

        /// `"09:05"`: the clock time as `Text(date, timeZone:)` prints it.
        static func clock(_ date: Date, timeZone: TimeZone) -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let c = calendar.dateComponents([.hour, .minute], from: date)
            func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
            return two(c.hour) + ":" + two(c.minute)
        }

        /// A value as text: strings as they are, numbers as JavaScript prints them, null empty.
        static func text(_ value: JSONValue) -> String {
            switch value {
            case .string(let s): s
            case .number(let n): JSONValue.javaScriptNumber(n)
            case .bool(let b): b ? "true" : "false"
            case .null: ""
            default: value.jsonString
            }
        }

        static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
            if let x = a.numberValue, let y = b.numberValue { return x == y }
            return a == b
        }
    }
}

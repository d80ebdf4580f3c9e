import Foundation

/// Finds the mistakes that make a Live Activity push fail, or succeed at APNs and then change
/// nothing on the device: wrong date units, keys that do not match the `ContentState`, stale
/// dates already past, timestamps that do not advance.
///
/// Dates: a date number that is no date between 2001 and 2100, whether read as Unix seconds,
/// Unix milliseconds or seconds since 2001, is an error (`implausible-date`; for
/// `dismissal-date` only "after 2100" counts, since any past value dismisses at once). A
/// plausible date in the wrong unit for its field is a warning that names the right number.
public struct Linter: Sendable {
    /// Known activity types by `attributes-type`, to check `start` pushes.
    public var schemas: [String: ActivitySchema]
    /// The schema to check `update` and `end` pushes against (they do not name their type).
    public var schema: ActivitySchema?
    /// What "now" is, for stale dates.
    public var now: Date
    /// The last timestamp sent to this activity, if known: a push must be newer.
    public var previousTimestamp: Date?

    public init(schemas: [ActivitySchema] = [FlightAttributes.schema], schema: ActivitySchema? = nil, now: Date = Date(), previousTimestamp: Date? = nil) {
        self.schemas = Dictionary(schemas.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        if let schema { self.schemas[schema.name] = schema }
        self.schema = schema
        self.now = now
        self.previousTimestamp = previousTimestamp
    }

    /// Lints a Live Activity request body.
    ///
    /// - Returns: the findings, errors first.
    public func lint(body: JSONValue) -> [LintFinding] {
        var findings: [LintFinding] = []
        let push: LiveActivityPush
        do {
            push = try LiveActivityPush(body: body)
        } catch {
            return [LintFinding(.error, .invalidPayload, path: "", error.message)]
        }
        do {
            try push.validateFields(broadcast: false)
        } catch {
            findings.append(LintFinding(.error, .invalidPayload, path: "aps", error.message))
        }
        let size = body.serializedSize
        if size > 4096 {
            let largest = PushRequest.largestFields(of: body, count: 3).map { "\($0.path) (\($0.bytes) bytes)" }.joined(separator: ", ")
            findings.append(LintFinding(.error, .invalidPayload, path: "", "the body is \(size) bytes; the limit is 4096 bytes. Largest fields: \(largest)"))
        }
        let aps = body["aps"]?.objectValue ?? [:]
        lintHeaderDates(aps, push: push, into: &findings)
        let known: Set<String> = [
            "timestamp", "event", "content-state", "attributes-type", "attributes", "alert", "stale-date", "relevance-score",
            "dismissal-date", "input-push-token", "input-push-channel", "sound", "badge", "thread-id", "category",
            "content-available", "mutable-content", "target-content-id", "interruption-level", "filter-criteria",
        ]
        for key in aps.keys where !known.contains(key) {
            findings.append(LintFinding(.warning, .customKeyInAps, path: "aps.\(key)", "APNs ignores unknown keys inside aps; put custom data beside aps"))
        }

        var schema = self.schema
        if push.event == .start, let type = push.attributesType {
            if let named = schemas[type] {
                schema = named
            } else if schema == nil || schema?.name != type {
                let list = schemas.keys.sorted().joined(separator: ", ")
                findings.append(LintFinding(.warning, .unknownAttributesType, path: "aps.attributes-type", "\"\(type)\" is not a known attributes type (known: \(list.isEmpty ? "none" : list)); pass --schema to check content-state and attributes"))
                schema = nil
            }
        }
        if let schema {
            if let state = aps["content-state"] { findings += schema.checkContentState(state) }
            if push.event == .start, let attributes = aps["attributes"] { findings += schema.checkAttributes(attributes) }
        } else {
            if let state = aps["content-state"] { findings += Self.heuristics(state, path: "aps.content-state") }
            if let attributes = aps["attributes"] { findings += Self.heuristics(attributes, path: "aps.attributes") }
        }
        return findings.enumerated().sorted { ($0.element.severity, $0.offset) < ($1.element.severity, $1.offset) }.map(\.element)
    }

    /// `timestamp`, `stale-date` and `dismissal-date` are Unix seconds, unlike dates inside content-state.
    /// A date that is no date in 2001–2100 however it is read (`PlausibleDate`) is an error, and
    /// the other date rules skip it; plausible ones are checked for the wrong unit.
    private func lintHeaderDates(_ aps: JSONObject, push: LiveActivityPush, into findings: inout [LintFinding]) {
        var implausible: Set<String> = []
        for key in ["timestamp", "stale-date", "dismissal-date"] {
            guard let n = aps[key]?.numberValue else { continue }
            let pastMeansNow = key == "dismissal-date"
            guard PlausibleDate.contains(n, pastMeansNow: pastMeansNow) else {
                let unit = pastMeansNow ? "aps.\(key) is Unix seconds (any past value dismisses at once)" : "aps.\(key) is Unix seconds"
                findings.append(PlausibleDate.finding(n, path: "aps.\(key)", unit: unit, pastMeansNow: pastMeansNow))
                implausible.insert(key)
                continue
            }
            if n >= 1e11 {
                findings.append(LintFinding(.error, .millisecondDate, path: "aps.\(key)", "\(JSONValue.javaScriptNumber(n)) looks like milliseconds; aps.\(key) is Unix seconds. Use \(JSONValue.javaScriptNumber((n / 1000).rounded(.down)))"))
            } else if n > 4e8, n < 1.2e9, key != "dismissal-date" {
                findings.append(LintFinding(.warning, .referenceDateInHeader, path: "aps.\(key)", "\(JSONValue.javaScriptNumber(n)) looks like seconds since 2001; aps.\(key) is Unix seconds. Use \(JSONValue.javaScriptNumber(n + ReferenceDate.unixOffset))"))
            }
        }
        if let timestamp = push.timestamp {
            if let previousTimestamp, timestamp <= previousTimestamp, !implausible.contains("timestamp") {
                findings.append(LintFinding(.warning, .timestampNotNewer, path: "aps.timestamp", "\(ReferenceDate.unixSeconds(timestamp)) is not newer than the previous push's \(ReferenceDate.unixSeconds(previousTimestamp)); the device ignores it"))
            }
        } else {
            findings.append(LintFinding(.warning, .missingTimestamp, path: "aps.timestamp", "missing: the device uses it to show the newest update and to ignore older ones; set it on every push"))
        }
        if let stale = push.staleDate, stale <= now, (aps["stale-date"]?.numberValue ?? 0) < 1e11, !implausible.contains("stale-date") {
            let ago = Int(now.timeIntervalSince(stale))
            findings.append(LintFinding(.warning, .staleDatePast, path: "aps.stale-date", "\(ReferenceDate.unixSeconds(stale)) is already past (\(ago) s ago): the activity shows as stale at once"))
        }
    }

    /// Without a schema: snake_case keys and date-looking fields holding Unix seconds or milliseconds.
    static func heuristics(_ value: JSONValue, path: String) -> [LintFinding] {
        var findings: [LintFinding] = []
        guard let object = value.objectValue else {
            return [LintFinding(.error, .wrongType, path: path, "must be an object, got \(value.typeName)")]
        }
        for member in object {
            let memberPath = "\(path).\(member.key)"
            if member.key.contains("_") {
                findings.append(LintFinding(.warning, .snakeCaseKey, path: memberPath, "snake_case key: ActivityKit matches Swift property names exactly, so \"\(member.key)\" only decodes if the type's CodingKeys say so (property \"\(ActivitySchema.camelCase(member.key))\"?)"))
            }
            let lower = member.key.lowercased()
            let looksLikeDate = lower.hasSuffix("date") || lower.hasSuffix("time") || lower.hasSuffix("at") || lower.contains("timestamp") || lower.contains("deadline")
            if looksLikeDate, let n = member.value.numberValue {
                ActivitySchema.checkDateMagnitude(n, path: memberPath, into: &findings)
            }
            if member.value.objectValue != nil { findings += heuristics(member.value, path: memberPath) }
        }
        return findings
    }
}

import Foundation

/// The `aps` content of a Live Activity push: `start`, `update` or `end`.
///
/// Build one with the typed factories (`start(attributes:state:alert:)`, `update(state:)`,
/// `end(state:dismissal:)`), which encode `ContentState` and attributes exactly as ActivityKit
/// decodes them, or parse one from JSON with `init(body:)`.
public struct LiveActivityPush: Sendable, Hashable {
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case start, update, end
    }

    /// When an ended activity leaves the Lock Screen (`dismissal-date`).
    public enum Dismissal: Sendable, Hashable {
        /// No `dismissal-date`: the system removes it up to 4 hours after the end.
        case systemDefault
        /// A date in the past: removed at once.
        case immediate
        /// Removed at this date, at most 4 hours after the end.
        case at(Date)
    }

    /// What a `start` asks the device to set up besides the activity (iOS 18+).
    public enum StartInput: Sendable, Hashable {
        case none
        /// `input-push-token: 1`: issue a per-activity update token.
        case pushToken
        /// `input-push-channel`: subscribe the activity to this broadcast channel.
        case channel(String)
    }

    public var event: Event
    /// When the push was made; the device ignores a push not newer than what it shows.
    public var timestamp: Date?
    public var contentState: JSONObject?
    /// `start` only: the `ActivityAttributes` type's Swift name.
    public var attributesType: String?
    /// `start` only: the static attributes.
    public var attributes: JSONObject?
    public var alert: Alert?
    public var staleDate: Date?
    /// Orders activities on the Lock Screen; the highest gets the Dynamic Island.
    public var relevanceScore: Double?
    /// `end` only.
    public var dismissal: Dismissal
    /// `start` only.
    public var startInput: StartInput
    /// Keys beside `aps` for the app's own use.
    public var customKeys: JSONObject

    public init(
        event: Event, timestamp: Date? = Date(), contentState: JSONObject? = nil, attributesType: String? = nil,
        attributes: JSONObject? = nil, alert: Alert? = nil, staleDate: Date? = nil, relevanceScore: Double? = nil,
        dismissal: Dismissal = .systemDefault, startInput: StartInput = .none, customKeys: JSONObject = [:]
    ) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.attributesType = attributesType
        self.attributes = attributes
        self.alert = alert
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.dismissal = dismissal
        self.startInput = startInput
        self.customKeys = customKeys
    }
}

// MARK: - Typed factories

extension LiveActivityPush {
    /// A push-to-start for an `A` activity (iOS 17.2+), sent to the push-to-start token.
    ///
    /// - Important: ActivityKit drops a start without an alert; `alert` is required here.
    /// - Throws: `PayloadError` when the state or attributes hold a value JSON cannot carry.
    public static func start<A: ActivityAttributes>(
        attributes: A, state: A.ContentState, alert: Alert, timestamp: Date = Date(), staleDate: Date? = nil,
        relevanceScore: Double? = nil, input: StartInput = .none
    ) throws(PayloadError) -> LiveActivityPush {
        LiveActivityPush(
            event: .start, timestamp: timestamp, contentState: try encodeObject(state, field: "content-state"),
            attributesType: A.attributesType, attributes: try encodeObject(attributes, field: "attributes"),
            alert: alert, staleDate: staleDate, relevanceScore: relevanceScore, startInput: input)
    }

    /// An update carrying the new content state, sent to the activity's update token or a channel.
    public static func update<State: Encodable>(
        state: State, timestamp: Date = Date(), alert: Alert? = nil, staleDate: Date? = nil, relevanceScore: Double? = nil
    ) throws(PayloadError) -> LiveActivityPush {
        LiveActivityPush(
            event: .update, timestamp: timestamp, contentState: try encodeObject(state, field: "content-state"),
            alert: alert, staleDate: staleDate, relevanceScore: relevanceScore)
    }

    /// An end, with the final state the Lock Screen keeps showing until dismissal.
    public static func end<State: Encodable>(
        state: State?, timestamp: Date = Date(), dismissal: Dismissal = .systemDefault, alert: Alert? = nil, staleDate: Date? = nil
    ) throws(PayloadError) -> LiveActivityPush {
        LiveActivityPush(
            event: .end, timestamp: timestamp, contentState: try state.map { s throws(PayloadError) in try encodeObject(s, field: "content-state") },
            alert: alert, staleDate: staleDate, dismissal: dismissal)
    }

    /// Encodes with a default `JSONEncoder`, turning its errors into `PayloadError`s that name the field.
    static func encodeObject<T: Encodable>(_ value: T, field: String) throws(PayloadError) -> JSONObject {
        let json: JSONValue
        do {
            json = try JSONValue(encoding: value)
        } catch let EncodingError.invalidValue(bad, context) {
            let path = ([field] + context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }).joined(separator: ".")
            throw PayloadError(.nonFiniteNumber, "\(path) is \(bad), which JSON cannot carry: numbers must be finite")
        } catch {
            throw PayloadError(.encodingFailed, "\(field) could not be encoded: \(error)")
        }
        guard let object = json.objectValue else {
            throw PayloadError(.encodingFailed, "\(field) must encode to a JSON object, got \(json.typeName)")
        }
        return object
    }
}

// MARK: - JSON body

extension LiveActivityPush {
    /// The whole request body: `{"aps": {...}, custom keys...}`.
    public var body: JSONValue {
        var aps = JSONObject()
        if let timestamp { aps["timestamp"] = .number(Double(ReferenceDate.unixSeconds(timestamp))) }
        aps["event"] = .string(event.rawValue)
        if let contentState { aps["content-state"] = .object(contentState) }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let attributes { aps["attributes"] = .object(attributes) }
        if let alert { aps["alert"] = alert.liveActivityJSON }
        if let staleDate { aps["stale-date"] = .number(Double(ReferenceDate.unixSeconds(staleDate))) }
        if let relevanceScore { aps["relevance-score"] = .number(relevanceScore) }
        switch dismissal {
        case .systemDefault: break
        case .immediate:
            // Any past moment removes the activity at once; one second before the push is always past.
            let past = (timestamp.map(ReferenceDate.unixSeconds) ?? 1) - 1
            aps["dismissal-date"] = .number(Double(max(past, 0)))
        case .at(let date): aps["dismissal-date"] = .number(Double(ReferenceDate.unixSeconds(date)))
        }
        switch startInput {
        case .none: break
        case .pushToken: aps["input-push-token"] = 1
        case .channel(let id): aps["input-push-channel"] = .string(id)
        }
        var root = JSONObject()
        root["aps"] = .object(aps)
        for member in customKeys where member.key != "aps" { root[member.key] = member.value }
        return .object(root)
    }

    /// Reads a Live Activity push from a request body.
    ///
    /// - Throws: `PayloadError` when `aps` or `event` is missing or a field has the wrong JSON type.
    public init(body: JSONValue) throws(PayloadError) {
        guard let root = body.objectValue else { throw PayloadError(.malformedBody, "the body must be a JSON object, got \(body.typeName)") }
        guard let aps = root["aps"]?.objectValue else { throw PayloadError(.malformedBody, "the body has no \"aps\" object") }
        guard let eventName = aps["event"]?.stringValue else {
            throw PayloadError(.malformedBody, "aps.event is missing; a Live Activity push needs \"start\", \"update\" or \"end\"")
        }
        guard let event = Event(rawValue: eventName) else {
            throw PayloadError(.malformedBody, "aps.event is \"\(eventName)\"; expected \"start\", \"update\" or \"end\"")
        }
        func unixDate(_ key: String) throws(PayloadError) -> Date? {
            guard let value = aps[key] else { return nil }
            guard let n = value.numberValue else { throw PayloadError(.malformedBody, "aps.\(key) must be a number of Unix seconds, got \(value.typeName)") }
            return Date(timeIntervalSince1970: n)
        }
        func object(_ key: String) throws(PayloadError) -> JSONObject? {
            guard let value = aps[key] else { return nil }
            guard let o = value.objectValue else { throw PayloadError(.malformedBody, "aps.\(key) must be an object, got \(value.typeName)") }
            return o
        }
        self.event = event
        self.timestamp = try unixDate("timestamp")
        self.contentState = try object("content-state")
        self.attributes = try object("attributes")
        if let t = aps["attributes-type"] {
            guard let s = t.stringValue else { throw PayloadError(.malformedBody, "aps.attributes-type must be a string, got \(t.typeName)") }
            self.attributesType = s
        }
        self.alert = try aps["alert"].map { v throws(PayloadError) in try Alert(json: v) }
        self.staleDate = try unixDate("stale-date")
        if let score = aps["relevance-score"] {
            guard let n = score.numberValue else { throw PayloadError(.malformedBody, "aps.relevance-score must be a number, got \(score.typeName)") }
            self.relevanceScore = n
        }
        if let d = try unixDate("dismissal-date") {
            self.dismissal = timestamp.map { d < $0 } == true ? .immediate : .at(d)
        } else {
            self.dismissal = .systemDefault
        }
        if let channel = aps["input-push-channel"]?.stringValue {
            self.startInput = .channel(channel)
        } else if aps["input-push-token"]?.numberValue == 1 {
            self.startInput = .pushToken
        } else {
            self.startInput = .none
        }
        var custom = JSONObject()
        for member in root where member.key != "aps" { custom[member.key] = member.value }
        self.customKeys = custom
    }
}

extension Alert {
    /// Reads an alert given as a string (the body) or a dictionary.
    init(json: JSONValue) throws(PayloadError) {
        if let s = json.stringValue { self.init(body: .plain(s)); return }
        guard let o = json.objectValue else { throw PayloadError(.malformedBody, "aps.alert must be a string or an object, got \(json.typeName)") }
        func text(_ key: String, locPrefix: String) -> AlertText? {
            if let s = o[key]?.stringValue { return .plain(s) }
            if let inner = o[key]?.objectValue, let k = inner["loc-key"]?.stringValue {
                return .localized(key: k, arguments: inner["loc-args"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
            if let k = o[locPrefix + "loc-key"]?.stringValue {
                return .localized(key: k, arguments: o[locPrefix + "loc-args"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
            return nil
        }
        self.init(
            title: text("title", locPrefix: "title-"), subtitle: text("subtitle", locPrefix: "subtitle-"),
            body: text("body", locPrefix: ""), sound: o["sound"]?.stringValue, launchImage: o["launch-image"]?.stringValue)
    }
}

import Foundation
import LivelineCore

/// A tap on a button or toggle of a Live Activity, as the device's App Intent would report it.
public struct SimulatorInteraction: Sendable, Hashable {
    /// `button` or `toggle`.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case button, toggle
    }

    /// What forwarding it gave: the HTTP status the URL answered, or why it could not be sent.
    public enum Forwarding: Sendable, Hashable {
        /// No forwarding URL is configured.
        case notConfigured
        /// The URL answered with this status.
        case answered(Int)
        /// The request failed (connection refused, timeout...).
        case failed(String)
    }

    /// Position among this control's interactions and links, from 1.
    public var sequence: Int
    /// When it happened (simulator clock).
    public var time: Date
    public var deviceID: String
    /// The simulator's activity id.
    public var activityID: String
    /// The id the service knows the activity by (`livelineActivityID` in its attributes), else `activityID`.
    public var logicalActivityID: String
    public var kind: Kind
    /// The intent's identifier as the layout names it.
    public var action: String
    /// The toggle's new value.
    public var value: Bool?
    /// What the intent carries (a toggle's value is added as `"value"` to an object payload).
    public var payload: JSONValue?
    /// Made once per tap, so a retried forward is delivered once.
    public var idempotencyKey: String
    public var forwarding: Forwarding
}

extension SimulatorInteraction {
    /// The JSON form the control API answers with.
    public var json: JSONValue {
        var o: JSONObject = [
            "sequence": .number(Double(sequence)), "time": .string(SimulatorState.iso(time)), "type": "interaction",
            "deviceID": .string(deviceID), "activityID": .string(activityID), "logicalActivityID": .string(logicalActivityID),
            "kind": .string(kind.rawValue), "action": .string(action), "idempotencyKey": .string(idempotencyKey),
        ]
        if let value { o["value"] = .bool(value) }
        if let payload { o["payload"] = payload }
        switch forwarding {
        case .notConfigured: o["forwarded"] = .bool(false)
        case .answered(let status):
            o["forwarded"] = .bool(true)
            o["forwardStatus"] = .number(Double(status))
        case .failed(let message):
            o["forwarded"] = .bool(false)
            o["forwardError"] = .string(message)
        }
        return .object(o)
    }
}

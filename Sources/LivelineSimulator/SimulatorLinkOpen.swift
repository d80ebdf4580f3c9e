import Foundation
import LivelineCore

/// A link of a Live Activity opened on the device (`widgetURL`, `Link`).
public struct SimulatorLinkOpen: Sendable, Hashable {
    /// Position among this control's interactions and links, from 1.
    public var sequence: Int
    public var time: Date
    public var deviceID: String
    public var activityID: String
    public var url: String
}

extension SimulatorLinkOpen {
    /// The JSON form the control API answers with.
    public var json: JSONValue {
        [
            "sequence": .number(Double(sequence)), "time": .string(SimulatorState.iso(time)), "type": "link",
            "deviceID": .string(deviceID), "activityID": .string(activityID), "url": .string(url),
        ]
    }
}

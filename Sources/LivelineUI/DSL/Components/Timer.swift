import Foundation
import LivelineCore

/// Timer (`t:9`): a live countdown or stopwatch the device ticks by itself.
public struct Timer: NodeView {
    /// The element this view describes.
    public var node: Node
    /// Counts down to `end` (or up from `start` with `direction: .up`). `running` and `completed`
    /// templates replace `{time}` with the live timer text.
    public init(start: Date? = nil, end: Date? = nil, duration: TimeInterval? = nil, direction: TimerDirection? = nil,
                style: TimerTextStyle? = nil, running: String? = nil, completed: String? = nil, showHours: Bool? = nil) {
        node = Node(.timer)
        node.set("startAtMs", start.map(epochMilliseconds))
        node.set("endAtMs", end.map(epochMilliseconds))
        node.set("durationMs", duration.map { .number(($0 * 1000).rounded()) })
        node.set("direction", direction.map { .string($0.rawValue) })
        node.set("textStyle", style.map { .string($0.rawValue) })
        if running != nil || completed != nil {
            var templates = JSONObject()
            if let running { templates["running"] = .string(running) }
            if let completed { templates["completed"] = .string(completed) }
            node.set("textTemplates", .string(JSONValue.object(templates).jsonString))
        }
        node.set("showHours", showHours.map(JSONValue.bool))
    }
}

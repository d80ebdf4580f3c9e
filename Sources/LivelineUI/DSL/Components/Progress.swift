import Foundation
import LivelineCore

/// What a progress view or gauge shows: a value, or a time range the device animates by itself.
public enum ProgressValue: Sendable, Hashable {
    /// `value` out of `total`.
    case value(Double, total: Double? = nil)
    /// From `start` to `end`; `countDown` runs it backwards.
    case timeRange(ClosedRange<Date>, countDown: Bool = false)

    func apply(to node: inout Node, totalName: String = "maximumValue", countDownAllowed: Bool = true) {
        switch self {
        case .value(let v, let total):
            node.set("value", .number(v))
            node.set(totalName, total.map(JSONValue.number))
        case .timeRange(let range, let countDown):
            node.set("startAtMs", epochMilliseconds(range.lowerBound))
            node.set("endAtMs", epochMilliseconds(range.upperBound))
            if countDown && countDownAllowed { node.set("countDown", .bool(true)) }
        }
    }
}

/// LinearProgressView (`t:6`).
public struct LinearProgressView: NodeView {
    public var node: Node
    /// A linear progress bar.
    public init(_ progress: ProgressValue, trackColor: Color? = nil, progressColor: Color? = nil, cornerRadius: Double? = nil,
                height: Double? = nil, @UIBuilder label: () -> [any VoltraView] = { [] },
                @UIBuilder currentValueLabel: () -> [any VoltraView] = { [] }, @UIBuilder thumb: () -> [any VoltraView] = { [] }) {
        node = Node(.linearProgressView)
        progress.apply(to: &node)
        node.set("trackColor", trackColor.map { .string($0.value) })
        node.set("progressColor", progressColor.map { .string($0.value) })
        node.set("cornerRadius", cornerRadius.map(JSONValue.number))
        node.set("height", height.map(JSONValue.number))
        node.set("thumb", views: thumb())
        node.set("label", views: label())
        node.set("currentValueLabel", views: currentValueLabel())
    }
}

/// CircularProgressView (`t:7`).
public struct CircularProgressView: NodeView {
    public var node: Node
    /// A circular progress ring.
    public init(_ progress: ProgressValue, trackColor: Color? = nil, progressColor: Color? = nil, lineWidth: Double? = nil,
                @UIBuilder label: () -> [any VoltraView] = { [] }, @UIBuilder currentValueLabel: () -> [any VoltraView] = { [] }) {
        node = Node(.circularProgressView)
        progress.apply(to: &node)
        node.set("trackColor", trackColor.map { .string($0.value) })
        node.set("progressColor", progressColor.map { .string($0.value) })
        node.set("lineWidth", lineWidth.map(JSONValue.number))
        node.set("label", views: label())
        node.set("currentValueLabel", views: currentValueLabel())
    }
}

/// Gauge (`t:8`).
public struct Gauge: NodeView {
    public var node: Node
    /// A gauge from `minimum` to `maximum` (default 0...1).
    public init(_ progress: ProgressValue, minimum: Double? = nil, tint: Color? = nil, style: GaugeStyle? = nil,
                @UIBuilder currentValueLabel: () -> [any VoltraView] = { [] },
                @UIBuilder minimumValueLabel: () -> [any VoltraView] = { [] },
                @UIBuilder maximumValueLabel: () -> [any VoltraView] = { [] }) {
        node = Node(.gauge)
        progress.apply(to: &node, countDownAllowed: false)
        node.set("minimumValue", minimum.map(JSONValue.number))
        node.set("tintColor", tint.map { .string($0.value) })
        node.set("gaugeStyle", style.map { .string($0.rawValue) })
        node.set("currentValueLabel", views: currentValueLabel())
        node.set("minimumValueLabel", views: minimumValueLabel())
        node.set("maximumValueLabel", views: maximumValueLabel())
    }
}

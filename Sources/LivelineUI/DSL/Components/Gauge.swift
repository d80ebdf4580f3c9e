import LivelineCore

/// Gauge (`t:8`).
public struct Gauge: NodeView {
    /// The element this view describes.
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

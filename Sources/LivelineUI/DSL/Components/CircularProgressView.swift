import LivelineCore

/// CircularProgressView (`t:7`).
public struct CircularProgressView: NodeView {
    /// The element this view describes.
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

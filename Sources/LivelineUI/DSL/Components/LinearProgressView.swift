import LivelineCore

/// LinearProgressView (`t:6`).
public struct LinearProgressView: NodeView {
    /// The element this view describes.
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

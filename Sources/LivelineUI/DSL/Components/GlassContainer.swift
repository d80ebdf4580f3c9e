import LivelineCore

/// GlassContainer (`t:15`, iOS 26).
public struct GlassContainer: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A Liquid Glass container.
    public init(spacing: Double? = nil, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.glassContainer)
        node.set("spacing", spacing.map(JSONValue.number))
        node.children = content()
    }
}

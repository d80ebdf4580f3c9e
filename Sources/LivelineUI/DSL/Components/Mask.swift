import LivelineCore

/// Mask (`t:18`): content masked by `mask`.
public struct Mask: NodeView {
    /// The element this view describes.
    public var node: Node
    /// Masks `content` with `mask`.
    public init(@UIBuilder mask: () -> [any VoltraView], @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.mask)
        node.set("maskElement", views: mask())
        node.children = content()
    }
}

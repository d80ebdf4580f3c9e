import LivelineCore

/// View (`t:20`): a flexbox container laid out by Voltra.
public struct View: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A flexbox view; set `flexDirection`, `gap`, ... as style.
    public init(@UIBuilder content: () -> [any VoltraView]) {
        node = Node(.view)
        node.children = content()
    }
}

import LivelineCore

/// ZStack (`t:13`).
public struct ZStack: NodeView {
    /// The element this view describes.
    public var node: Node
    /// An overlay stack.
    public init(alignment: Alignment? = nil, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.zStack)
        node.set("alignment", alignment.map { .string($0.rawValue) })
        node.children = content()
    }
}

import LivelineCore

/// Divider (`t:17`).
public struct Divider: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A divider.
    public init() { node = Node(.divider) }
}

import LivelineCore

/// Divider (`t:17`).
public struct Divider: NodeView {
    public var node: Node
    /// A divider.
    public init() { node = Node(.divider) }
}

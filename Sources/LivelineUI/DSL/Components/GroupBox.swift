import LivelineCore

/// GroupBox (`t:14`).
public struct GroupBox: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A group box with an optional label.
    public init(@UIBuilder label: () -> [any VoltraView] = { [] }, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.groupBox)
        node.set("label", views: label())
        node.children = content()
    }
}

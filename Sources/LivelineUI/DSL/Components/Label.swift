import LivelineCore

/// Label (`t:2`): a title with an SF Symbol.
public struct Label: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A label.
    public init(_ title: String, systemImage: String? = nil) {
        node = Node(.label)
        node.set("title", .string(title))
        node.set("systemImage", systemImage.map(JSONValue.string))
    }
}

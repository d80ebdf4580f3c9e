import LivelineCore

/// Toggle (`t:5`): sends `"true"`/`"false"` with its id when flipped (iOS 17+).
public struct Toggle: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A toggle.
    public init(id: String, title: String? = nil, isOn: Bool = false) {
        node = Node(.toggle)
        node.id = id
        node.set("defaultValue", .bool(isOn))
        node.set("title", title.map(JSONValue.string))
    }
}

import LivelineCore

/// Button (`t:1`): sends an interaction event with its id (iOS 17+).
public struct Button: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A button with content; give it an `id` so the app can tell which was pressed.
    public init(id: String, style: ButtonStyle? = nil, @UIBuilder label: () -> [any VoltraView]) {
        node = Node(.button)
        node.id = id
        node.set("buttonStyle", style.map { .string($0.rawValue) })
        node.children = label()
    }
}

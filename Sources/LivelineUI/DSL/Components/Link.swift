import LivelineCore

/// Link (`t:19`): opens a URL (a path is prefixed with the app's URL scheme).
public struct Link: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A link.
    public init(destination: String, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.link)
        node.set("destination", .string(destination))
        node.children = content()
    }
}

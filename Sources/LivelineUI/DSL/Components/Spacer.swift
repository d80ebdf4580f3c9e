import LivelineCore

/// Spacer (`t:16`).
public struct Spacer: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A spacer.
    public init(minLength: Double? = nil) {
        node = Node(.spacer)
        node.set("minLength", minLength.map(JSONValue.number))
    }
}

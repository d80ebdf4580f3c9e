import LivelineCore

/// HStack (`t:12`).
public struct HStack: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A horizontal stack.
    public init(alignment: VerticalAlignment? = nil, spacing: Double? = nil, layout: StackLayout? = nil,
                @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.hStack)
        node.set("alignment", alignment.map { .string($0.rawValue) })
        node.set("spacing", spacing.map(JSONValue.number))
        node.set("layout", layout.map { .string($0.rawValue) })
        node.children = content()
    }
}

import LivelineCore

/// VStack (`t:11`).
public struct VStack: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A vertical stack.
    public init(alignment: HorizontalAlignment? = nil, spacing: Double? = nil, layout: StackLayout? = nil,
                @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.vStack)
        node.set("alignment", alignment.map { .string($0.rawValue) })
        node.set("spacing", spacing.map(JSONValue.number))
        node.set("layout", layout.map { .string($0.rawValue) })
        node.children = content()
    }
}

import LivelineCore

/// VStack (`t:11`).
public struct VStack: NodeView {
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

/// HStack (`t:12`).
public struct HStack: NodeView {
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

/// ZStack (`t:13`).
public struct ZStack: NodeView {
    public var node: Node
    /// An overlay stack.
    public init(alignment: Alignment? = nil, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.zStack)
        node.set("alignment", alignment.map { .string($0.rawValue) })
        node.children = content()
    }
}

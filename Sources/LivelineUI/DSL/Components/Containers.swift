import LivelineCore

/// GroupBox (`t:14`).
public struct GroupBox: NodeView {
    public var node: Node
    /// A group box with an optional label.
    public init(@UIBuilder label: () -> [any VoltraView] = { [] }, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.groupBox)
        node.set("label", views: label())
        node.children = content()
    }
}

/// GlassContainer (`t:15`, iOS 26).
public struct GlassContainer: NodeView {
    public var node: Node
    /// A Liquid Glass container.
    public init(spacing: Double? = nil, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.glassContainer)
        node.set("spacing", spacing.map(JSONValue.number))
        node.children = content()
    }
}

/// Mask (`t:18`): content masked by `mask`.
public struct Mask: NodeView {
    public var node: Node
    /// Masks `content` with `mask`.
    public init(@UIBuilder mask: () -> [any VoltraView], @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.mask)
        node.set("maskElement", views: mask())
        node.children = content()
    }
}

/// Link (`t:19`): opens a URL (a path is prefixed with the app's URL scheme).
public struct Link: NodeView {
    public var node: Node
    /// A link.
    public init(destination: String, @UIBuilder content: () -> [any VoltraView]) {
        node = Node(.link)
        node.set("destination", .string(destination))
        node.children = content()
    }
}

/// View (`t:20`): a flexbox container laid out by Voltra.
public struct View: NodeView {
    public var node: Node
    /// A flexbox view; set `flexDirection`, `gap`, ... as style.
    public init(@UIBuilder content: () -> [any VoltraView]) {
        node = Node(.view)
        node.children = content()
    }
}

/// Spacer (`t:16`).
public struct Spacer: NodeView {
    public var node: Node
    /// A spacer.
    public init(minLength: Double? = nil) {
        node = Node(.spacer)
        node.set("minLength", minLength.map(JSONValue.number))
    }
}

/// Divider (`t:17`).
public struct Divider: NodeView {
    public var node: Node
    /// A divider.
    public init() { node = Node(.divider) }
}

import LivelineCore

/// LinearGradient (`t:10`): a gradient, optionally with content on top.
public struct LinearGradient: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A gradient through `colors`, with optional `locations` (one per color, 0...1).
    public init(colors: [Color], locations: [Double]? = nil, start: UnitPoint? = nil, end: UnitPoint? = nil, dither: Bool? = nil,
                @UIBuilder content: () -> [any VoltraView] = { [] }) {
        node = Node(.linearGradient)
        node.set("colors", .string(colors.map(\.value).joined(separator: "|")))
        if let locations {
            node.set("stops", .string(zip(colors, locations).map { "\($0.value)@\(JSONValue.javaScriptNumber($1))" }.joined(separator: "|")))
        }
        node.set("startPoint", start.map { .string($0.wire) })
        node.set("endPoint", end.map { .string($0.wire) })
        node.set("dither", dither.map(JSONValue.bool))
        node.children = content()
    }
}

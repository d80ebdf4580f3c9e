import LivelineCore

/// Symbol (`t:4`): an SF Symbol.
public struct Symbol: NodeView {
    /// The element this view describes.
    public var node: Node
    /// A symbol; `colors` is the palette for `.palette`.
    public init(_ name: String, type: SymbolRenderingMode? = nil, scale: SymbolScale? = nil, weight: SymbolWeight? = nil,
                size: Double? = nil, tint: Color? = nil, colors: [Color] = [], resizeMode: ResizeMode? = nil) {
        node = Node(.symbol)
        node.set("name", .string(name))
        node.set("type", type.map { .string($0.rawValue) })
        node.set("scale", scale.map { .string($0.rawValue) })
        node.set("weight", weight.map { .string($0.rawValue) })
        node.set("size", size.map(JSONValue.number))
        node.set("tintColor", tint.map { .string($0.value) })
        node.set("colors", colors.isEmpty ? nil : .string(colors.map(\.value).joined(separator: "|")))
        node.set("resizeMode", resizeMode.map { .string($0.rawValue) })
    }
}

import LivelineCore

/// Image (`t:3`): an asset (preloaded or in the extension's catalog) or inline base64.
public struct Image: NodeView {
    /// Where the image comes from.
    public enum Source: Sendable, Hashable {
        /// A key of `preloadImages` or an asset catalog name.
        case asset(String)
        /// Inline image bytes (counts fully against the 4 KB budget).
        case base64(String)
    }

    /// The element this view describes.
    public var node: Node
    /// An image with an optional fallback drawn when it cannot load.
    public init(_ source: Source, resizeMode: ResizeMode? = nil, accentedRenderingMode: AccentedRenderingMode? = nil,
                @UIBuilder fallback: () -> [any VoltraView] = { [] }) {
        node = Node(.image)
        switch source {
        case .asset(let name): node.set("source", .string(JSONValue.object(["assetName": .string(name)]).jsonString))
        case .base64(let data): node.set("source", .string(JSONValue.object(["base64": .string(data)]).jsonString))
        }
        node.set("resizeMode", resizeMode.map { .string($0.rawValue) })
        node.set("accentedRenderingMode", accentedRenderingMode.map { .string($0.rawValue) })
        node.set("fallback", views: fallback())
    }
}

import LivelineCore

/// The attributes type of Voltra's widget extension: push-to-start sends `attributes-type`
/// `VoltraAttributes` and `attributes {name, deepLinkUrl}`; every push carries `uiJsonData`.
public struct VoltraAttributes: ActivityAttributes {
    /// The dynamic part: the encoded UI, and nothing else (the device's `CodingKeys` are `{uiJsonData}`).
    public struct ContentState: Codable, Hashable, Sendable {
        /// base64 of the brotli-compressed payload v1 JSON.
        public var uiJsonData: String

        /// Wraps an already encoded string.
        public init(uiJsonData: String) { self.uiJsonData = uiJsonData }

        /// Encodes `layout` and checks the 3345-byte budget and the 8:1 ratio.
        ///
        /// - Throws: `UIError` `.invalidLayout` past `LayoutLimits`, `.overBudget` (before compressing
        ///   when the JSON alone is too big) or `.compressionRatio`.
        public init(layout: UILayout, mode: EncodingMode = .compact) throws(UIError) {
            try VoltraBudget.checkBeforeEncoding(layout, mode: mode)
            let encoded = VoltraEncoder.encode(layout, mode: mode)
            try VoltraBudget.check(encoded)
            uiJsonData = encoded.base64
        }
    }

    /// The activity name the app looks activities up by (and reports in events).
    public var name: String
    /// A URL opened when a region is tapped (absolute, or a path prefixed with the app's scheme).
    public var deepLinkUrl: String?

    /// Creates the attributes.
    public init(name: String, deepLinkUrl: String? = nil) {
        self.name = name
        self.deepLinkUrl = deepLinkUrl
    }
}

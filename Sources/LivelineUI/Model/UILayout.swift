import LivelineCore

/// A whole Live Activity UI: the content of each region plus the two tints.
///
/// Module: LivelineUI owns server-driven UI in Voltra's wire format: the layout model, the DSL, the
/// encoder and decoder, the budget and the typed templates. It imports LivelineCore (and brotli)
/// only; it must never import the transport, the simulator, the service or the previews
/// (LivelinePreview imports it, not the other way).
public struct UILayout: Sendable {
    /// Region contents; absent regions are not emitted.
    public var regions: [Region: RegionContent]
    /// `lockScreen.activityBackgroundTint` (a color string).
    public var lockScreenBackgroundTint: String?
    /// `island.keylineTint` (a color string).
    public var keylineTint: String?

    /// Creates a layout.
    public init(regions: [Region: RegionContent] = [:], lockScreenBackgroundTint: String? = nil, keylineTint: String? = nil) {
        self.regions = regions
        self.lockScreenBackgroundTint = lockScreenBackgroundTint
        self.keylineTint = keylineTint
    }

    /// The element of `region` when it holds exactly one.
    public subscript(region: Region) -> UIElement? {
        if case .element(let e)? = regions[region] { return e }
        return nil
    }
}

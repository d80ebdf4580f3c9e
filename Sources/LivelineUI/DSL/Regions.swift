/// The content of one region, as `UILayout { ... }` collects it.
public struct RegionView: Sendable {
    let region: Region
    let content: [any VoltraView]
    var lockScreenTint: Color?
    var keylineTint: Color?

    init(_ region: Region, _ content: [any VoltraView]) {
        self.region = region
        self.content = content
    }
}

/// The lock screen (also StandBy's `.medium` family), with an optional background tint.
public func LockScreen(backgroundTint: Color? = nil, @UIBuilder _ content: () -> [any VoltraView]) -> RegionView {
    var view = RegionView(.lockScreen, content())
    view.lockScreenTint = backgroundTint
    return view
}
/// Dynamic Island expanded, center.
public func ExpandedCenter(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandExpandedCenter, content()) }
/// Dynamic Island expanded, leading.
public func ExpandedLeading(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandExpandedLeading, content()) }
/// Dynamic Island expanded, trailing.
public func ExpandedTrailing(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandExpandedTrailing, content()) }
/// Dynamic Island expanded, bottom.
public func ExpandedBottom(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandExpandedBottom, content()) }
/// Dynamic Island compact, leading.
public func CompactLeading(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandCompactLeading, content()) }
/// Dynamic Island compact, trailing.
public func CompactTrailing(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.islandCompactTrailing, content()) }
/// Dynamic Island minimal, with the island's optional keyline tint.
public func Minimal(keylineTint: Color? = nil, @UIBuilder _ content: () -> [any VoltraView]) -> RegionView {
    var view = RegionView(.islandMinimal, content())
    view.keylineTint = keylineTint
    return view
}
/// The iOS 18 supplemental small family (Apple Watch Smart Stack, CarPlay).
public func SupplementalSmall(@UIBuilder _ content: () -> [any VoltraView]) -> RegionView { RegionView(.supplementalSmall, content()) }

/// Collects regions for `UILayout { ... }`.
@resultBuilder
public enum RegionBuilder {
    /// One region.
    public static func buildExpression(_ region: RegionView) -> [RegionView] { [region] }
    /// The regions of a block.
    public static func buildBlock(_ parts: [RegionView]...) -> [RegionView] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [RegionView]?) -> [RegionView] { part ?? [] }
    /// The `if` branch.
    public static func buildEither(first: [RegionView]) -> [RegionView] { first }
    /// The `else` branch.
    public static func buildEither(second: [RegionView]) -> [RegionView] { second }
}

extension UILayout {
    /// A layout from regions written with the DSL:
    ///
    /// ```swift
    /// let layout = UILayout {
    ///     LockScreen(backgroundTint: "#101828") { Text("Boarding").fontWeight(.bold) }
    ///     CompactTrailing { Timer(end: boarding) }
    ///     Minimal(keylineTint: .cyan) { Symbol("airplane") }
    /// }
    /// ```
    /// A region whose content is several views is sent as a fragment; an empty one is left out.
    public init(@RegionBuilder _ regions: () -> [RegionView]) {
        self.init()
        for view in regions() {
            let elements = view.content.flatMap { $0.makeElements() }
            if elements.count == 1 {
                self.regions[view.region] = .element(elements[0])
            } else if !elements.isEmpty {
                self.regions[view.region] = .fragment(elements)
            }
            if let tint = view.lockScreenTint { lockScreenBackgroundTint = tint.value }
            if let tint = view.keylineTint { keylineTint = tint.value }
        }
    }
}

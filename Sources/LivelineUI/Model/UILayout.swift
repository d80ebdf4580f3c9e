import LivelineCore

/// A region of a Live Activity, in the fixed order the wire emits them.
public enum Region: String, CaseIterable, Sendable, Hashable {
    case lockScreen = "ls"
    case islandExpandedCenter = "isl_exp_c"
    case islandExpandedLeading = "isl_exp_l"
    case islandExpandedTrailing = "isl_exp_t"
    case islandExpandedBottom = "isl_exp_b"
    case islandCompactLeading = "isl_cmp_l"
    case islandCompactTrailing = "isl_cmp_t"
    case islandMinimal = "isl_min"
    case supplementalSmall = "saf_sm"

    /// The root key on the wire.
    public var wireKey: String { rawValue }

    /// The path in the JSON form (`island.expanded.center`).
    public var formPath: String {
        switch self {
        case .lockScreen: "lockScreen"
        case .islandExpandedCenter: "island.expanded.center"
        case .islandExpandedLeading: "island.expanded.leading"
        case .islandExpandedTrailing: "island.expanded.trailing"
        case .islandExpandedBottom: "island.expanded.bottom"
        case .islandCompactLeading: "island.compact.leading"
        case .islandCompactTrailing: "island.compact.trailing"
        case .islandMinimal: "island.minimal"
        case .supplementalSmall: "supplementalActivityFamilies.small"
        }
    }
}

/// What a region shows: one element, or a fragment of several (emitted as an array).
public enum RegionContent: Sendable {
    case element(UIElement)
    case fragment([UIElement])

    var elements: [UIElement] {
        switch self {
        case .element(let e): [e]
        case .fragment(let list): list
        }
    }
}

/// A whole Live Activity UI: the content of each region plus the two tints.
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

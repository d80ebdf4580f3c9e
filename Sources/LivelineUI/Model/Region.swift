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

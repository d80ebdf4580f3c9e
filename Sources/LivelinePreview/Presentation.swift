/// One of the places iOS draws a Live Activity.
public enum Presentation: String, CaseIterable, Sendable {
    /// The Lock Screen (and the banner on phones without the Dynamic Island).
    case lockScreen = "lock-screen"
    /// The Dynamic Island with one activity: leading and trailing either side of the camera.
    case islandCompact = "island-compact"
    /// The Dynamic Island with several activities: this one's small circle.
    case islandMinimal = "island-minimal"
    /// The Dynamic Island when touched and held: leading, trailing, center and bottom.
    case islandExpanded = "island-expanded"

    /// A short human name, for captions.
    public var title: String {
        switch self {
        case .lockScreen: "Lock Screen"
        case .islandCompact: "Dynamic Island · compact"
        case .islandMinimal: "Dynamic Island · minimal"
        case .islandExpanded: "Dynamic Island · expanded"
        }
    }
}

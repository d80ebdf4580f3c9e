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
    /// Two activities at once: one minimal attached to the Island, the other detached beside it.
    case islandTwo = "island-two"
    /// StandBy: the Lock Screen view at 2× on the landscape screen.
    case standBy = "standby"
    /// The `small` family on an Apple Watch's Smart Stack.
    case watchSmartStack = "watch-smart-stack"
    /// The `small` family on CarPlay.
    case carPlay = "carplay"
    /// The banner of an alerting update on a phone without the Island (the Lock Screen view).
    case alertBanner = "alert-banner"

    /// The four presentations of a phone with the Dynamic Island, drawn by default.
    public static let standard: [Presentation] = [.lockScreen, .islandCompact, .islandMinimal, .islandExpanded]

    /// A short human name, for captions.
    public var title: String {
        switch self {
        case .lockScreen: "Lock Screen"
        case .islandCompact: "Dynamic Island · compact"
        case .islandMinimal: "Dynamic Island · minimal"
        case .islandExpanded: "Dynamic Island · expanded"
        case .islandTwo: "Dynamic Island · two activities (minimal attached and detached)"
        case .standBy: "StandBy"
        case .watchSmartStack: "Apple Watch Smart Stack (small family)"
        case .carPlay: "CarPlay (small family)"
        case .alertBanner: "Alert banner"
        }
    }
}

/// The iPhone screen a preview is drawn for: its width decides the Lock Screen's width (11 points
/// from each edge) and the Dynamic Island's class (narrow on 393- and 402-point screens, wide on
/// 440). The HIG lists the 393 and 430 sizes; 402 and 440 follow its per-device Island classes.
public enum PreviewPhone: String, CaseIterable, Sendable {
    /// 393 × 852: iPhone 14 Pro, 15, 15 Pro, 16.
    case iPhone393 = "393"
    /// 402 × 874: iPhone 16 Pro, 17, 17 Pro.
    case iPhone402 = "402"
    /// 440 × 956: iPhone 16 Pro Max, 17 Pro Max.
    case iPhone440 = "440"

    /// The screen's width in points.
    public var screenWidth: Double {
        switch self {
        case .iPhone393: 393
        case .iPhone402: 402
        case .iPhone440: 440
        }
    }

    /// The screen's height in points (StandBy's width, the phone on its side).
    public var screenHeight: Double {
        switch self {
        case .iPhone393: 852
        case .iPhone402: 874
        case .iPhone440: 956
        }
    }

    /// The Lock Screen presentation's width: the screen less 11 points each side (371, 380, 418).
    public var lockWidth: Double { screenWidth - 22 }

    /// Whether the Island is of the wide class (compact sides 62.33, expanded 408).
    var wideIsland: Bool { self == .iPhone440 }

    /// One compact side of the Island beside the camera.
    var compactSide: Double { wideIsland ? 62.33 : 52.33 }

    /// The expanded Island's width.
    var expandedWidth: Double { wideIsland ? 408 : 371 }

    /// The compact Island's width: both sides and the camera.
    var compactWidth: Double { Geometry.points(compactSide * 2 + Geometry.cameraWidth) }

    /// Where the compact trailing region starts.
    var compactTrailingX: Double { Geometry.points(compactSide + Geometry.cameraWidth) }

    /// A short name for captions.
    public var title: String {
        switch self {
        case .iPhone393: "393-pt iPhone (16)"
        case .iPhone402: "402-pt iPhone (16 Pro)"
        case .iPhone440: "440-pt iPhone (16 Pro Max)"
        }
    }
}

/// Dynamic Type's text sizes, extra small to the fifth accessibility size, by the size of body
/// text at each (Apple's Dynamic Type table; large, 17 points, is the default).
///
/// Voltra draws text with a `fontFamily` through `Font.custom(_:size:)`, which Dynamic Type
/// scales relative to body text; text without one uses `Font.system(size:)`, which it does not
/// scale. The preview does the same.
public enum PreviewTextSize: String, CaseIterable, Sendable {
    case xSmall = "xs", small = "s", medium = "m", large = "l", xLarge = "xl", xxLarge = "xxl", xxxLarge = "xxxl"
    case ax1, ax2, ax3, ax4, ax5

    /// Body text's size at this setting, in points.
    public var bodySize: Double {
        switch self {
        case .xSmall: 14
        case .small: 15
        case .medium: 16
        case .large: 17
        case .xLarge: 19
        case .xxLarge: 21
        case .xxxLarge: 23
        case .ax1: 28
        case .ax2: 33
        case .ax3: 40
        case .ax4: 47
        case .ax5: 53
        }
    }

    /// How much scaled text grows against the default (large).
    public var scale: Double { bodySize / 17 }

    /// The size from a name as the command line takes it: `xs` … `xxxl`, `ax1` … `ax5`, or
    /// SwiftUI's names (`xSmall`, `accessibility3`), case-insensitive.
    public init?(name: String) {
        let lower = name.lowercased()
        if let size = Self(rawValue: lower) { self = size; return }
        let swiftUI: [String: PreviewTextSize] = [
            "xsmall": .xSmall, "small": .small, "medium": .medium, "large": .large, "xlarge": .xLarge, "xxlarge": .xxLarge,
            "xxxlarge": .xxxLarge, "accessibility1": .ax1, "accessibility2": .ax2, "accessibility3": .ax3, "accessibility4": .ax4,
            "accessibility5": .ax5,
        ]
        guard let size = swiftUI[lower] else { return nil }
        self = size
    }
}

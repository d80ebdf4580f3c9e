/// The sizes iOS draws Live Activities at on a 393-point-wide iPhone (14 Pro, 15, 16; HIG Live
/// Activities), in points. Where Apple publishes nothing (corner radius, default margins) the value
/// is a calibration constant, marked so.
enum Geometry {
    /// The screen width the page is laid out for.
    static let screenWidth = 393.0
    /// Lock Screen presentation: 371 wide (11 pt from each screen edge), 84 to 160 tall with its content.
    static let lockWidth = 371.0
    static let minHeight = 84.0
    static let maxHeight = 160.0
    /// Not documented; notification mock-ups use 22–24.
    static let lockCornerRadius = 24.0

    /// The camera cutout: 126 × 37.33 (its top 11 pt below the screen's top).
    static let cameraWidth = 126.0
    static let cameraHeight = 37.33

    /// Compact leading and trailing: 52.33 × 36.67 each side of the camera.
    static let compactSide = 52.33
    static let compactHeight = 36.67
    static var compactWidth: Double { points(compactSide * 2 + cameraWidth) }
    /// Where the compact trailing region starts.
    static var compactTrailingX: Double { points(compactSide + cameraWidth) }
    /// Inset of compact content from the capsule's outer ends (calibration constant).
    static let compactOuterInset = 6.0

    /// Minimal: a circle 36.67 across (an oval up to 45 wide).
    static let minimalSize = 36.67

    /// Expanded: 371 wide, 84 to 160 tall, 44-pt corners (HIG).
    static let expandedWidth = 371.0
    static let islandCornerRadius = 44.0
    /// Default content margins of the expanded Island (not published; calibration constants).
    static let expandedMarginTop = 12.0
    static let expandedMarginSide = 20.0
    static let expandedMarginBottom = 14.0
    /// The height of a presentation that grows with its content: the estimate rounded up to a whole
    /// point (so a 3× capture is a whole number of pixels), between 84 and 160.
    static func grownHeight(_ estimate: Double) -> Double {
        min(maxHeight, max(minHeight, estimate.isFinite ? estimate.rounded(.up) : maxHeight))
    }

    /// `n` rounded to hundredths of a point, as sizes are written in CSS.
    static func points(_ n: Double) -> Double { (n * 100).rounded() / 100 }

    /// The widest the center region grows, leaving leading and trailing 50 points each.
    static var expandedCenterMaxWidth: Double { expandedWidth - 2 * expandedMarginSide - 2 * 50 }

    /// Space between the Island and a detached minimal presentation (not published; calibration constant).
    static let detachedGap = 6.0

    /// How bright the Always-On display draws the Lock Screen (reduced luminance; not published).
    static let alwaysOnBrightness = 0.5

    /// Space between the top row (leading, center, trailing) and the bottom region.
    static let expandedRowGap = 8.0
}

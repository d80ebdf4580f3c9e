import Foundation

// What the generated design views (`liveline template swiftui`, e.g.
// Examples/FlightTracker/Widget/FlightActivityViews.swift) call, with Apple's documented signatures.

extension Color {
    /// swiftui/color/init(_:red:green:blue:opacity:)
    public init(red: Double, green: Double, blue: Double, opacity: Double = 1) { self.init() }
}

extension Font {
    /// swiftui/font/system(size:weight:design:)
    public static func system(size: CGFloat, weight: Font.Weight? = nil) -> Font { fatalError() }

    /// swiftui/font/weight
    public struct Weight: Hashable, Sendable {
        public static let ultraLight = Weight(), thin = Weight(), light = Weight(), regular = Weight(), medium = Weight(), semibold = Weight(),
            bold = Weight(), heavy = Weight(), black = Weight()
        init() {}
    }
}

extension Text {
    /// swiftui/text/init(timerinterval:pausetime:countsdown:showshours:)
    public init(timerInterval: ClosedRange<Date>, pauseTime: Date? = nil, countsDown: Bool = true, showsHours: Bool = true) {}
}

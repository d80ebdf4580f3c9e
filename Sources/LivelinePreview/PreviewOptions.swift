import Foundation

/// How to draw a preview: the instant, the appearance, the time zone and which presentations.
public struct PreviewOptions: Sendable {
    /// The instant timers, relative dates and time-based progress are drawn at.
    public var at: Date
    /// Dark appearance (the Lock Screen's default background black, its default text white).
    public var dark: Bool
    /// The time zone clock times are printed in.
    public var timeZone: TimeZone
    /// The presentations to draw, in this order (default: the phone's four, `Presentation.standard`).
    public var presentations: [Presentation]
    /// Whether the activity is stale (`context.isStale`): its stale date has passed. An APNs body's
    /// `stale-date` before `at` makes it stale too.
    public var stale: Bool
    /// Whether the activity has ended: iOS keeps it on the Lock Screen until it is dismissed and
    /// removes it from the Dynamic Island at once, so only the Lock Screen is drawn.
    public var ended: Bool
    /// The phone whose screen the presentations are sized for (default the 393-point one).
    public var phone: PreviewPhone = .iPhone393
    /// The Dynamic Type text size (default large, the system's default).
    public var textSize: PreviewTextSize = .large
    /// The Always-On display at reduced luminance: the Lock Screen drawn dark and dimmed.
    public var alwaysOn = false
    /// The alert of an alerting update (`aps.alert`), shown with the alert banner.
    public var alert: PreviewAlert?
    /// A team's design for its own type (`liveline preview --template FILE`), drawn instead of a built-in one.
    public var template: LayoutTemplate?

    /// Options with defaults: now, light, UTC, the phone's four presentations, not stale, not ended.
    public init(at: Date = Date(), dark: Bool = false, timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!,
                presentations: [Presentation] = Presentation.standard, stale: Bool = false, ended: Bool = false) {
        self.at = at
        self.dark = dark
        self.timeZone = timeZone
        self.presentations = presentations
        self.stale = stale
        self.ended = ended
    }
}

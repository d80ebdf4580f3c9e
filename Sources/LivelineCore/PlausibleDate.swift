import Foundation

/// The dates lint takes as meant: from 2001-01-01 to 2100-01-01 (UTC).
///
/// A date number in a push is read three ways: as Unix seconds, as Unix milliseconds and as
/// seconds since 2001-01-01 (ActivityKit's reference date). When no reading lands in the window,
/// the number is no date a sender meant (nanoseconds, a counter, an overflow), and lint reports
/// an error instead of guessing a unit; when a reading does, lint's unit heuristics say which
/// one it probably was. For `dismissal-date`, where any past moment means "dismiss now", only
/// the upper bound applies.
enum PlausibleDate {
    /// 2001-01-01T00:00:00Z as Unix seconds.
    static let earliest = ReferenceDate.unixOffset
    /// 2100-01-01T00:00:00Z as Unix seconds.
    static let latest: Double = 4_102_444_800

    /// Whether some reading of `n` lands in the window (`pastMeansNow`: below its end).
    static func contains(_ n: Double, pastMeansNow: Bool = false) -> Bool {
        [n, n / 1000, n + ReferenceDate.unixOffset].contains { $0 < latest && (pastMeansNow || $0 >= earliest) }
    }

    /// The error for a number no reading of which is a date in the window; `unit` says what the
    /// field holds.
    static func finding(_ n: Double, path: String, unit: String, pastMeansNow: Bool = false) -> LintFinding {
        let window = pastMeansNow ? "before 2100" : "between 2001 and 2100"
        return LintFinding(.error, .implausibleDate, path: path,
            "\(JSONValue.javaScriptNumber(n)) is no date \(window), read as Unix seconds, Unix milliseconds or seconds since 2001; \(unit)")
    }
}

import Foundation
import LivelineCommandLine

/// Dates given on the command line: `now`, a relative offset (`+15m`, `-2h`, `+30s`, `+1d`), Unix
/// seconds (`1764424800`) or ISO 8601 (`2026-11-29T14:00:00Z`).
enum DateArgument {
    static let formats = "now, +15m / -2h / +30s / +1d, Unix seconds, or ISO 8601 like 2026-11-29T14:00:00Z"

    static func parse(_ text: String, option: String, now: Date, helpPath: String) throws(UsageError) -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "now" { return now }
        if let first = trimmed.first, first == "+" || first == "-", let unit = trimmed.last,
            let amount = Double(trimmed.dropFirst().dropLast()), amount.isFinite
        {
            let scale: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
            if let scale { return now.addingTimeInterval((first == "-" ? -1 : 1) * amount * scale) }
        }
        if let seconds = Double(trimmed), seconds.isFinite {
            if seconds >= 1e11 {
                throw UsageError(message: "'--\(option)' \(trimmed) looks like milliseconds; give Unix seconds (\(Int64(seconds / 1000)))", helpPath: helpPath)
            }
            return Date(timeIntervalSince1970: seconds)
        }
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: trimmed) { return date }
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: trimmed) { return date }
        throw UsageError(message: "'--\(option)' cannot read '\(text)' as a date; use \(formats)", helpPath: helpPath)
    }
}

import Foundation

/// The static and dynamic data of a Live Activity, shaped like ActivityKit's protocol of the same
/// name, so one source file can describe an activity for both the app and the server.
///
/// ```swift
/// struct FlightAttributes: ActivityAttributes {
///     struct ContentState: Codable, Hashable, Sendable { var gate: String }
///     var flightNumber: String
/// }
/// ```
///
/// - Important: the device decodes `ContentState` and the attributes with Foundation's *default*
///   `JSONDecoder`: dates are seconds since 2001-01-01 (not Unix seconds), keys are the property
///   names (no snake_case), `Data` is base64. Liveline encodes with exactly those defaults.
public protocol ActivityAttributes: Codable, Hashable, Sendable {
    /// The dynamic part, sent as `content-state` in every push.
    associatedtype ContentState: Codable, Hashable, Sendable

    /// The `attributes-type` of a push-to-start: the Swift type's name, as ActivityKit expects.
    static var attributesType: String { get }
}

extension ActivityAttributes {
    public static var attributesType: String { String(describing: Self.self) }
}

/// Conversions between `Date`, Unix seconds and the reference-date seconds ActivityKit decodes.
public enum ReferenceDate {
    /// Seconds from 1970-01-01 to 2001-01-01.
    public static let unixOffset: Double = 978_307_200

    /// The number a default `JSONEncoder` writes for `date`: seconds since 2001-01-01.
    public static func seconds(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate }

    /// The Unix-seconds integer APNs header fields (`timestamp`, `stale-date`, `dismissal-date`) use.
    /// A date beyond `Int64` seconds (one read from a body such as `"timestamp": 1e30`) gives
    /// `Int64.max` or `Int64.min` instead of trapping.
    public static func unixSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Int64(exactly: seconds) ?? (seconds > 0 ? .max : .min)
    }
}

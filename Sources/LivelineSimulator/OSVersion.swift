import Foundation

/// An iOS version such as 17.2 or 18.0.1, compared part by part.
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The major version (18 in 18.2.1).
    public var major: Int
    /// The minor version (2 in 18.2.1).
    public var minor: Int
    /// The patch version (1 in 18.2.1).
    public var patch: Int

    /// A version from its parts.
    public init(_ major: Int, _ minor: Int = 0, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses "18", "17.2" or "18.0.1"; `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        self.init(parts[0]!, parts.count > 1 ? parts[1]! : 0, parts.count > 2 ? parts[2]! : 0)
    }

    /// A literal such as `"17.2"`; an invalid literal is a programming error and traps.
    public init(stringLiteral value: String) {
        guard let v = OSVersion(parsing: value) else { preconditionFailure("invalid iOS version literal \"\(value)\"") }
        self = v
    }

    public var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }

    public static func < (a: OSVersion, b: OSVersion) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }

    /// Live Activities (update tokens) exist from 16.1.
    static let liveActivities = OSVersion(16, 1)
    /// Push-to-start tokens from 17.2.
    static let pushToStart = OSVersion(17, 2)
    /// `input-push-token`, `input-push-channel` and broadcast channels from 18.0.
    static let channels = OSVersion(18, 0)
    /// Scheduled Live Activities (`Activity.request(..., start:)`, `ActivityState.pending`).
    static let scheduledActivities = OSVersion(26, 0)
}

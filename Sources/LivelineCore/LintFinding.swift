import Foundation

/// One problem `Linter` or a schema check found in a payload.
public struct LintFinding: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        /// The push will fail or be dropped, or it holds a value no sender meant (a date outside
        /// 2001–2100 however it is read).
        case error
        /// The push goes through but probably does not do what was meant.
        case warning

        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }

    /// What kind of problem; stable for scripts and tests.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidPayload = Code(rawValue: "invalid-payload")
        public static let missingKey = Code(rawValue: "missing-key")
        public static let wrongType = Code(rawValue: "wrong-type")
        public static let unknownKey = Code(rawValue: "unknown-key")
        public static let snakeCaseKey = Code(rawValue: "snake-case-key")
        public static let unixDate = Code(rawValue: "unix-date")
        public static let millisecondDate = Code(rawValue: "millisecond-date")
        /// A date number that is no date between 2001 and 2100 in any unit (see `Linter`).
        public static let implausibleDate = Code(rawValue: "implausible-date")
        public static let referenceDateInHeader = Code(rawValue: "reference-date-in-aps")
        public static let staleDatePast = Code(rawValue: "stale-date-past")
        public static let missingTimestamp = Code(rawValue: "missing-timestamp")
        public static let timestampNotNewer = Code(rawValue: "timestamp-not-newer")
        public static let unknownAttributesType = Code(rawValue: "unknown-attributes-type")
        public static let customKeyInAps = Code(rawValue: "custom-key-in-aps")
    }

    public var severity: Severity
    public var code: Code
    /// Where in the body, e.g. `aps.content-state.boardingTime`.
    public var path: String
    public var message: String

    public init(_ severity: Severity, _ code: Code, path: String, _ message: String) {
        self.severity = severity
        self.code = code
        self.path = path
        self.message = message
    }

    /// Whether it means a default `JSONDecoder` fails on the value: an error other than an
    /// implausible date (a number decodes as a `Date`, however far off it is) or an undeclared
    /// Voltra prop (it decodes, and a layout that does not read it ignores it: an older build's
    /// declaration lacking a newer prop is no reason to refuse; the current one refuses it itself).
    public var isDecodingFailure: Bool { severity == .error && code != .implausibleDate && code != .undeclaredProp }

    public var description: String { "\(severity.rawValue): \(path.isEmpty ? "" : path + ": ")\(message) [\(code)]" }
}

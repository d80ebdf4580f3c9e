import Foundation

/// A push that must not be sent: what is wrong, the value and the limit.
///
/// Compare `code` to tell cases apart; the message is written for people.
public struct PayloadError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let startMissingAlert = Code(rawValue: "start-missing-alert")
        public static let startMissingAttributes = Code(rawValue: "start-missing-attributes")
        public static let startMissingAttributesType = Code(rawValue: "start-missing-attributes-type")
        public static let missingContentState = Code(rawValue: "missing-content-state")
        public static let fieldNotAllowed = Code(rawValue: "field-not-allowed")
        public static let payloadTooLarge = Code(rawValue: "payload-too-large")
        public static let collapseIDTooLong = Code(rawValue: "collapse-id-too-long")
        public static let nonFiniteNumber = Code(rawValue: "non-finite-number")
        public static let dismissalTooLate = Code(rawValue: "dismissal-too-late")
        public static let priorityNotAllowed = Code(rawValue: "priority-not-allowed")
        public static let topicMismatch = Code(rawValue: "topic-mismatch")
        /// The bundle id given already ends in a push-type suffix, so the topic carries it twice.
        public static let bundleIDHasSuffix = Code(rawValue: "bundle-id-has-suffix")
        public static let malformedBody = Code(rawValue: "malformed-body")
        public static let encodingFailed = Code(rawValue: "encoding-failed")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A UI that cannot be encoded, decoded or sent: what is wrong, the value and the limit.
///
/// Compare `code` to tell cases apart; `message` is written for people.
public struct UIError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The base64 string is over Voltra's 3345-byte budget.
        public static let overBudget = Code(rawValue: "ui-over-budget")
        /// The whole APNs body is over 4096 bytes.
        public static let bodyTooLarge = Code(rawValue: "apns-body-too-large")
        /// The JSON is more than 8× its compressed size; the device's decoder truncates it.
        public static let compressionRatio = Code(rawValue: "compression-ratio")
        /// The string is not standard base64.
        public static let invalidBase64 = Code(rawValue: "invalid-base64")
        /// The bytes are not a brotli stream.
        public static let invalidBrotli = Code(rawValue: "invalid-brotli")
        /// The decompressed text is not JSON, or not a payload object.
        public static let invalidPayload = Code(rawValue: "invalid-payload")
        /// A JSON-form layout is malformed.
        public static let invalidLayout = Code(rawValue: "invalid-layout")
    }

    /// The kind of problem.
    public let code: Code
    /// What was wrong, with the value and the limit.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

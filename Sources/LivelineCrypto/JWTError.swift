/// A provider token (JWT) that cannot be parsed or whose signature does not verify.
///
/// Messages name the part that is wrong, never the token or its signature.
public struct JWTError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not three non-empty dot-separated parts.
        public static let malformed = Code(rawValue: "malformed")
        /// A part is not unpadded base64url.
        public static let badEncoding = Code(rawValue: "bad-encoding")
        /// The header is not a JSON object.
        public static let badHeader = Code(rawValue: "bad-header")
        /// The header's `alg` is not `ES256`.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported-algorithm")
        /// The header has no string `kid`.
        public static let missingKeyID = Code(rawValue: "missing-key-id")
        /// The claims are not a JSON object.
        public static let badClaims = Code(rawValue: "bad-claims")
        /// The claims have no string `iss`.
        public static let missingIssuer = Code(rawValue: "missing-issuer")
        /// The claims have no integer `iat`.
        public static let missingIssuedAt = Code(rawValue: "missing-issued-at")
        /// The signature is neither 64 raw bytes (r‖s) nor a DER ECDSA signature.
        public static let badSignature = Code(rawValue: "bad-signature")
        /// The signature is well formed but does not verify with the key.
        public static let signatureMismatch = Code(rawValue: "signature-mismatch")
    }

    /// The kind of problem.
    public let code: Code
    /// A sentence naming the problem; never the token.
    public let message: String

    /// Makes an error with a code and a message for people.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

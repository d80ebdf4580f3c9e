/// A key that cannot be loaded or used: what is wrong and with which file, never the key itself.
///
/// Compare `code` to tell cases apart; `message` is written for people.
public struct KeyError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The key file does not exist.
        public static let fileNotFound = Code(rawValue: "file-not-found")
        /// The key file exists but cannot be read (permissions, a directory).
        public static let unreadable = Code(rawValue: "unreadable")
        /// The key is protected by a password; APNs `.p8` keys are not.
        public static let encrypted = Code(rawValue: "encrypted")
        /// The key is not an elliptic-curve key (RSA, Ed25519, ...).
        public static let notEC = Code(rawValue: "not-ec")
        /// The key is an elliptic-curve key on a curve other than P-256.
        public static let wrongCurve = Code(rawValue: "wrong-curve")
        /// A public key or certificate was given where a private key was expected, or the reverse.
        public static let wrongKind = Code(rawValue: "wrong-kind")
        /// The data is not a PEM key at all, or its contents do not parse.
        public static let malformed = Code(rawValue: "malformed")
        /// OpenSSL failed while generating, signing or exporting.
        public static let operationFailed = Code(rawValue: "operation-failed")
    }

    /// The kind of problem.
    public let code: Code
    /// A sentence naming the problem and the file; never key material.
    public let message: String

    /// Makes an error with a code and a message for people.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// Why a push got no verdict from APNs: an invalid request, a configuration that cannot send it,
/// or a transport failure.
///
/// Messages name the problem and the value; never a key, a provider token or a whole device token.
public struct APNSClientError: Error, CustomStringConvertible, Sendable, Hashable {
    /// The kind of problem. New codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The push failed validation before it was sent (size, fields, topic).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// A non-zero `apns-expiration` to a channel that stores no messages (APNs: 400 `BadExpirationDate`).
        public static let expirationOnUnstoredChannel = Code(rawValue: "expiration-on-unstored-channel")
        /// The device token is not hex.
        public static let invalidDeviceToken = Code(rawValue: "invalid-device-token")
        /// The configuration cannot send this push (e.g. a Live Activity with certificate auth).
        public static let configuration = Code(rawValue: "configuration")
        /// The connection could not be opened (DNS, TCP, TLS, ALPN).
        public static let connectFailed = Code(rawValue: "connect-failed")
        /// The connection broke or was closed while the push was in flight, and retries ran out.
        public static let connectionLost = Code(rawValue: "connection-lost")
        /// No verdict arrived within the request deadline.
        public static let deadlineExceeded = Code(rawValue: "deadline-exceeded")
        /// The calling task was cancelled before the push was sent (it waited for a connection).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The client was shut down before the push was sent.
        public static let shutdown = Code(rawValue: "shutdown")
        /// A provider token could not be made.
        public static let tokenFailed = Code(rawValue: "token-failed")
        /// The server's answer was not a valid APNs response.
        public static let badResponse = Code(rawValue: "bad-response")
    }

    /// The kind of problem.
    public let code: Code
    /// A sentence for people.
    public let message: String

    /// Makes an error with a code and a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

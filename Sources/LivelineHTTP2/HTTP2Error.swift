/// A transport failure of an HTTP/2 connection or of one request on it.
///
/// `code` says what kind of failure it was; `isRetryable` says whether the server certainly did
/// not process the request (refused stream, a stream above a GOAWAY's last stream ID, a request
/// that was never sent), so the layer above may resend it, typically on another connection.
public struct HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure. New codes may be added; switch with a `default`.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// A bad argument: host, port, path, header, file.
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The host name did not resolve.
        public static let resolveFailed = Code(rawValue: "resolveFailed")
        /// TCP connect failed (refused, unreachable).
        public static let connectFailed = Code(rawValue: "connectFailed")
        /// `connectTimeout` passed before the connection was ready.
        public static let connectTimeout = Code(rawValue: "connectTimeout")
        /// The TLS handshake failed for a reason other than verification or ALPN.
        public static let tlsFailed = Code(rawValue: "tlsFailed")
        /// The server's certificate did not verify (untrusted CA, wrong host, expired).
        public static let certificateVerificationFailed = Code(rawValue: "certificateVerificationFailed")
        /// The server did not agree to HTTP/2 through ALPN `h2`.
        public static let alpnRefused = Code(rawValue: "alpnRefused")
        /// The server refused the stream with RST_STREAM(REFUSED_STREAM); retryable.
        public static let refusedStream = Code(rawValue: "refusedStream")
        /// The server sent GOAWAY; for a request, its stream was above the last stream ID
        /// (retryable) or it was still queued.
        public static let goAway = Code(rawValue: "goAway")
        /// The server reset the stream with another error code.
        public static let streamReset = Code(rawValue: "streamReset")
        /// The connection closed or broke before the response was complete.
        public static let connectionClosed = Code(rawValue: "connectionClosed")
        /// The request's deadline passed before its response was complete.
        public static let timeout = Code(rawValue: "timeout")
        /// No PING acknowledgement arrived within `pingTimeout`.
        public static let pingTimeout = Code(rawValue: "pingTimeout")
        /// The connection is closing or closed at the client's request.
        public static let closed = Code(rawValue: "closed")
        /// An HTTP/2 protocol error (bad frame, session error).
        public static let protocolError = Code(rawValue: "protocolError")
        /// The request was cancelled (its task was cancelled).
        public static let cancelled = Code(rawValue: "cancelled")
        /// Binding or listening on a server address failed.
        public static let listenFailed = Code(rawValue: "listenFailed")
        /// A system call or library call failed unexpectedly.
        public static let internalError = Code(rawValue: "internalError")
    }

    /// Details of a GOAWAY frame.
    public struct GoAway: Sendable, Equatable {
        /// The highest stream ID the server may have processed.
        public let lastStreamID: Int32
        /// The HTTP/2 error code (0 is NO_ERROR).
        public let errorCode: UInt32
        /// Opaque debug data; APNs sends JSON such as `{"reason":"Shutdown"}`.
        public let debugData: [UInt8]

        /// Creates GOAWAY details.
        public init(lastStreamID: Int32, errorCode: UInt32, debugData: [UInt8]) {
            self.lastStreamID = lastStreamID
            self.errorCode = errorCode
            self.debugData = debugData
        }

        /// The debug data as UTF-8 text.
        public var debugText: String { String(decoding: debugData, as: UTF8.self) }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A message naming the problem and the value involved.
    public let message: String
    /// True when the server certainly did not process the request, so it may be resent.
    public let isRetryable: Bool
    /// The GOAWAY that caused this failure, if any.
    public let goAway: GoAway?
    /// The HTTP/2 error code of a RST_STREAM or GOAWAY, if any.
    public let http2ErrorCode: UInt32?

    /// Creates an error.
    public init(_ code: Code, _ message: String, isRetryable: Bool = false, goAway: GoAway? = nil, http2ErrorCode: UInt32? = nil) {
        self.code = code
        self.message = message
        self.isRetryable = isRetryable
        self.goAway = goAway
        self.http2ErrorCode = http2ErrorCode
    }

    /// The message, prefixed with the code.
    public var description: String { "\(code): \(message)" }

    /// The same error with `isRetryable` set.
    func retryable(_ value: Bool) -> HTTP2Error {
        HTTP2Error(code, message, isRetryable: value, goAway: goAway, http2ErrorCode: http2ErrorCode)
    }

    /// The name of an HTTP/2 error code (RFC 9113 §7), or its number.
    public static func errorCodeName(_ code: UInt32) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
                     "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
                     "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return Int(code) < names.count ? names[Int(code)] : "0x\(String(code, radix: 16))"
    }
}

/// A complete request received by an `HTTP2Server` (all HEADERS and DATA up to END_STREAM).
public struct HTTP2ServerRequest: Sendable {
    /// `:method`.
    public let method: String
    /// `:path`.
    public let path: String
    /// `:authority`, if sent.
    public let authority: String?
    /// `:scheme`, if sent.
    public let scheme: String?
    /// Regular header fields in the order received (no pseudo-headers).
    public let headers: HTTP2Headers
    /// The body.
    public let body: [UInt8]
    /// The stream ID.
    public let streamID: Int32
    /// The connection it arrived on (identity, peer certificate, connection controls).
    public let connection: HTTP2ServerConnection

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A response for an `HTTP2Server` to send.
public struct HTTP2ServerResponse: Sendable {
    /// The `:status`.
    public var status: Int
    /// Regular header fields (names are sent lower-cased).
    public var headers: HTTP2Headers
    /// The body; empty sends HEADERS with END_STREAM.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HTTP2Headers = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers one request, once: a response (now or after a delay), a refusal or a reset.
/// Later calls for the same stream, and calls after the stream or connection closed, are ignored.
/// Callable from any thread.
public struct HTTP2ServerResponder: Sendable {
    /// The connection the request came on.
    public let connection: HTTP2ServerConnection
    /// The request's stream.
    public let streamID: Int32

    /// Sends `response`, after `delay` when given (a slow server).
    public func respond(_ response: HTTP2ServerResponse, after delay: Duration? = nil) {
        connection.respond(streamID: streamID, response: response, delay: delay)
    }

    /// Sends a response with `status`, `headers` and `body`, after `delay` when given.
    public func respond(status: Int, headers: HTTP2Headers = [:], body: [UInt8] = [], after delay: Duration? = nil) {
        respond(HTTP2ServerResponse(status: status, headers: headers, body: body), after: delay)
    }

    /// Resets the stream with RST_STREAM(REFUSED_STREAM): the client may retry it.
    public func refuse() {
        reset(errorCode: 7)
    }

    /// Resets the stream with RST_STREAM and `errorCode` (RFC 9113 §7).
    public func reset(errorCode: UInt32) {
        connection.reset(streamID: streamID, errorCode: errorCode)
    }
}

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

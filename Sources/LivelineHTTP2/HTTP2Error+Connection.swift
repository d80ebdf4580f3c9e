/// The errors a client connection's lifecycle produces (connect, GOAWAY, close), each built
/// here and nowhere else, so a request refused after a GOAWAY and one failed when the
/// connection ends read the same way. `endpoint` is the `host:port` the connection was opened to.
extension HTTP2Error {
    /// What a GOAWAY from the server does to the thing that fails with it.
    enum GoAwayEffect {
        /// The connection ended after the GOAWAY; `then` is the transport error that followed, if any.
        case connectionEnded(then: HTTP2Error?)
        /// A request that was never sent (retryable).
        case requestNotSent
        /// A request on a stream above the last stream ID: the server did not process it (retryable).
        /// The text names the request ("stream 11", or the request and its stream).
        case streamNotProcessed(String)
    }

    /// The error a GOAWAY from `endpoint` causes, for each thing it can end.
    static func goAway(_ details: GoAway, from endpoint: String, _ effect: GoAwayEffect) -> HTTP2Error {
        switch effect {
        case .connectionEnded(let then):
            let debug = details.debugData.isEmpty ? "" : ", debug data \(details.debugText)"
            let closeNote = then.map { " (then: \($0.message))" } ?? ""
            return HTTP2Error(.goAway, "\(endpoint) sent GOAWAY (\(errorCodeName(details.errorCode)), last stream \(details.lastStreamID)\(debug))\(closeNote)",
                              goAway: details, http2ErrorCode: details.errorCode)
        case .requestNotSent:
            return goAway(details, from: endpoint, .connectionEnded(then: nil)).notSent()
        case .streamNotProcessed(let what):
            return HTTP2Error(.goAway, "\(endpoint) sent GOAWAY with last stream \(details.lastStreamID); \(what) was not processed",
                              isRetryable: true, goAway: details, http2ErrorCode: details.errorCode)
        }
    }

    /// This connection failure as the error of a request that was never sent: retryable.
    func notSent() -> HTTP2Error {
        HTTP2Error(code, "\(message); the request was not sent", isRetryable: true, goAway: goAway, http2ErrorCode: http2ErrorCode)
    }

    /// This connection failure as the error of a request whose response on `streamID` was not
    /// complete: not retryable (the server may have processed it).
    func incomplete(onStream streamID: Int32) -> HTTP2Error {
        HTTP2Error(code, "\(message) before the response on stream \(streamID) was complete", goAway: goAway, http2ErrorCode: http2ErrorCode)
    }

    /// The client asked to close; requests still running fail with it.
    static func closedByClient(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.closed, "the connection to \(endpoint) was closed by the client")
    }

    /// A new request on a connection that is closing (retryable: not sent).
    static func closing(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.closed, "the connection to \(endpoint) is closing").notSent()
    }

    /// The client asked to close before the connection was ready.
    static func closedBeforeReady(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.closed, "the connection to \(endpoint) was closed by the client before it was ready")
    }

    /// The transport ended cleanly without a GOAWAY or a close the client asked for.
    static func connectionClosed(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.connectionClosed, "the connection to \(endpoint) closed")
    }

    /// The transport ended after TLS but before the server's first SETTINGS.
    static func closedBeforeSettings(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.connectionClosed, "\(endpoint) closed the connection before its SETTINGS")
    }

    /// No address of `endpoint` accepted a TCP connection; `lastError` is the last one's reason.
    static func connectFailed(_ endpoint: String, lastError: String) -> HTTP2Error {
        HTTP2Error(.connectFailed, "cannot connect to \(endpoint): \(lastError)")
    }

    /// `connectTimeout` passed before the connection was ready.
    static func connectTimedOut(_ endpoint: String, after timeout: Duration) -> HTTP2Error {
        HTTP2Error(.connectTimeout, "no HTTP/2 connection to \(endpoint) within \(timeout) (name resolution, connect, TLS handshake and SETTINGS)")
    }

    /// A PING was not acknowledged within `pingTimeout`.
    static func pingTimedOut(_ endpoint: String, after timeout: Duration) -> HTTP2Error {
        HTTP2Error(.pingTimeout, "\(endpoint) did not acknowledge a PING within \(timeout)")
    }

    /// A PING asked for when the connection is not open.
    static func pingRefused(_ endpoint: String) -> HTTP2Error {
        HTTP2Error(.closed, "the connection to \(endpoint) is closed; cannot PING")
    }
}

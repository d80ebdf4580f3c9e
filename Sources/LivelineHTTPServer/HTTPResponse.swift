/// The answer a handler gives: status, headers and body.
///
/// libmicrohttpd adds `Content-Length` and `Date` itself and leaves out headers it refuses
/// (a `Content-Length` of the handler's own, names or values with CR or LF). A
/// `Connection: close` header closes the connection after this response.
public struct HTTPResponse: Sendable {
    /// The status code, 100–999 (other values are sent as 500).
    public var status: Int
    /// Response headers in order.
    public var headers: [(name: String, value: String)]
    /// The body (not sent for `HEAD` requests; its length still is).
    public var body: [UInt8]
    /// A body written while it is sent, instead of `body` (chunked, no `Content-Length`).
    public var stream: HTTPBodyStream?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = nil
    }

    /// Creates a response whose body is `stream`, sent as it is written.
    public init(status: Int, headers: [(name: String, value: String)] = [], stream: HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = []
        self.stream = stream
    }

    /// A `text/event-stream` response (server-sent events) on `stream`, not cached.
    public static func eventStream(_ stream: HTTPBodyStream) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [(name: "content-type", value: "text/event-stream"),
                                            (name: "cache-control", value: "no-store")], stream: stream)
    }

    /// A response with a JSON body and `content-type: application/json`.
    /// - Parameters:
    ///   - status: the status code.
    ///   - body: the encoded JSON.
    public static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [(name: "content-type", value: "application/json")], body: body)
    }

    /// A response with a text body.
    /// - Parameters:
    ///   - status: the status code.
    ///   - body: the text, sent as UTF-8.
    ///   - contentType: the `content-type` header.
    public static func text(_ status: Int, _ body: String, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [(name: "content-type", value: contentType)], body: Array(body.utf8))
    }
}

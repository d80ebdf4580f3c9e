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

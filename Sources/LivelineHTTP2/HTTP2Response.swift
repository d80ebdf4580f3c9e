/// A complete response to an `HTTP2Request`.
public struct HTTP2Response: Sendable {
    /// The `:status`.
    public let status: Int
    /// Regular header fields (no pseudo-headers), in the order received.
    public let headers: HTTP2Headers
    /// The body (all DATA frames).
    public let body: [UInt8]
    /// The stream the response came on.
    public let streamID: Int32

    /// Creates a response (for tests and mocks).
    public init(status: Int, headers: HTTP2Headers = [:], body: [UInt8] = [], streamID: Int32 = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.streamID = streamID
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

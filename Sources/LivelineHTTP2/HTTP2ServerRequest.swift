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
    /// Names of the fields (pseudo-headers included) the client sent as never-indexed HPACK
    /// literals, in order.
    public var neverIndexedFields: [String] = []

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

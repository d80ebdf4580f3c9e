/// A complete request received by an `HTTP2Server` (all HEADERS and DATA up to END_STREAM).
///
/// As text it shows `METHOD path` with a device token cut to its first 8 characters;
/// `debugDescription` adds the stream, the headers (secret values redacted) and the body size.
public struct HTTP2ServerRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
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

    /// `METHOD path`, a device token shown by its first 8 characters.
    public var description: String { Redaction.target(method: method, path: path) }

    /// `description`, the stream, the headers (secret values redacted) and the body size.
    public var debugDescription: String {
        "\(description) on stream \(streamID) of connection \(connection) [\(headers.redactedLines.joined(separator: ", "))] \(body.count)-byte body"
    }

    /// The fields, with the path and secret header values redacted and the body as its size.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "path": Redaction.path(path), "authority": authority as Any, "scheme": scheme as Any,
                                "headers": headers, "body": "\(body.count) bytes", "streamID": streamID, "connection": connection,
                                "neverIndexedFields": neverIndexedFields])
    }
}

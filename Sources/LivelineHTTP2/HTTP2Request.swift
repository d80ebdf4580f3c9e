/// A request to send on an `HTTP2Connection`.
///
/// As text it shows `METHOD path` with a device token cut to its first 8 characters;
/// `debugDescription` adds the headers (secret values redacted) and the body size.
public struct HTTP2Request: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method, e.g. `POST`.
    public var method: String
    /// The path with query, starting with `/`.
    public var path: String
    /// Regular header fields (no pseudo-headers); names are sent lower-cased.
    public var headers: HTTP2Headers
    /// The body; empty sends HEADERS with END_STREAM.
    public var body: [UInt8]
    /// `:authority`; nil uses the connection's host (and port when not 443).
    public var authority: String?
    /// How long the request may take from `send` to a complete response; nil uses the
    /// connection's `requestTimeout`.
    public var timeout: Duration?
    /// Whether the path is worth adding to the HPACK dynamic table. Set it false when every
    /// request has its own path (an APNs device token): the path then goes as a never-indexed
    /// literal and does not push the headers that do repeat (the provider token, the topic) out
    /// of the table, where each would cost its full length again on the next request.
    public var indexesPath = true
    /// Set by Liveline's own clients when they have already checked every byte `send` checks
    /// (method, path, header names and values), so the check is not run twice per request.
    package var isChecked = false

    /// Creates a request.
    public init(method: String = "GET", path: String, headers: HTTP2Headers = [:], body: [UInt8] = [], authority: String? = nil, timeout: Duration? = nil, indexesPath: Bool = true) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.authority = authority
        self.timeout = timeout
        self.indexesPath = indexesPath
    }

    /// `METHOD path`, a device token shown by its first 8 characters.
    public var description: String { Redaction.target(method: method, path: path) }

    /// `description`, the headers (secret values redacted) and the body size.
    public var debugDescription: String {
        "\(description) [\(headers.redactedLines.joined(separator: ", "))] \(body.count)-byte body"
    }

    /// The fields, with the path and secret header values redacted and the body as its size.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "path": Redaction.path(path), "headers": headers, "body": "\(body.count) bytes",
                                "authority": authority as Any, "timeout": timeout as Any, "indexesPath": indexesPath])
    }
}

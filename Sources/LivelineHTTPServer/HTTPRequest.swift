/// One HTTP/1.1 request as a handler sees it, body included.
public struct HTTPRequest: Sendable {
    /// The method as the client sent it: `"GET"`, `"PUT"`, `"HEAD"`, ...
    public var method: String
    /// The URL path without the query, its percent-escapes (such as `%20`) decoded once, nothing
    /// else changed. The server refuses (400) a path with an encoded slash (`%2F`), an encoded
    /// control (`%00`), a malformed escape or bytes that are not UTF-8 once decoded, so every `/`
    /// here was a `/` on the wire.
    public var path: String
    /// The query arguments in the order they came, names and values decoded (`%XX`, `+`).
    /// An argument without `=` has the empty value.
    public var query: [(name: String, value: String)]
    /// The request headers in the order they came, names in lower case.
    public var headers: [(name: String, value: String)]
    /// The whole request body (empty when there was none).
    public var body: [UInt8]
    /// The client's address and port: `"127.0.0.1:54321"` or `"[::1]:54321"`.
    public var remoteAddress: String

    /// Creates a request, for tests of handlers.
    /// - Parameters:
    ///   - method: the method, such as `"GET"`.
    ///   - path: the path without the query.
    ///   - query: query arguments in order.
    ///   - headers: headers in order; names are stored in lower case.
    ///   - body: the body.
    ///   - remoteAddress: the client's address and port.
    public init(
        method: String,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1:0"
    ) {
        self.init(unnormalizedMethod: method, path: path, query: query,
                  headers: headers.map { (name: $0.name.lowercased(), value: $0.value) },
                  body: body, remoteAddress: remoteAddress)
    }

    /// Creates a request whose header names the caller has already lower-cased.
    init(unnormalizedMethod method: String, path: String, query: [(name: String, value: String)],
         headers: [(name: String, value: String)], body: [UInt8], remoteAddress: String) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The value of the first header called `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { asciiCaseInsensitiveEqual($0.name, name) }?.value
    }

    /// The value of the first query argument called exactly `name`.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// Whether `a` and `b` are equal when ASCII letters are compared without case.
func asciiCaseInsensitiveEqual(_ a: String, _ b: String) -> Bool {
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
        switch (left.next(), right.next()) {
        case (nil, nil): return true
        case let (x?, y?):
            if x != y && asciiLower(x) != asciiLower(y) { return false }
        default: return false
        }
    }
}

/// `byte` with `A`–`Z` mapped to `a`–`z`.
@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
}

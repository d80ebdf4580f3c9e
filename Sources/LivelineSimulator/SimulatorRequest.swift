import Foundation
import LivelineCore

/// One HTTP/2 request as the simulator sees it: pseudo-headers apart, other headers in order and
/// with duplicates kept (APNs rejects duplicates, so they must survive to validation).
public struct SimulatorRequest: Sendable, Hashable {
    /// `:method`.
    public var method: String
    /// `:path`.
    public var path: String
    /// `:authority`, if sent.
    public var authority: String?
    /// Regular headers, names lowercased, in arrival order.
    public var headers: [Header]
    /// The body bytes.
    public var body: [UInt8]

    /// One `name: value` header.
    public struct Header: Sendable, Hashable {
        /// The lowercased name.
        public var name: String
        /// The value.
        public var value: String
        /// A header; the name is lowercased.
        public init(_ name: String, _ value: String) {
            self.name = ASCII.lowercased(name)
            self.value = value
        }
    }

    /// A request; POST by default.
    public init(method: String = "POST", path: String, authority: String? = nil, headers: [Header] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (lowercase).
    public func header(_ name: String) -> String? {
        for h in headers where h.name == name { return h.value }
        return nil
    }

    /// `header(_:)` for a name of lower-case ASCII letters and `-` only: no other text is canonically
    /// equivalent to such a name, so comparing lengths first cannot change the answer.
    func header(lowercaseASCII name: String) -> String? {
        let count = name.utf8.count
        for h in headers where h.name.utf8.count == count && h.name == name { return h.value }
        return nil
    }

    /// The first header name that appears more than once.
    var duplicatedHeader: String? {
        if headers.count < 2 { return nil }
        for i in 1..<headers.count {
            for j in 0..<i where headers[j].name == headers[i].name { return headers[i].name }
        }
        return nil
    }
}

/// What the simulator answers: status, headers, body, and what to do with the connection.
public struct SimulatorResponse: Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// Response headers (besides `:status`), in order.
    public var headers: [SimulatorRequest.Header]
    /// The body bytes.
    public var body: [UInt8]
    /// Connection-level actions to take after (or instead of) answering.
    public var actions: [ConnectionAction]
    /// Latency to add before answering (fault injection), in seconds.
    public var delay: TimeInterval

    /// A response.
    public init(status: Int, headers: [SimulatorRequest.Header] = [], body: [UInt8] = [], actions: [ConnectionAction] = [], delay: TimeInterval = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.actions = actions
        self.delay = delay
    }

    /// The first value of header `name`.
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The `reason` of an error body, if any.
    public var reason: String? {
        guard !body.isEmpty, let json = try? JSONValue.parse(body) else { return nil }
        return json["reason"]?.stringValue
    }
}

/// Something a server does to the connection a request arrived on.
public enum ConnectionAction: Sendable, Hashable {
    /// Send SETTINGS with this MAX_CONCURRENT_STREAMS.
    case setMaxConcurrentStreams(Int)
    /// Send GOAWAY carrying this debug data (APNs puts `{"reason": ...}` there), then close.
    case goAway(debugData: [UInt8])
    /// Close the TCP connection without a word (the response is not sent).
    case drop
    /// Reset the stream (RST_STREAM) with this HTTP/2 error code instead of answering.
    case resetStream(errorCode: UInt32)
}

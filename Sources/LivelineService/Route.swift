import Foundation
import LivelineCore
import LivelineHTTPServer
import LivelineStore

/// A successful answer: a status and a JSON body (or text for `/metrics`).
struct Answer: Sendable {
    var status: Int
    var json: JSONValue
    var text: String?
    /// An answer stored under the request's `Idempotency-Key`, sent again byte for byte.
    var replayed: [UInt8]?
    /// Top-level members holding a secret shown once (an installation's secret, a new key): the
    /// copy kept for an `Idempotency-Key` replay leaves them out, so no secret is stored or shown twice.
    var shownOnce: [String] = []
    init(_ status: Int, _ json: JSONValue) {
        self.status = status
        self.json = json
    }
    init(text: String, status: Int = 200) {
        self.status = status
        self.json = .null
        self.text = text
    }
}

/// One request on its way through a route: the request, the path's parameters, the caller's key.
struct RequestContext {
    let request: HTTPRequest
    let params: [String: String]
    let key: APIKeyRecord?
    /// The calling installation, when it authenticated with an installation credential: then
    /// every device-scoped route acts on its id and nothing else.
    var installation: InstallationRecord? = nil
    /// The caller's address (for per-address limits).
    var clientAddress = ""
    let now: Date
    /// `(key id, Idempotency-Key, request hash)` for a write that carries the header.
    let idempotency: (keyID: String, key: String, hash: String)?

    func param(_ name: String) -> String { params[name] ?? "" }
}

/// One entry of the API: method, path pattern, who may call it, and what it does. The same
/// table routes requests and writes `/openapi.json`, so the document cannot drift. A class:
/// every request walks the table, and a class is passed by reference.
final class Route: Sendable {
    let method: String
    /// `/v1/devices/{deviceID}`
    let pattern: String
    /// `nil`: no key needed.
    let scope: KeyScope?
    /// An installation's own route (device, tokens, taps, receipts): its credential or an admin
    /// key may call it; an app key may not.
    let deviceScoped: Bool
    let summary: String
    /// The request body's shape for the document, as a JSON Schema.
    let requestSchema: JSONValue?
    /// Status codes the route answers besides 400/401/403/404/429.
    let success: Int
    let handler: @Sendable (Service, RequestContext) async throws -> Answer
    /// The pattern's segments, split once.
    let segments: [Substring]
    /// The literal segments by position, and the parameters' names by position.
    private let literals: [(index: Int, text: Substring)]
    private let parameters: [(index: Int, name: String)]

    init(method: String, pattern: String, scope: KeyScope?, deviceScoped: Bool = false, summary: String, requestSchema: JSONValue? = nil, success: Int,
         handler: @escaping @Sendable (Service, RequestContext) async throws -> Answer) {
        self.method = method
        self.pattern = pattern
        self.scope = scope
        self.deviceScoped = deviceScoped
        self.summary = summary
        self.requestSchema = requestSchema
        self.success = success
        self.handler = handler
        segments = pattern.split(separator: "/")
        literals = segments.enumerated().filter { !$0.element.hasPrefix("{") }.map { ($0.offset, $0.element) }
        parameters = segments.enumerated().filter { $0.element.hasPrefix("{") }.map { ($0.offset, String($0.element.dropFirst().dropLast())) }
    }

    /// The parameters when `path` matches, else `nil`. Literals are compared before anything is
    /// allocated: every request is matched against every route.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        guard segments.count == pathSegments.count else { return nil }
        for literal in literals where literal.text != pathSegments[literal.index] { return nil }
        var params = [String: String](minimumCapacity: parameters.count)
        for parameter in parameters { params[parameter.name] = String(pathSegments[parameter.index]) }
        return params
    }
}

/// JSON Schema fragments for the document.
enum Schema {
    static func object(_ properties: [(String, JSONValue)], required: [String] = []) -> JSONValue {
        var props = JSONObject()
        for (k, v) in properties { props[k] = v }
        var o: JSONObject = ["type": "object", "properties": .object(props), "additionalProperties": false]
        if !required.isEmpty { o["required"] = .array(required.map(JSONValue.string)) }
        return .object(o)
    }
    static let string: JSONValue = ["type": "string"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let integer: JSONValue = ["type": "integer"]
    static let number: JSONValue = ["type": "number"]
    static let anyObject: JSONValue = ["type": "object"]
    static let dateTime: JSONValue = ["type": "string", "format": "date-time"]
    static let hexToken: JSONValue = ["type": "string", "pattern": "^[0-9a-fA-F]{16,400}$"]
    static func array(_ items: JSONValue) -> JSONValue { ["type": "array", "items": items] }
    static let alert = object([("title", string), ("body", string), ("sound", string)], required: ["title"])
}

import Foundation
import LivelineCore
import LivelineHTTPServer
import LivelineStore

/// A successful answer: a status and a JSON body (or text for `/metrics`).
struct Answer: Sendable {
    var status: Int
    var json: JSONValue
    var text: String?
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
    let now: Date
    /// `(key id, Idempotency-Key, request hash)` for a write that carries the header.
    let idempotency: (keyID: String, key: String, hash: String)?

    func param(_ name: String) -> String { params[name] ?? "" }
}

/// One entry of the API: method, path pattern, who may call it, and what it does. The same
/// table routes requests and writes `/openapi.json`, so the document cannot drift.
struct Route: Sendable {
    var method: String
    /// `/v1/devices/{deviceID}`
    var pattern: String
    /// `nil`: no key needed.
    var scope: KeyScope?
    var summary: String
    /// The request body's shape for the document, as a JSON Schema.
    var requestSchema: JSONValue?
    /// Status codes the route answers besides 400/401/403/404/429.
    var success: Int
    var handler: @Sendable (Service, RequestContext) async throws -> Answer
    /// The pattern's segments, split once.
    let segments: [Substring]

    init(method: String, pattern: String, scope: KeyScope?, summary: String, requestSchema: JSONValue? = nil, success: Int,
         handler: @escaping @Sendable (Service, RequestContext) async throws -> Answer) {
        self.method = method
        self.pattern = pattern
        self.scope = scope
        self.summary = summary
        self.requestSchema = requestSchema
        self.success = success
        self.handler = handler
        segments = pattern.split(separator: "/")
    }

    /// The parameters when `path` matches, else `nil`.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        let mine = segments
        guard mine.count == pathSegments.count else { return nil }
        var params: [String: String] = [:]
        for (p, s) in zip(mine, pathSegments) {
            if p.hasPrefix("{") {
                params[String(p.dropFirst().dropLast())] = String(s)
            } else if p != s {
                return nil
            }
        }
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

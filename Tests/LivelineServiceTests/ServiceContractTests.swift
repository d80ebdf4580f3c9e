import Foundation
import LivelineCore
@testable import LivelineService
import Testing

/// A valid value for a declared property (an object gets its required members).
func sampleValue(_ schema: JSONValue) -> JSONValue {
    if let first = schema["enum"]?.arrayValue?.first { return first }
    let type = schema["type"]?.stringValue ?? schema["type"]?.arrayValue?.first?.stringValue ?? "object"
    switch type {
    case "string":
        if schema["format"]?.stringValue == "date-time" { return .string(ISODate.string(Date().addingTimeInterval(600))) }
        if schema["pattern"] != nil { return .string(String(repeating: "ab", count: 16)) }
        return "x"
    case "integer": return 1
    case "number": return 0.5
    case "boolean": return false
    case "array": return []
    default:
        var o = JSONObject()
        let properties = schema["properties"]?.objectValue ?? JSONObject()
        for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] { o[name] = properties[name].map(sampleValue) ?? "x" }
        return .object(o)
    }
}

@Suite("Service: /openapi.json is the contract the handlers keep")
struct ServiceContractTests {
    static let sends = ["/v1/activities/{activityID}/start", "/v1/activities/{activityID}/update", "/v1/activities/{activityID}/end"]

    /// Valid bodies of other routes (admin key, phone-1, activity contract-a), so that an undeclared
    /// member reaches the handler's final check.
    static let bases: [String: JSONObject] = [
        "/v1/keys": ["scope": "admin"],
        "/v1/keys/{keyID}/rotate": [:],
        "/v1/apps/{bundleID}/token-secret": [:],
        "/v1/devices/{deviceID}": ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"],
        "/v1/devices/{deviceID}/push-to-start/{attributesType}": ["token": .string(String(repeating: "cd", count: 32))],
        "/v1/activities/{activityID}/tokens/{deviceID}": ["token": .string(String(repeating: "ef", count: 32))],
        "/v1/activities/{activityID}/interactions": ["action": "refresh"],
        "/v1/activities/{activityID}/receipts": [:],
        "/v1/activities/{activityID}/decode-failures": ["error": "keyNotFound"],
        "/v1/channels": ["bundleID": .string(ServiceFixture.bundle)],
        "/v1/installations": ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"],
    ]

    /// Each route's request schema, from the served document.
    static func requestSchemas(_ f: ServiceFixture) async throws -> [(method: String, path: String, schema: JSONValue)] {
        let doc = try await f.admin.call("GET", "/openapi.json", key: .some(nil))
        var result: [(String, String, JSONValue)] = []
        for item in try #require(doc.json["paths"]?.objectValue) {
            for op in item.value.objectValue ?? JSONObject() {
                if let schema = op.value["requestBody"]?["content"]?["application/json"]?["schema"] { result.append((op.key.uppercased(), item.key, schema)) }
            }
        }
        return result
    }

    @Test("every declared request property is read by its handler; an undeclared one is refused unknown-field")
    func declaredPropertiesAreRead() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("contract-a", phones: ["phone-1"])
        let routes = try await Self.requestSchemas(f)
        #expect(routes.count >= 15, "\(routes.count) routes with a request schema")
        var starts = 0
        // A valid body for the send routes (others start empty), so a refusal comes from finish(), not an earlier check.
        func base(_ path: String) -> JSONObject {
            switch path {
            case Self.sends[0]: starts += 1; return f.startBody(devices: ["phone-1"]).objectValue!
            case Self.sends[1]: return ["contentState": ServiceFixture.state(gate: "C\(starts)")]
            default: return Self.bases[path] ?? JSONObject()
            }
        }
        func concrete(_ path: String) -> String {
            let id = path == Self.sends[0] ? "contract-s\(starts)" : "contract-a"
            return path.replacingOccurrences(of: "{deviceID}", with: "phone-1").replacingOccurrences(of: "{activityID}", with: id)
                .replacingOccurrences(of: "{attributesType}", with: "FlightAttributes").replacingOccurrences(of: "{keyID}", with: "k").replacingOccurrences(of: "{bundleID}", with: ServiceFixture.bundle)
        }
        for route in routes {
            for property in route.schema["properties"]?.objectValue ?? JSONObject() {
                var body = base(route.path)
                body[property.key] = sampleValue(property.value)
                let r = try await f.admin.call(route.method, concrete(route.path), json: .object(body), headers: ["Idempotency-Key": UUID().uuidString])
                #expect(r.errorCode != "unknown-field", "\(route.method) \(route.path) declares \(property.key) but refuses it: \(r.json)")
            }
            var body = base(route.path)
            body["undeclaredMember"] = 1
            let r = try await f.admin.call(route.method, concrete(route.path), json: .object(body), headers: ["Idempotency-Key": UUID().uuidString])
            if Self.sends.contains(route.path) || Self.bases[route.path] != nil {
                #expect(r.errorCode == "unknown-field" && r.json["error"]?["field"] == "undeclaredMember", "\(route.path) took an undeclared member: \(r.status) \(r.json)")
            } else {
                #expect(r.status >= 400, "\(route.method) \(route.path) accepted an undeclared member: \(r.json)")
            }
        }
        // The start declares no priority (it is always sent at 10), and refuses one.
        let start = try #require(routes.first { $0.path == Self.sends[0] })
        #expect(start.schema["properties"]?["priority"] == nil)
        var body = f.startBody(devices: ["phone-1"]).objectValue!
        body["priority"] = 10
        let r = try await f.admin.call("POST", "/v1/activities/contract-p/start", json: .object(body))
        #expect(r.status == 400 && r.errorCode == "unknown-field", "\(r.json)")
    }

    @Test("every route publishes its success answer's schema, and the served document carries it")
    func everyAnswerDeclared() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let doc = try await f.admin.call("GET", "/openapi.json", key: .some(nil))
        var missing: [String] = []
        for route in f.server.service.routes where route.pattern != "/metrics" {
            let published = doc.json["paths"]?[route.pattern]?[route.method.lowercased()]?["responses"]?[String(route.success)]?["content"]?["application/json"]?["schema"]
            if Service.answerSchemas[Service.routeKey(route)] == nil || published != Service.answerSchemas[Service.routeKey(route)] { missing.append(Service.routeKey(route)) }
        }
        #expect(missing.isEmpty, "routes without a published answer schema: \(missing)")
        #expect(Set(Service.answerSchemas.keys).isSubset(of: Set(f.server.service.routes.map(Service.routeKey))), "schemas declared for no route")
    }

    @Test("with checkAnswers, an answer that differs from its declaration leaves as 500 answer-off-contract naming the member")
    func offContractAnswersAreCaught() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let service = f.server.service
        let route = try #require(service.routes.first { $0.method == "GET" && $0.pattern == "/healthz" })
        // The real answer passes; one member more, one missing or one of the wrong type does not.
        let real = try await f.admin.call("GET", "/healthz", key: .some(nil))
        #expect(real.status == 200)
        try service.checkAnswer(real.json, of: route)
        var extra = try #require(real.json.objectValue)
        extra["uptime"] = 3
        #expect(throws: APIError.self) { try service.checkAnswer(.object(extra), of: route) }
        do {
            try service.checkAnswer(.object(extra), of: route)
        } catch {
            #expect(error.status == 500 && error.code == "answer-off-contract" && error.message.contains("uptime"), "\(error.message)")
        }
        #expect(throws: APIError.self) { try service.checkAnswer(["status": "ok"], of: route) }
        #expect(throws: APIError.self) { try service.checkAnswer(["status": "ok", "database": 1], of: route) }
        // Dates are checked as dates.
        let keys = try #require(service.routes.first { $0.method == "DELETE" && $0.pattern == "/v1/keys/{keyID}" })
        let key: JSONValue = ["id": "k", "scope": "app", "createdAt": "2026-12-03T20:00:00Z", "state": "revoked", "revokedAt": "1764792000"]
        #expect(throws: APIError.self) { try service.checkAnswer(key, of: keys) }
        // An error answer with a member the error schema does not publish.
        let checked = service.checkedError(APIError(409, "conflict", "x", details: ["surprise": 1]), routeName: "GET /x")
        #expect(checked.code == "answer-off-contract" && checked.message.contains("surprise"), "\(checked.message)")
        #expect(service.checkedError(APIError(409, "conflict", "x"), routeName: "GET /x").code == "conflict")
    }

    @Test("every error answer conforms to the published error schema")
    func errorAnswersMatchTheSchema() async throws {
        let f = try await ServiceFixture { $0.startBudget = 1 }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("contract-b", phones: ["phone-1"])
        let bare = try await f.admin.call("PUT", "/v1/devices/phone-bare", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
        #expect(bare.status == 201 || bare.status == 200, "\(bare.json)")
        let doc = try await f.admin.call("GET", "/openapi.json", key: .some(nil))
        let schema = try #require(doc.json["paths"]?["/v1/activities/{activityID}/start"]?["post"]?["responses"]?["422"]?["content"]?["application/json"]?["schema"])
        var withStale = f.startBody(devices: ["phone-1"]).objectValue!
        withStale["staleDate"] = 1_764_612_000
        var extra = f.startBody(devices: ["phone-1"]).objectValue!
        extra["surprise"] = true
        var unknownType = f.startBody(devices: ["phone-1"]).objectValue!
        unknownType["attributesType"] = "NoSuchAttributes"
        let requests: [(String, String, JSONValue?, [UInt8]?, String)] = [
            ("POST", "/v1/activities/contract-c/start", .object(extra), nil, "unknown-field"),
            ("POST", "/v1/activities/contract-c/start", .object(withStale), nil, "unix-date"),
            ("POST", "/v1/activities/contract-c/start", f.startBody(devices: ["phone-bare"]), nil, "no-target"),
            ("POST", "/v1/activities/contract-c/start", f.startBody(devices: ["phone-nobody"]), nil, "unknown-device"),
            ("POST", "/v1/activities/contract-c/start", .object(unknownType), nil, "unknown-attributes-type"),
            ("POST", "/v1/activities/contract-f/start", f.startBody(devices: ["phone-1"]), nil, "start-budget-exceeded"),
            ("POST", "/v1/activities/contract-b/update", ["contentState": ["gate": 12]], nil, ""),
            ("POST", "/v1/activities/contract-none/update", ["contentState": ServiceFixture.state()], nil, "not-found"),
            ("POST", "/v1/apps", [:], nil, "invalid-field"),
            ("POST", "/v1/apps", nil, Array("{".utf8), ""),
            ("GET", "/v1/channels/nope", nil, nil, ""),
        ]
        for (method, path, json, raw, code) in requests {
            let r = try await f.admin.call(method, path, json: json, raw: raw)
            #expect(r.status >= 400 && r.status < 600, "\(method) \(path) answered \(r.status): \(r.json)")
            if !code.isEmpty { #expect(r.errorCode == code, "\(method) \(path): \(r.json)") }
            let problems = SchemaCheck.violations(r.json, schema)
            #expect(problems.isEmpty, "\(method) \(path) → \(r.json) breaks the error schema: \(problems)")
        }
        // The checker itself refuses what the schema does not declare.
        #expect(!SchemaCheck.violations(["error": ["code": "x", "message": "y", "surprise": 1]], schema).isEmpty)
        #expect(!SchemaCheck.violations(["error": ["code": "x", "message": "y", "retryAfterSeconds": "soon"]], schema).isEmpty)
    }

    @Test("a number in a date field is 422 unix-date with lint's finding, in every date field")
    func numbersInDateFields() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("contract-d", phones: ["phone-1"])
        let unix: JSONValue = 1_764_612_000
        let cases: [(String, String, JSONObject, String)] = [
            ("POST", "/v1/activities/contract-e/start", f.startBody(devices: ["phone-1"]).objectValue!, "staleDate"),
            ("POST", "/v1/activities/contract-d/update", ["contentState": ServiceFixture.state()], "staleDate"),
            ("POST", "/v1/activities/contract-d/end", [:], "dismissalDate"),
            ("POST", "/v1/activities/contract-d/end", [:], "at"),
            ("POST", "/v1/activities/contract-d/receipts", ["deviceID": "phone-1"], "displayedAt"),
            ("POST", "/v1/activities/contract-d/decode-failures", ["deviceID": "phone-1", "error": "bad"], "failedAt"),
            ("POST", "/v1/keys", ["scope": "admin", "name": "n"], "expiresAt"),
        ]
        for (method, path, base, field) in cases {
            var body = base
            body[field] = unix
            let r = try await f.admin.call(method, path, json: .object(body))
            #expect(r.status == 422 && r.errorCode == "unix-date" && r.json["error"]?["field"]?.stringValue == field, "\(path) \(field): \(r.status) \(r.json)")
            #expect(r.json["error"]?["findings"]?.arrayValue?.first?["code"] == "unix-date", "\(path) \(field): \(r.json)")
            #expect(r.errorMessage.contains("2025-12-01T18:00:00Z"), "the message reads the number as Unix seconds: \(r.errorMessage)")
        }
        // A string that is not a date stays 400 invalid-field.
        let r = try await f.admin.call("POST", "/v1/activities/contract-d/update", json: ["contentState": ServiceFixture.state(), "staleDate": "tomorrow"])
        #expect(r.status == 400 && r.errorCode == "invalid-field", "\(r.json)")
    }
}

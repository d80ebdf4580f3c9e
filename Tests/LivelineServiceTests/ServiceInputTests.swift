import Foundation
import LivelineCore
import LivelineService
import Testing

@Suite("Service: bad input gets a 4xx naming the problem, and changes nothing")
struct ServiceInputTests {
    @Test("keys: none, unknown, and an app key on an admin route")
    func keys() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let none = try await f.admin.call("GET", "/v1/apps", key: .some(nil))
        #expect(none.status == 401)
        #expect(none.errorMessage.contains("missing 'Authorization: Bearer <key>'"))
        let unknown = try await f.admin.call("GET", "/v1/apps", key: "ll_admin_0000")
        #expect(unknown.status == 401)
        #expect(!unknown.json.jsonString.contains("ll_admin_0000"))
        let appOnAdmin = try await f.app.call("POST", "/v1/activities/x/update", json: ["contentState": [:]])
        #expect(appOnAdmin.status == 403)
        #expect(appOnAdmin.errorMessage.contains("needs an admin key"))
        // Apps are listed without their key.
        let apps = try await f.admin.call("GET", "/v1/apps")
        #expect(apps.json["apps"]?.arrayValue?.count == 1)
        #expect(!apps.json.jsonString.contains("PRIVATE KEY"))
        #expect(!apps.json.jsonString.contains(String(f.keyPEM.split(separator: "\n")[1].prefix(20))))
    }

    @Test("the Authorization header: the scheme in any case and blanks around the key are accepted; anything else is 401")
    func authorizationForms() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let key = try #require(f.admin.key)
        for accepted in ["bearer \(key)", "BEARER \(key)", "Bearer   \(key)  ", "Bearer\t\(key)"] {
            let r = try await f.admin.call("GET", "/v1/apps", key: .some(nil), headers: ["Authorization": accepted])
            #expect(r.status == 200, "\(accepted.prefix(9))…")
        }
        for refused in ["Basic \(key)", "Bearer", "Bearer   ", "Bearer\(key)", "Bearerx \(key)", "\(key)"] {
            let r = try await f.admin.call("GET", "/v1/apps", key: .some(nil), headers: ["Authorization": refused])
            #expect(r.status == 401, "\(refused.prefix(9))…")
            #expect(r.errorMessage.contains("must be 'Bearer <key>'"), "\(refused.prefix(9))…: \(r.errorMessage)")
            #expect(!r.json.jsonString.contains(key))
        }
        // A wrong key with the right form is unknown, not malformed.
        let wrong = try await f.admin.call("GET", "/v1/apps", key: .some(nil), headers: ["Authorization": "Bearer \(key)x"])
        #expect(wrong.status == 401 && wrong.errorMessage.contains("unknown, revoked or expired API key"))
    }

    /// Each bad request, the status and code it gets, and a word its message must contain.
    static let cases: [(String, String, String, [UInt8], Int, String, String)] = [
        ("malformed JSON", "PUT", "/v1/devices/d1", Array(#"{"bundleID": "#.utf8), 400, "malformed-json", "not valid JSON"),
        ("an array body", "PUT", "/v1/devices/d1", Array("[]".utf8), 400, "malformed-json", "must be a JSON object"),
        ("an unknown field", "PUT", "/v1/devices/d1", Array(#"{"bundleID":"com.example.flights","iosVersion":"18.2","colour":"red"}"#.utf8), 400, "unknown-field", "colour"),
        ("a wrong type", "PUT", "/v1/devices/d1", Array(#"{"bundleID":"com.example.flights","iosVersion":18.2}"#.utf8), 400, "invalid-field", "iosVersion: expected a string"),
        ("a missing field", "PUT", "/v1/devices/d1", Array(#"{"iosVersion":"18.2"}"#.utf8), 400, "invalid-field", "bundleID: is required"),
        ("a bad version", "PUT", "/v1/devices/d1", Array(#"{"bundleID":"com.example.flights","iosVersion":"eighteen"}"#.utf8), 400, "invalid-field", "iosVersion"),
        ("an unknown app", "PUT", "/v1/devices/d1", Array(#"{"bundleID":"com.example.nope","iosVersion":"18.2"}"#.utf8), 404, "unknown-app", "com.example.nope"),
        ("a bad token", "PUT", "/v1/devices/phone-1/push-to-start/FlightAttributes", Array(#"{"token":"xyz"}"#.utf8), 400, "invalid-field", "hex"),
        ("a token for an unknown device", "PUT", "/v1/activities/a/tokens/ghost", Array(#"{"token":"00112233445566778899aabbccddeeff"}"#.utf8), 404, "unknown-device", "ghost"),
        ("a bad path id", "PUT", "/v1/devices/bad%20id", Array("{}".utf8), 400, "invalid-path", "deviceID"),
        ("an unknown activity", "POST", "/v1/activities/nothing/update", Array(#"{"contentState":{}}"#.utf8), 404, "not-found", "nothing"),
        ("an unknown route", "GET", "/v1/nowhere", [], 404, "no-route", "/v1/nowhere"),
        ("a wrong method", "PATCH", "/v1/devices/d1", [], 405, "method-not-allowed", "PUT"),
        ("a start without an alert", "POST", "/v1/activities/s/start", Array(#"{"attributesType":"FlightAttributes","attributes":{},"audience":{"deviceIDs":["phone-1"]}}"#.utf8), 400, "invalid-field", "alert"),
        ("an unknown attributes type", "POST", "/v1/activities/s/start", Array(#"{"attributesType":"Pizza","attributes":{},"contentState":{},"alert":{"title":"x"},"audience":{"deviceIDs":["phone-1"]}}"#.utf8), 422, "unknown-attributes-type", "Pizza"),
        ("a Unix-seconds date", "POST", "/v1/activities/s/start", Array(#"{"attributesType":"FlightAttributes","attributes":{"flightNumber":"LL 1","origin":"A","destination":"B","airline":"C","departure":1764612000},"contentState":{},"alert":{"title":"x"},"audience":{"deviceIDs":["phone-1"]}}"#.utf8), 400, "invalid-field", "attributes.departure: expected an ISO 8601 date string"),
    ]

    @Test("each bad request", arguments: 0..<cases.count)
    func badRequest(_ index: Int) async throws {
        let (_, method, path, body, status, code, word) = Self.cases[index]
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        let before = try await f.admin.call("GET", "/metrics")
        let r = try await f.admin.call(method, path, raw: body)
        #expect(r.status == status, "\(r.json)")
        #expect(r.errorCode == code)
        #expect(r.errorMessage.contains(word), "\(r.errorMessage)")
        // Nothing changed: no device d1, no activity, no new outbox rows or tokens.
        #expect(try await f.admin.call("GET", "/v1/devices/d1").status == 404)
        #expect(try await f.admin.call("GET", "/v1/activities/s").status == 404)
        let after = try await f.admin.call("GET", "/metrics")
        func gauges(_ text: String) -> [Substring] { text.split(separator: "\n").filter { $0.hasPrefix("liveline_outbox_rows") || $0.hasPrefix("liveline_registered_tokens") } }
        #expect(gauges(after.json.stringValue ?? "") == gauges(before.json.stringValue ?? ""))
    }

    @Test("an app whose key is not a .p8 key is refused without repeating the key, and nothing is stored")
    func badAppKey() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let pem = "-----BEGIN PRIVATE KEY-----\nU0VDUkVUU0VDUkVUU0VDUkVU\n-----END PRIVATE KEY-----\n"
        let r = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.other", "teamID": "TEAM000001", "keyID": "KEY0000001", "key": .string(pem)])
        #expect(r.status == 400)
        #expect(r.json["error"]?["field"] == "key")
        #expect(!r.json.jsonString.contains("U0VDUkVU"))
        let apps = try await f.admin.call("GET", "/v1/apps")
        #expect(apps.json["apps"]?.arrayValue?.map { $0["bundleID"] } == [.string(ServiceFixture.bundle)])
        let lowercase = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.other", "teamID": "team1", "keyID": "KEY0000001", "key": .string(f.keyPEM)])
        #expect(lowercase.status == 400)
        #expect(lowercase.errorMessage.contains("teamID: must be 10 upper-case letters and digits"))
    }

    @Test("a body over the limit is answered 413 before it is read")
    func oversized() async throws {
        let f = try await ServiceFixture { $0.maxBodyBytes = 4096 }
        defer { Task { await f.stop() } }
        let r = try await f.app.call("PUT", "/v1/devices/d1", raw: Array(repeating: UInt8(ascii: " "), count: 10_000))
        #expect(r.status == 413)
        #expect(try await f.admin.call("GET", "/v1/devices/d1").status == 404)
    }

    @Test("an update the device would drop is answered 422 with lint's findings, and nothing is queued")
    func lintRefusal() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-7", phones: ["phone-1"])
        let r = try await f.admin.call("POST", "/v1/activities/flight-7/update", json: ["contentState": ["status": "delayed", "gate": "C7", "boarding_time": "2026-12-01T17:20:00Z", "delayMinutes": 5, "isBoarding": false]])
        #expect(r.status == 422)
        #expect(r.errorCode == "lint-failed")
        let findings = r.json["error"]?["findings"]?.arrayValue ?? []
        #expect(findings.contains { $0["code"] == "snake-case-key" && $0["path"] == "aps.content-state.boardingTime" })
        let settled = try await f.settled("flight-7")
        #expect(settled.json["deliveries"]?.arrayValue?.contains { $0["event"] == "update" } == false)
    }

    @Test("rate limit per key: 429 with Retry-After past the burst")
    func rateLimit() async throws {
        // One request per 1000 s after a burst of 3: the bucket cannot refill during the test.
        let f = try await ServiceFixture { $0.rateLimit = 0.001; $0.rateBurst = 3 }
        defer { Task { await f.stop() } }
        // The fixture used two requests of the admin key's burst (the app and the app key).
        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await f.admin.call("GET", "/v1/apps").status) }
        #expect(statuses == [200, 429, 429])
        // The app key's budget is not the admin key's (it is per client address).
        #expect(try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]).status == 201)
        let limited = try await f.admin.call("GET", "/v1/apps")
        #expect(limited.status == 429)
        #expect(limited.headers["retry-after"] != nil)
    }
}

@Suite("Service: the documents it serves")
struct ServiceDocumentTests {
    @Test("/openapi.json lists exactly the routes that answer")
    func openAPI() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let doc = try await f.admin.call("GET", "/openapi.json", key: .some(nil))
        #expect(doc.status == 200)
        #expect(doc.json["openapi"] == "3.1.0")
        let paths = try #require(doc.json["paths"]?.objectValue)
        for path in ["/v1/devices/{deviceID}", "/v1/devices/{deviceID}/push-to-start/{attributesType}", "/v1/activities/{activityID}/tokens/{deviceID}",
                     "/v1/activities/{activityID}/interactions", "/v1/activities/{activityID}/receipts", "/v1/activities/{activityID}/decode-failures", "/v1/apps", "/v1/activities/{activityID}/start",
                     "/v1/activities/{activityID}/update", "/v1/activities/{activityID}/end", "/v1/activities/{activityID}", "/v1/channels", "/healthz", "/metrics"] {
            #expect(paths[path] != nil, "missing \(path)")
        }
        var operations = 0
        for member in paths {
            for op in member.value.objectValue ?? [:] {
                operations += 1
                let concrete = member.key.replacingOccurrences(of: "{deviceID}", with: "d").replacingOccurrences(of: "{activityID}", with: "a")
                    .replacingOccurrences(of: "{attributesType}", with: "FlightAttributes").replacingOccurrences(of: "{channelID}", with: "c")
                let r = try await f.admin.call(op.key.uppercased(), concrete, raw: op.key == "get" ? nil : Array("{}".utf8))
                #expect(r.errorCode != "no-route" && r.errorCode != "method-not-allowed", "\(op.key) \(member.key) is documented but not routed")
            }
        }
        #expect(operations >= 20)
        // An undocumented route does not answer.
        #expect(try await f.admin.call("GET", "/v1/undocumented").errorCode == "no-route")
    }

    @Test("/healthz and /metrics need no key; metrics count requests and pushes")
    func healthAndMetrics() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-8", phones: ["phone-1"])
        let health = try await f.admin.call("GET", "/healthz", key: .some(nil))
        #expect(health.status == 200)
        #expect(health.json["status"] == "ok")
        let metrics = try await f.admin.call("GET", "/metrics", key: .some(nil))
        let text = metrics.json.stringValue ?? ""
        #expect(text.contains("liveline_pushes_total{result=\"sent\",reason=\"\"} 1"))
        #expect(text.contains("liveline_outbox_rows{state=\"sent\"} 1"))
        #expect(text.contains("liveline_http_requests_total{route=\"PUT /v1/devices/{deviceID}\",status=\"201\"} 1"))
        #expect(text.contains("liveline_send_latency_seconds_count 1"))
        #expect(text.contains("liveline_registered_tokens 2"))
    }
}

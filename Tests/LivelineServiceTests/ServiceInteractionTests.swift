import Foundation
import LivelineCore
import LivelineCrypto
import LivelineHTTPServer
import LivelineService
import LivelineTesting
import LivelineUI
import Synchronization
import Testing

@Suite("Service: interactions reach the backend's webhook once, signed")
struct ServiceInteractionTests {
    /// The backend's webhook: records what it receives, fails the first `failures` requests with 500.
    final class Webhook: Sendable {
        struct State {
            var requests: [(headers: [String: String], body: [UInt8])] = []
            var waiter: CheckedContinuation<Void, Never>?
        }
        let state = Mutex(State())
        let failures: Int
        var received: [(headers: [String: String], body: [UInt8])] { state.withLock { $0.requests } }
        init(failures: Int) { self.failures = failures }

        func handle(_ request: HTTPRequest) -> HTTPResponse {
            var headers: [String: String] = [:]
            for h in request.headers { headers[h.name] = h.value }
            let (seen, waiter) = state.withLock { s -> (Int, CheckedContinuation<Void, Never>?) in
                s.requests.append((headers, request.body))
                guard s.requests.count > failures else { return (s.requests.count, nil) }
                defer { s.waiter = nil }
                return (s.requests.count, s.waiter)
            }
            waiter?.resume()
            return seen <= failures ? .json(500, Array("{}".utf8)) : .json(200, Array("{}".utf8))
        }

        /// Returns once a request has been answered 200.
        /// - Throws: `TestingError` when none was within the wait's deadline.
        func waitForDelivery() async throws {
            try await withDeadline("the webhook to be delivered (answered 200 after \(failures) failures)") { [self] in
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    let done = state.withLock { s -> Bool in
                        if s.requests.count > failures { return true }
                        s.waiter = c
                        return false
                    }
                    if done { c.resume() }
                }
            }
        }
    }

    @Test("a tap is stored once per idempotency key, listed, and delivered with a valid HMAC-SHA256 signature after a failed attempt")
    func delivered() async throws {
        let webhook = Webhook(failures: 1)
        let receiver = try HTTPServer.start(HTTPServerConfiguration()) { webhook.handle($0) }
        let secret = "whsec-test-\(UUID().uuidString)"
        let f = try await ServiceFixture { $0.webhookURL = receiver.url + "/hooks/liveline"; $0.webhookSecret = secret }
        defer { Task { await f.stop(); await receiver.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-9", phones: ["phone-1"])
        let tap: JSONValue = ["action": "share-gate", "deviceID": "phone-1", "payload": ["gate": "C7"]]
        let first = try await f.admin.call("POST", "/v1/activities/flight-9/interactions", json: tap, headers: ["Idempotency-Key": "tap-1"])
        #expect(first.status == 201, "\(first.json)")
        let again = try await f.admin.call("POST", "/v1/activities/flight-9/interactions", json: tap, headers: ["Idempotency-Key": "tap-1"])
        #expect(again.json["id"] == first.json["id"])
        let missingKey = try await f.admin.call("POST", "/v1/activities/flight-9/interactions", json: tap)
        #expect(missingKey.status == 400)
        #expect(missingKey.errorCode == "missing-idempotency-key")

        try await webhook.waitForDelivery()
        let requests = webhook.received
        #expect(requests.count == 2)  // one 500, one 200: the same interaction, retried
        let delivered = try #require(requests.last)
        #expect(delivered.headers["idempotency-key"] == "tap-1")
        let signature = try #require(delivered.headers["liveline-signature"])
        let t = try #require(signature.split(separator: ",").first?.dropFirst(2)).description
        let expected = "t=\(t),v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(t).".utf8) + delivered.body))
        #expect(signature == expected)
        let body = try JSONValue.parse(delivered.body)
        #expect(body["action"] == "share-gate")
        #expect(body["payload"]?["gate"] == "C7")
        #expect(!String(decoding: delivered.body, as: UTF8.self).contains(secret))

        let listed = try await f.admin.call("GET", "/v1/activities/flight-9/interactions")
        #expect(listed.json["interactions"]?.arrayValue?.count == 1)
    }
}

@Suite("Service: server-driven UI sends")
struct ServiceUITests {
    @Test("a ui layout is encoded by LivelineUI and sent as VoltraAttributes content")
    func uiLayout() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-10", phones: ["phone-1"])
        // flight-10 is a FlightAttributes activity: a layout does not fit its ContentState, and lint says so.
        let layout = try JSONValue.parse(Array(#"{"lockScreen": {"type": "Text", "children": "Boarding at C7"}}"#.utf8))
        let r = try await f.admin.call("POST", "/v1/activities/flight-10/update", json: ["ui": layout])
        #expect(r.status == 422, "\(r.json)")
        #expect(r.json["error"]?["findings"]?.arrayValue?.contains { $0["path"]?.stringValue?.hasPrefix("aps.content-state") == true } == true)
        let bad = try await f.admin.call("POST", "/v1/activities/flight-10/update", json: ["ui": ["lockScreen": ["type": "NoSuchView"]]])
        #expect(bad.status == 422)
        #expect(bad.errorCode == "invalid-ui")
    }

    @Test("a start with a ui layout reaches the phone as VoltraAttributes with the encoded layout")
    func uiStart() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        let token = try #require(f.simulator.app(ServiceFixture.bundle, on: "phone-1")?.pushToStartTokens["VoltraAttributes"])
        #expect(try await f.admin.call("PUT", "/v1/devices/phone-1/push-to-start/VoltraAttributes", json: ["token": .string(token)]).status == 201)
        let layout = try JSONValue.parse(Array(#"{"lockScreen": {"type": "Text", "children": "Boarding at C7"}}"#.utf8))
        let r = try await f.admin.call("POST", "/v1/activities/ui-1/start", json: ["ui": layout, "alert": ["title": "Boarding"], "audience": ["deviceIDs": ["phone-1"]]])
        #expect(r.status == 202, "\(r.json)")
        _ = try await f.settled("ui-1")
        let activity = try #require(f.deviceActivity("ui-1", on: "phone-1"))
        #expect(activity.attributesType == "VoltraAttributes")
        let ui = try #require(activity.contentState["uiJsonData"]?.stringValue)
        let decoded = try VoltraDecoder.decode(base64: ui)
        #expect(LayoutForm.json(decoded.layout).jsonString.contains("Boarding at C7"))
    }
}

import Foundation
import LivelineCore
import LivelineSimulator
import Testing

extension Fixture {
    /// A channel-management request for `bundle` with a valid token.
    func channelRequest(method: String = "POST", bundle: String = Fixture.bundle, list: Bool = false, channelID: String? = nil,
                        body: String? = #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#, _ edit: (inout SimulatorRequest) -> Void = { _ in }) -> SimulatorRequest {
        var r = SimulatorRequest(method: method, path: "/1/apps/\(bundle)/\(list ? "all-channels" : "channels")",
                                 headers: [.init("authorization", "bearer " + jwt())], body: body.map { Array($0.utf8) } ?? [])
        if let channelID { r.headers.append(.init("apns-channel-id", channelID)) }
        edit(&r)
        return r
    }

    /// A broadcast update on `channelID`.
    func broadcastRequest(channelID: String?, bundle: String = Fixture.bundle, body: JSONValue? = nil, _ edit: (inout SimulatorRequest) -> Void = { _ in }) -> SimulatorRequest {
        var r = SimulatorRequest(path: "/4/broadcasts/apps/\(bundle)",
                                 headers: [.init("authorization", "bearer " + jwt()), .init("apns-push-type", "liveactivity")],
                                 body: (body ?? updateBody()).serialized())
        if let channelID { r.headers.append(.init("apns-channel-id", channelID)) }
        edit(&r)
        return r
    }

    func newChannel(policy: Int = 0) -> String { try! sim.createChannel(bundleID: Fixture.bundle, storagePolicy: policy) }

    /// A valid channel-creation body padded with spaces to `bytes` bytes.
    static func createBody(bytes: Int) -> String {
        let body = #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#
        return body.dropLast() + String(repeating: " ", count: bytes - body.utf8.count) + "}"
    }
}

/// Every broadcast and channel-management reason of apns-protocol.md §4.3.
let channelCases: [ReasonCase] = [
    ReasonCase(reason: "FeatureNotEnabled", status: 400, note: "broadcast capability off") { f in f.send(f.channelRequest(bundle: "com.example.nobroadcast")) },
    ReasonCase(reason: "MissingChannelId", status: 400, note: "broadcast without apns-channel-id") { f in f.send(f.broadcastRequest(channelID: nil)) },
    ReasonCase(reason: "MissingChannelId", status: 400, note: "read without apns-channel-id") { f in f.send(f.channelRequest(method: "GET", body: nil)) },
    ReasonCase(reason: "BadChannelId", status: 400, note: "not base64") { f in f.send(f.broadcastRequest(channelID: "not base64!")) },
    ReasonCase(reason: "ChannelNotRegistered", status: 400, note: "unknown channel") { f in f.send(f.broadcastRequest(channelID: "dHN0LXNyY2gtY2hubA==")) },
    ReasonCase(reason: "ChannelNotRegistered", status: 400, note: "deleted channel") { f in
        let id = f.newChannel()
        _ = f.send(f.channelRequest(method: "DELETE", channelID: id, body: nil))
        return f.send(f.channelRequest(method: "GET", channelID: id, body: nil))
    },
    ReasonCase(reason: "BadRequestParams", status: 400, note: "unknown key") { f in
        f.send(f.channelRequest(body: #"{"message-storage-policy":0,"push-type":"LiveActivity","color":"red"}"#))
    },
    ReasonCase(reason: "BadRequestParams", status: 400, note: "storage policy 2") { f in
        f.send(f.channelRequest(body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#))
    },
    ReasonCase(reason: "BadRequestPayload", status: 400, note: "create with broken JSON") { f in f.send(f.channelRequest(body: "{")) },
    ReasonCase(reason: "BadRequestPayload", status: 400, note: "broadcast with broken JSON") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.body = Array("{".utf8) })
    },
    ReasonCase(reason: "BadRequestPayload", status: 400, note: "create with a key twice") { f in
        f.send(f.channelRequest(body: #"{"message-storage-policy":0,"push-type":"LiveActivity","message-storage-policy":1}"#))
    },
    ReasonCase(reason: "BadRequestPayload", status: 400, note: "broadcast with a key twice") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.body = Array(#"{"aps":{"event":"update","event":"end"}}"#.utf8) })
    },
    ReasonCase(reason: "PayloadEmpty", status: 400, note: "create with no body") { f in f.send(f.channelRequest(body: nil)) },
    ReasonCase(reason: "PayloadEmpty", status: 400, note: "broadcast with no body") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.body = [] })
    },
    ReasonCase(reason: "BadMessageId", status: 400, note: "apns-request-id not a UUID") { f in
        f.send(f.channelRequest { $0.headers.append(.init("apns-request-id", "abc")) })
    },
    ReasonCase(reason: "MissingPushType", status: 400, note: "broadcast without apns-push-type") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.headers.removeAll { $0.name == "apns-push-type" } })
    },
    ReasonCase(reason: "MissingPushType", status: 400, note: "create without push-type") { f in f.send(f.channelRequest(body: #"{"message-storage-policy":0}"#)) },
    ReasonCase(reason: "InvalidPushType", status: 400, note: "broadcast push type alert") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.headers[1] = .init("apns-push-type", "alert") })
    },
    ReasonCase(reason: "InvalidPushType", status: 400, note: "create push-type alert") { f in
        f.send(f.channelRequest(body: #"{"message-storage-policy":0,"push-type":"alert"}"#))
    },
    ReasonCase(reason: "CannotCreateChannelConfig", status: 400, note: "channel limit reached", configure: { $0.maxChannelsPerApp = 2 }) { f in
        _ = f.send(f.channelRequest())
        _ = f.send(f.channelRequest())
        return f.send(f.channelRequest())
    },
    ReasonCase(reason: "BadExpirationDate", status: 400, note: "non-zero on a no-storage channel") { f in
        let id = f.newChannel(policy: 0)
        return f.send(f.broadcastRequest(channelID: id) { $0.headers.append(.init("apns-expiration", "1900000000")) })
    },
    ReasonCase(reason: "BadExpirationDate", status: 400, note: "not a number") { f in
        let id = f.newChannel(policy: 1)
        return f.send(f.broadcastRequest(channelID: id) { $0.headers.append(.init("apns-expiration", "soon")) })
    },
    ReasonCase(reason: "TopicDisallowed", status: 400, note: "bundle with push-type suffix") { f in f.send(f.broadcastRequest(channelID: "AAAA", bundle: Fixture.laTopic)) },
    ReasonCase(reason: "BadPriority", status: 400, note: "apns-priority 3") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.headers.append(.init("apns-priority", "3")) })
    },
    ReasonCase(reason: "BadCertificate", status: 403, note: "invalid certificate") { f in
        var c = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .sandbox, valid: false))
        return f.sim.handle(f.channelRequest(), connection: &c)
    },
    ReasonCase(reason: "BadCertificateEnvironment", status: 403, note: "production certificate") { f in
        var c = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .production, valid: true))
        return f.sim.handle(f.channelRequest(), connection: &c)
    },
    ReasonCase(reason: "TopicMismatch", status: 403, note: "another team's app") { f in f.send(f.channelRequest(bundle: "com.team2.app")) },
    ReasonCase(reason: "MissingProviderToken", status: 403, note: "no authorization") { f in
        f.send(f.channelRequest { $0.headers.removeAll { $0.name == "authorization" } })
    },
    ReasonCase(reason: "ExpiredProviderToken", status: 403, note: "old iat") { f in
        f.send(f.channelRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(issuedAt: f.now.addingTimeInterval(-4000))) })
    },
    ReasonCase(reason: "InvalidProviderToken", status: 403, note: "bad signature") { f in
        f.send(f.broadcastRequest(channelID: "AAAA") { $0.headers[0] = .init("authorization", "bearer " + f.jwt(key: TestKeys.other)) })
    },
    ReasonCase(reason: "BadPath", status: 404, note: "unknown management path") { f in f.send(SimulatorRequest(method: "GET", path: "/1/apps/com.example.flights/chan")) },
    ReasonCase(reason: "MethodNotAllowed", status: 405, note: "PUT channels") { f in f.send(f.channelRequest(method: "PUT")) },
    ReasonCase(reason: "MethodNotAllowed", status: 405, note: "GET broadcast") { f in f.send(f.broadcastRequest(channelID: "AAAA") { $0.method = "GET" }) },
    ReasonCase(reason: "PayloadTooLarge", status: 413, note: "5121-byte broadcast") { f in
        let id = f.newChannel()
        return f.send(f.broadcastRequest(channelID: id) { $0.body = Array(("{\"aps\":{\"x\":\"" + String(repeating: "x", count: 5121 - 16) + "\"}}").utf8) })
    },
    ReasonCase(reason: "PayloadTooLarge", status: 413, note: "5121-byte create, valid JSON but not parsed") { f in
        f.send(f.channelRequest(body: Fixture.createBody(bytes: 5121)))
    },
    ReasonCase(reason: "PayloadTooLarge", status: 413, note: "1 MB create that is not JSON") { f in
        f.send(f.channelRequest(body: String(repeating: "{", count: 1 << 20)))
    },
    ReasonCase(reason: "TooManyRequests", status: 429, note: "rate limit per channel", configure: { $0.rateLimit = RateLimit(count: 1, seconds: 60) }) { f in
        let id = f.newChannel()
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.broadcastRequest(channelID: id), connection: &c)
        return f.sim.handle(f.broadcastRequest(channelID: id), connection: &c)
    },
    ReasonCase(reason: "TooManyProviderTokenUpdates", status: 429, note: "second token within 20 minutes") { f in
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.channelRequest(), connection: &c)
        f.clock.advance(by: 1)
        return f.sim.handle(f.channelRequest(), connection: &c)
    },
    ReasonCase(reason: "InternalServerError", status: 500, note: "fault on channel") { f in
        let id = f.newChannel()
        f.sim.inject(FaultRule(.respond(.internalServerError), scope: .channel(id)))
        return f.send(f.broadcastRequest(channelID: id))
    },
    ReasonCase(reason: "ServiceUnavailable", status: 503, note: "fault") { f in
        f.sim.inject(FaultRule(.respond(.serviceUnavailable)))
        return f.send(f.broadcastRequest(channelID: "AAAA"))
    },
    ReasonCase(reason: "Shutdown", status: 503, note: "fault") { f in
        f.sim.inject(FaultRule(.respond(.shutdown)))
        return f.send(f.broadcastRequest(channelID: "AAAA"))
    },
]

@Suite("Broadcast and channel management (§1.3, §4.3)")
struct ChannelReasonTests {
    @Test("each reason comes from its crafted request, with apns-request-id", arguments: channelCases)
    func reason(_ c: ReasonCase) throws {
        let f = c.fixture
        let r = c.run(f)
        #expect(r.status == c.status)
        #expect(r.body == Array("{\"reason\":\"\(c.reason)\"}".utf8))
        #expect(r.header("content-type") == "application/json")
        #expect(r.header("apns-request-id") != nil)
        let record = try #require(f.sim.log().last)
        #expect(record.verdict == .rejected(APNSReason(rawValue: c.reason)))
    }

    @Test("a create body of exactly 5120 bytes is within the limit")
    func createAtTheLimit() {
        let f = Fixture()
        #expect(Fixture.createBody(bytes: 5120).utf8.count == 5120)
        #expect(f.send(f.channelRequest(body: Fixture.createBody(bytes: 5120))).status == 201)
    }

    @Test("create, read, list and delete channels; ids are server-made base64 and never reissued")
    func lifecycle() throws {
        let f = Fixture()
        let requestID = "0b7c6f4e-3a2d-4b1c-9e8f-7a6b5c4d3e2f"
        let created = f.send(f.channelRequest(body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#) { $0.headers.append(.init("apns-request-id", requestID)) })
        #expect(created.status == 201)
        #expect(created.body.isEmpty)
        #expect(created.header("apns-request-id") == requestID)
        let id = try #require(created.header("apns-channel-id"))
        #expect(Data(base64Encoded: id) != nil)

        let read = f.send(f.channelRequest(method: "GET", channelID: id, body: nil))
        #expect(read.status == 200)
        #expect(read.json == ["message-storage-policy": 1, "push-type": "LiveActivity"])

        let second = f.newChannel()
        let list = f.send(f.channelRequest(method: "GET", list: true, body: nil))
        #expect(list.json == ["channels": [.string(id), .string(second)]])

        let deleted = f.send(f.channelRequest(method: "DELETE", channelID: id, body: nil))
        #expect(deleted.status == 204)
        #expect(f.send(f.channelRequest(method: "GET", list: true, body: nil)).json == ["channels": [.string(second)]])
        var ids = Set<String>()
        for _ in 0..<50 { ids.insert(f.newChannel()) }
        #expect(ids.count == 50 && !ids.contains(id))
    }

    @Test("a broadcast reaches every subscribed activity and no other")
    func broadcastDelivery() throws {
        let f = Fixture()
        let channel = f.newChannel()
        let other = f.newChannel()
        let p2s = f.app.pushToStartTokens["FlightAttributes"]!
        for c in [channel, channel, other] {
            f.clock.advance(by: 1)
            #expect(f.send(f.laRequest(token: p2s, body: f.startBody(input: .string(c), inputKey: "input-push-channel"))).status == 200)
        }
        f.clock.advance(by: 1)
        let r = f.send(f.broadcastRequest(channelID: channel, body: f.updateBody(state: Fixture.state(gate: "C3"))))
        #expect(r.status == 200)
        #expect(r.header("apns-request-id")?.count == 36)
        let gates = f.sim.activities().map { $0.contentState["gate"] }
        #expect(gates == [.string("C3"), .string("C3"), .string("B12")])
        #expect(f.sim.log().last?.deliveries.count == 2)
    }

    @Test("a most-recent-stored channel hands its last message to an activity that subscribes later")
    func storedMessage() throws {
        let f = Fixture()
        let channel = f.newChannel(policy: 1)
        _ = f.send(f.broadcastRequest(channelID: channel, body: f.updateBody(timestamp: f.now.timeIntervalSince1970 + 5, state: Fixture.state(gate: "D9"))))
        let p2s = f.app.pushToStartTokens["FlightAttributes"]!
        #expect(f.send(f.laRequest(token: p2s, body: f.startBody(input: .string(channel), inputKey: "input-push-channel"))).status == 200)
        #expect(f.sim.activities().first?.contentState["gate"] == "D9")
    }
}

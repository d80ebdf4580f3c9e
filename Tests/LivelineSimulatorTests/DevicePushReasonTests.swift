import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSimulator
import Testing

/// One crafted request that must produce one APNs reason.
struct ReasonCase: Sendable, CustomTestStringConvertible {
    var reason: String
    var status: Int
    var note: String
    var configure: @Sendable (inout SimulatorConfiguration) -> Void = { _ in }
    var run: @Sendable (Fixture) -> SimulatorResponse
    var testDescription: String { "\(reason) (\(note))" }

    /// The fixture this case runs against.
    var fixture: Fixture { Fixture(configure: configure) }
}

/// Every device-push reason of apns-protocol.md §4.2, each from a request crafted to cause it.
let devicePushCases: [ReasonCase] = [
    ReasonCase(reason: "MethodNotAllowed", status: 405, note: "GET") { f in f.send(f.alertRequest { $0.method = "GET" }) },
    ReasonCase(reason: "BadPath", status: 404, note: "/3/devices/") { f in f.send(f.alertRequest { $0.path = "/3/devices/" + f.app.deviceToken }) },
    ReasonCase(reason: "MissingDeviceToken", status: 400, note: "/3/device/") { f in f.send(f.alertRequest { $0.path = "/3/device/" }) },
    ReasonCase(reason: "DuplicateHeaders", status: 400, note: "apns-topic twice") { f in
        f.send(f.alertRequest { $0.headers.append(.init("apns-topic", Fixture.bundle)) })
    },
    ReasonCase(reason: "MissingProviderToken", status: 403, note: "no authorization") { f in
        f.send(f.alertRequest { $0.headers.removeAll { $0.name == "authorization" } })
    },
    ReasonCase(reason: "MissingProviderToken", status: 403, note: "not bearer") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "basic abc") })
    },
    ReasonCase(reason: "InvalidProviderToken", status: 403, note: "not a JWT") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer a.b") })
    },
    ReasonCase(reason: "InvalidProviderToken", status: 403, note: "signed by another key") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(key: TestKeys.other)) })
    },
    ReasonCase(reason: "InvalidProviderToken", status: 403, note: "unknown kid") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(kid: "NOSUCHKEY1")) })
    },
    ReasonCase(reason: "InvalidProviderToken", status: 403, note: "iss not the key's team") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(team: "TEAM000002")) })
    },
    ReasonCase(reason: "ExpiredProviderToken", status: 403, note: "iat 61 minutes ago") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(issuedAt: f.now.addingTimeInterval(-3660))) })
    },
    ReasonCase(reason: "BadEnvironmentKeyIdInToken", status: 403, note: "production key on sandbox") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(kid: "PRODKEY001", key: TestKeys.production)) })
    },
    ReasonCase(reason: "UnrelatedKeyIdInToken", status: 403, note: "second key on a bound connection") { f in
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.alertRequest(), connection: &c)
        f.clock.advance(by: 21 * 60)
        return f.sim.handle(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(kid: "OTHERKEY01", key: TestKeys.other)) }, connection: &c)
    },
    ReasonCase(reason: "TooManyProviderTokenUpdates", status: 429, note: "new token within 20 minutes") { f in
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.alertRequest(), connection: &c)
        f.clock.advance(by: 60)
        return f.sim.handle(f.alertRequest(), connection: &c)
    },
    ReasonCase(reason: "BadMessageId", status: 400, note: "apns-id not a UUID") { f in f.send(f.alertRequest { $0.headers.append(.init("apns-id", "42")) }) },
    ReasonCase(reason: "BadExpirationDate", status: 400, note: "apns-expiration text") { f in
        f.send(f.alertRequest { $0.headers.append(.init("apns-expiration", "tomorrow")) })
    },
    ReasonCase(reason: "BadPriority", status: 400, note: "apns-priority 7") { f in f.send(f.alertRequest { $0.headers.append(.init("apns-priority", "7")) }) },
    ReasonCase(reason: "BadPriority", status: 400, note: "background at 10") { f in
        f.send(f.alertRequest { $0.headers[1] = .init("apns-push-type", "background"); $0.headers.append(.init("apns-priority", "10")) })
    },
    ReasonCase(reason: "InvalidPushType", status: 400, note: "apns-push-type fax") { f in
        f.send(f.alertRequest { $0.headers[1] = .init("apns-push-type", "fax") })
    },
    ReasonCase(reason: "BadCollapseId", status: 400, note: "65 bytes") { f in
        f.send(f.alertRequest { $0.headers.append(.init("apns-collapse-id", String(repeating: "c", count: 65))) })
    },
    ReasonCase(reason: "MissingTopic", status: 400, note: "no apns-topic") { f in f.send(f.alertRequest { $0.headers.removeAll { $0.name == "apns-topic" } }) },
    ReasonCase(reason: "BadTopic", status: 400, note: "liveactivity with bare topic") { f in
        f.send(f.alertRequest { $0.headers[1] = .init("apns-push-type", "liveactivity") })
    },
    ReasonCase(reason: "BadTopic", status: 400, note: "unknown bundle") { f in f.send(f.alertRequest { $0.headers[2] = .init("apns-topic", "com.unknown.app") }) },
    ReasonCase(reason: "TopicDisallowed", status: 400, note: "topic key for another bundle") { f in
        f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + f.jwt(kid: "TOPICKEY01", key: TestKeys.topic)) })
    },
    ReasonCase(reason: "TopicDisallowed", status: 400, note: "Live Activity over a certificate") { f in
        var c = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .sandbox, valid: true))
        let token = f.app.pushToStartTokens["FlightAttributes"]!
        return f.sim.handle(f.laRequest(token: token, body: f.startBody()), connection: &c)
    },
    ReasonCase(reason: "Forbidden", status: 403, note: "app refused") { f in f.send(f.alertRequest { $0.headers[2] = .init("apns-topic", "com.example.blocked") }) },
    ReasonCase(reason: "BadDeviceToken", status: 400, note: "not hex") { f in f.send(f.alertRequest { $0.path = "/3/device/" + String(repeating: "zz", count: 32) }) },
    ReasonCase(reason: "BadDeviceToken", status: 400, note: "odd length") { f in f.send(f.alertRequest { $0.path = "/3/device/" + String(repeating: "a", count: 65) }) },
    ReasonCase(reason: "BadDeviceToken", status: 400, note: "unknown token") { f in f.send(f.alertRequest { $0.path = "/3/device/" + String(repeating: "ab", count: 32) }) },
    ReasonCase(reason: "BadDeviceToken", status: 400, note: "production token on sandbox") { f in
        let prod = f.sim.addDevice(name: "Prod", environment: .production)
        let app = try! f.sim.install(Fixture.bundle, on: prod)
        return f.send(f.alertRequest { $0.path = "/3/device/" + app.deviceToken })
    },
    ReasonCase(reason: "DeviceTokenNotForTopic", status: 400, note: "another app's token") { f in
        let other = try! f.sim.install("com.example.other", on: f.device)
        return f.send(f.alertRequest { $0.path = "/3/device/" + other.deviceToken })
    },
    ReasonCase(reason: "DeviceTokenNotForTopic", status: 400, note: "LA token with bare topic, no push type") { f in
        f.send(f.alertRequest { $0.path = "/3/device/" + f.app.pushToStartTokens["FlightAttributes"]!; $0.headers.removeAll { $0.name == "apns-push-type" } })
    },
    ReasonCase(reason: "PayloadEmpty", status: 400, note: "no body") { f in f.send(f.alertRequest { $0.body = [] }) },
    ReasonCase(reason: "PayloadTooLarge", status: 413, note: "4097 bytes") { f in
        f.send(f.alertRequest { $0.body = Array(("{\"aps\":{\"alert\":\"" + String(repeating: "x", count: 4097 - 20) + "\"}}").utf8) })
    },
    ReasonCase(reason: "TooManyRequests", status: 429, note: "rate limit 1 per minute", configure: { $0.rateLimit = RateLimit(count: 1, seconds: 60) }) { f in
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.alertRequest(), connection: &c)
        return f.sim.handle(f.alertRequest(), connection: &c)
    },
    ReasonCase(reason: "IdleTimeout", status: 400, note: "connection idle over an hour") { f in
        var c = f.sim.newConnection()
        _ = f.sim.handle(f.alertRequest(), connection: &c)
        f.clock.advance(by: 3601)
        return f.sim.handle(f.alertRequest(), connection: &c)
    },
    ReasonCase(reason: "BadCertificate", status: 403, note: "invalid client certificate") { f in
        var c = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .sandbox, valid: false))
        return f.sim.handle(f.alertRequest(), connection: &c)
    },
    ReasonCase(reason: "BadCertificateEnvironment", status: 403, note: "production certificate") { f in
        var c = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .production, valid: true))
        return f.sim.handle(f.alertRequest(), connection: &c)
    },
    ReasonCase(reason: "InternalServerError", status: 500, note: "fault") { f in
        f.sim.inject(FaultRule(.respond(.internalServerError)))
        return f.send(f.alertRequest())
    },
    ReasonCase(reason: "ServiceUnavailable", status: 503, note: "fault") { f in
        f.sim.inject(FaultRule(.respond(.serviceUnavailable)))
        return f.send(f.alertRequest())
    },
    ReasonCase(reason: "Shutdown", status: 503, note: "fault with GOAWAY") { f in
        f.sim.inject(FaultRule(.goAway(.shutdown)))
        return f.send(f.alertRequest())
    },
]

/// 410s: the token died at a known moment, reported in milliseconds.
let goneCases: [ReasonCase] = [
    ReasonCase(reason: "Unregistered", status: 410, note: "app uninstalled") { f in
        f.clock.advance(by: 12.345)
        try! f.sim.uninstall(Fixture.bundle, from: f.device)
        f.clock.advance(by: 60)
        return f.send(f.alertRequest())
    },
    ReasonCase(reason: "ExpiredToken", status: 410, note: "activity dismissed") { f in
        let activity = f.startByPush()
        f.clock.advance(by: 12.345)
        try! f.sim.dismissByUser(activity.id)
        f.clock.advance(by: 60)
        return f.send(f.laRequest(token: activity.pushToken!, body: f.updateBody()))
    },
]

@Suite("APNs device-push reasons (§4.2)")
struct DevicePushReasonTests {
    @Test("a valid alert push is accepted with apns-id and apns-unique-id")
    func accepted() throws {
        let f = Fixture()
        let id = "123e4567-e89b-42d3-a456-426614174000"
        let r = f.send(f.alertRequest { $0.headers.append(.init("apns-id", id)) })
        #expect(r.status == 200)
        #expect(r.body.isEmpty)
        #expect(r.header("apns-id") == id)
        let unique = try #require(r.header("apns-unique-id"))
        #expect(unique.count == 36)
        #expect(f.sim.app(Fixture.bundle, on: f.device)?.notifications.count == 1)
    }

    @Test("production answers without apns-unique-id and generates an apns-id")
    func production() {
        let f = Fixture(environment: .production) { $0.keys[2].scope = .both }
        let r = f.send(f.alertRequest())
        #expect(r.status == 200)
        #expect(r.header("apns-unique-id") == nil)
        #expect(r.header("apns-id")?.count == 36)
    }

    @Test("each reason comes from its crafted request with APNs' status and JSON body", arguments: devicePushCases)
    func reason(_ c: ReasonCase) throws {
        let f = c.fixture
        let r = c.run(f)
        #expect(r.status == c.status)
        #expect(r.body == Array("{\"reason\":\"\(c.reason)\"}".utf8))
        #expect(r.header("content-type") == "application/json")
        #expect(r.header("apns-id") != nil)
        #expect(APNSReason(rawValue: c.reason).status == c.status)
        let record = try #require(f.sim.log().last)
        #expect(record.verdict == .rejected(APNSReason(rawValue: c.reason)))
    }

    @Test("410 bodies carry the moment the token died, in milliseconds", arguments: goneCases)
    func gone(_ c: ReasonCase) throws {
        let f = Fixture()
        let start = f.now
        let r = c.run(f)
        #expect(r.status == 410)
        let json = try #require(r.json)
        #expect(json["reason"] == .string(c.reason))
        let died = start.addingTimeInterval(12.345).timeIntervalSince1970 * 1000
        #expect(json["timestamp"] == .number(died.rounded(.down)))
    }

    /// Two faults at once: the one earlier in §10's order wins.
    @Test("checks run in the order of §10", arguments: [EditCase]([
        EditCase("MethodNotAllowed") { r in r.method = "PUT"; r.headers.removeAll { $0.name == "authorization" } },
        EditCase("MissingDeviceToken") { r in r.path = "/3/device/"; r.headers.append(.init("apns-topic", "x")) },
        EditCase("DuplicateHeaders") { r in r.headers.append(.init("apns-topic", "x")); r.headers.removeAll { $0.name == "authorization" } },
        EditCase("MissingProviderToken") { r in r.headers.removeAll { $0.name == "authorization" }; r.headers.append(.init("apns-id", "x")) },
        EditCase("BadMessageId") { r in r.headers.append(.init("apns-id", "x")); r.headers.removeAll { $0.name == "apns-topic" } },
        EditCase("MissingTopic") { r in r.headers.removeAll { $0.name == "apns-topic" }; r.path = "/3/device/zz" },
        EditCase("BadDeviceToken") { r in r.path = "/3/device/zz"; r.body = [] },
    ]))
    func order(_ c: EditCase) {
        let f = Fixture()
        #expect(f.send(f.alertRequest(c.edit)).reason == c.expected)
    }
}

/// A request edit that should produce `expected`.
struct EditCase: Sendable, CustomTestStringConvertible {
    var expected: String
    var edit: @Sendable (inout SimulatorRequest) -> Void
    init(_ expected: String, _ edit: @escaping @Sendable (inout SimulatorRequest) -> Void) {
        self.expected = expected
        self.edit = edit
    }
    var testDescription: String { expected }
}

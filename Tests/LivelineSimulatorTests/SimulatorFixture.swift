import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSimulator
import Synchronization

/// Keys made once per test process (generating P-256 keys in-process takes microseconds, but once is enough).
enum TestKeys {
    static let main = try! P256PrivateKey.generate()
    static let other = try! P256PrivateKey.generate()
    static let production = try! P256PrivateKey.generate()
    static let topic = try! P256PrivateKey.generate()
    static let otherTeam = try! P256PrivateKey.generate()
}

/// A simulator with a team, keys, apps and one iPhone, plus helpers to craft requests.
struct Fixture: Sendable {
    static let team = "TEAM000001"
    static let kid = "KEY0000001"
    static let bundle = "com.example.flights"
    static let laTopic = bundle + ".push-type.liveactivity"

    let clock: VirtualClock
    let sim: Simulator
    let device: String
    let app: InstalledAppSnapshot
    let tokens = TokenCache()

    init(environment: APNSEnvironment = .sandbox, osVersion: OSVersion = "18.2", rules: DeviceRules = DeviceRules(),
         supportsFrequentUpdates: Bool = false, configure: (inout SimulatorConfiguration) -> Void = { _ in }) {
        clock = VirtualClock()
        var config = SimulatorConfiguration(
            environment: environment,
            keys: [
                ProviderKey(keyID: Self.kid, teamID: Self.team, publicKey: TestKeys.main.publicKey),
                ProviderKey(keyID: "OTHERKEY01", teamID: Self.team, publicKey: TestKeys.other.publicKey),
                ProviderKey(keyID: "PRODKEY001", teamID: Self.team, publicKey: TestKeys.production.publicKey, scope: .production),
                ProviderKey(keyID: "TOPICKEY01", teamID: Self.team, publicKey: TestKeys.topic.publicKey, topics: ["com.example.other"]),
                ProviderKey(keyID: "TEAM2KEY01", teamID: "TEAM000002", publicKey: TestKeys.otherTeam.publicKey),
            ],
            apps: [
                AppRegistration(bundleID: Self.bundle, teamID: Self.team),
                AppRegistration(bundleID: "com.example.other", teamID: Self.team),
                AppRegistration(bundleID: "com.example.blocked", teamID: Self.team, forbidden: true),
                AppRegistration(bundleID: "com.example.nobroadcast", teamID: Self.team, broadcastEnabled: false),
                AppRegistration(bundleID: "com.team2.app", teamID: "TEAM000002"),
            ],
            deviceRules: rules)
        configure(&config)
        sim = Simulator(configuration: config, clock: clock)
        device = sim.addDevice(name: "iPhone 16", osVersion: osVersion)
        app = try! sim.install(Self.bundle, on: device, activityTypes: [.type(FlightAttributes.self), .voltra], supportsFrequentUpdates: supportsFrequentUpdates)
    }

    var now: Date { clock.now }

    /// A provider token signed now (or at `issuedAt`) with `key` under `kid`/`team`; the same
    /// arguments give the same token string (ECDSA signatures are randomised, so tokens are cached
    /// as a client that reuses its token would).
    func jwt(issuedAt: Date? = nil, kid: String = Fixture.kid, team: String = Fixture.team, key: P256PrivateKey = TestKeys.main) -> String {
        let iat = issuedAt ?? clock.now
        let cacheKey = "\(kid)|\(team)|\(Int64(iat.timeIntervalSince1970))|\(ObjectIdentifier(key).hashValue)"
        return tokens.cache.withLock { cache in
            if let t = cache[cacheKey] { return t }
            let t = try! JWT.sign(keyID: kid, teamID: team, issuedAt: iat, key: key)
            cache[cacheKey] = t
            return t
        }
    }

    /// A valid alert push to the app's device token; `edit` changes it.
    func alertRequest(_ edit: (inout SimulatorRequest) -> Void = { _ in }) -> SimulatorRequest {
        var r = SimulatorRequest(
            method: "POST", path: "/3/device/" + app.deviceToken,
            headers: [.init("authorization", "bearer " + jwt()), .init("apns-push-type", "alert"), .init("apns-topic", Self.bundle)],
            body: Array(#"{"aps":{"alert":"Gate changed"}}"#.utf8))
        edit(&r)
        return r
    }

    /// A Live Activity push to `token` with `body`.
    func laRequest(token: String, body: JSONValue, priority: Int? = nil) -> SimulatorRequest {
        var headers: [SimulatorRequest.Header] = [
            .init("authorization", "bearer " + jwt()), .init("apns-push-type", "liveactivity"), .init("apns-topic", Self.laTopic),
        ]
        if let priority { headers.append(.init("apns-priority", String(priority))) }
        return SimulatorRequest(path: "/3/device/" + token, headers: headers, body: body.serialized())
    }

    /// Sends on a fresh token connection.
    func send(_ request: SimulatorRequest) -> SimulatorResponse {
        var connection = sim.newConnection()
        return sim.handle(request, connection: &connection)
    }

    // MARK: - Payloads

    static let gateState: JSONValue = ["status": "boarding", "gate": "B12", "boardingTime": 800_000_000, "delayMinutes": 0, "isBoarding": true]
    static let flightAttributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": 800_000_000]

    func startBody(timestamp: Double? = nil, alert: Bool = true, type: String = "FlightAttributes", attributes: JSONValue = Fixture.flightAttributes,
                   state: JSONValue = Fixture.gateState, input: JSONValue? = nil, inputKey: String = "input-push-token", staleDate: Double? = nil) -> JSONValue {
        var aps: JSONObject = [
            "timestamp": .number(timestamp ?? clock.now.timeIntervalSince1970), "event": "start", "content-state": state,
            "attributes-type": .string(type), "attributes": attributes,
        ]
        if alert { aps["alert"] = ["title": "Boarding", "body": "Gate B12"] }
        if let input { aps[inputKey] = input }
        if let staleDate { aps["stale-date"] = .number(staleDate) }
        return .object(["aps": .object(aps)])
    }

    func updateBody(event: String = "update", timestamp: Double? = nil, state: JSONValue? = Fixture.gateState, staleDate: Double? = nil, dismissal: Double? = nil) -> JSONValue {
        var aps: JSONObject = ["event": .string(event)]
        if let t = timestamp ?? Optional(clock.now.timeIntervalSince1970) { aps["timestamp"] = .number(t) }
        if let state { aps["content-state"] = state }
        if let staleDate { aps["stale-date"] = .number(staleDate) }
        if let dismissal { aps["dismissal-date"] = .number(dismissal) }
        return .object(["aps": .object(aps)])
    }

    static func state(gate: String) -> JSONValue {
        ["status": "boarding", "gate": .string(gate), "boardingTime": 800_000_000, "delayMinutes": 0, "isBoarding": true]
    }

    /// Starts a FlightAttributes activity by push-to-start with `input-push-token: 1`; returns it.
    func startByPush() -> ActivitySnapshot {
        let token = app.pushToStartTokens["FlightAttributes"]!
        let r = send(laRequest(token: token, body: startBody(input: 1)))
        precondition(r.status == 200, "start failed: \(r.status) \(r.reason ?? "")")
        return sim.activities().last!
    }
}

/// Signed tokens by their claims, shared by the copies of one fixture.
final class TokenCache: Sendable {
    let cache = Mutex<[String: String]>([:])
}

extension SimulatorResponse {
    /// The body parsed as JSON.
    var json: JSONValue? { body.isEmpty ? nil : try? JSONValue.parse(body) }
}

import Foundation
import LivelineCore
import LivelineSQLite
import LivelineService
import LivelineSimulator
import LivelineTesting
@testable import LivelineStore
import Testing

/// The attacks of issue 20, each by a client holding only the app key (public: it ships in every
/// app), against a real service on SQLite and the simulator's phones. The victim's phone is
/// registered by its own installation, its user bound by a token the backend signed.
@Suite("Trust: an app-key holder acts on nothing but its own installation", .serialized)
struct TrustAttackTests {
    static let bundle = ServiceFixture.bundle

    /// An installation made with the app key: its id and a client with its credential.
    struct Installation {
        var id: String
        var client: APIClient
    }

    static func install(_ f: ServiceFixture, ios: String = "18.2", headers: [String: String] = [:]) async throws -> Installation {
        let r = try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(bundle), "iosVersion": .string(ios)], headers: headers)
        #expect(r.status == 201, "\(r.json)")
        let secret = try #require(r.json["secret"]?.stringValue)
        #expect(secret.hasPrefix("ll_inst_"))
        return Installation(id: try #require(r.json["installationID"]?.stringValue), client: APIClient(baseURL: f.server.url, key: secret))
    }

    /// The backend's token secret.
    static func tokenSecret(_ f: ServiceFixture) async throws -> String {
        let r = try await f.admin.call("PUT", "/v1/apps/\(bundle)/token-secret", json: [:])
        #expect(r.status == 200, "\(r.json)")
        return try #require(r.json["secret"]?.stringValue)
    }

    /// Registers `installation` for the simulator's `phone`: device (with a user token when
    /// given) and the phone's push-to-start token.
    static func register(_ f: ServiceFixture, _ i: Installation, phone: String, user: String? = nil, userToken: String? = nil) async throws {
        var body: JSONObject = ["bundleID": .string(bundle), "iosVersion": "18.2"]
        if let user { body["userID"] = .string(user) }
        if let userToken { body["userToken"] = .string(userToken) }
        let d = try await i.client.call("PUT", "/v1/devices/\(i.id)", json: .object(body))
        #expect(d.status == 200 || d.status == 201, "\(d.json)")
        let token = try #require(f.simulator.app(bundle, on: phone)?.pushToStartTokens["FlightAttributes"])
        let t = try await i.client.call("PUT", "/v1/devices/\(i.id)/push-to-start/FlightAttributes", json: ["token": .string(token)])
        #expect(t.status == 201, "\(t.json)")
    }

    /// The victim (phone "victim", user ana, bound with the backend's token) and the attacker
    /// (phone "evil", its own installation).
    static func setUp(configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) async throws -> (ServiceFixture, victim: Installation, attacker: Installation, secret: String) {
        let f = try await ServiceFixture(phones: [("victim", "18.2"), ("evil", "18.2")], configure: configure)
        let secret = try await tokenSecret(f)
        let victim = try await install(f)
        try await register(f, victim, phone: "victim", user: "ana",
                           userToken: BackendTokens.userToken(userID: "ana", installationID: victim.id, bundleID: bundle, secret: secret))
        let attacker = try await install(f)
        try await register(f, attacker, phone: "evil")
        return (f, victim, attacker, secret)
    }

    /// Whether the simulator's `phone` shows the logical activity.
    static func shows(_ f: ServiceFixture, _ activityID: String, on phone: String) -> Bool { f.deviceActivity(activityID, on: phone) != nil }

    /// Starts `activityID` on the victim by user, and registers the victim's update token with its own credential.
    static func startOnVictim(_ f: ServiceFixture, _ victim: Installation, _ activityID: String) async throws {
        let r = try await f.admin.call("POST", "/v1/activities/\(activityID)/start", json: f.startBody(users: ["ana"]))
        #expect(r.status == 202, "\(r.json)")
        _ = try await f.settled(activityID)
        let token = try #require(f.deviceActivity(activityID, on: "victim")?.pushToken)
        let t = try await victim.client.call("PUT", "/v1/activities/\(activityID)/tokens/\(victim.id)", json: ["token": .string(token)])
        #expect(t.status == 201, "\(t.json)")
    }

    @Test("registering under another user's userID does not bring the user's push-to-start to the attacker's phone")
    func userHijack() async throws {
        let (f, _, attacker, _) = try await Self.setUp()
        defer { Task { await f.stop() } }
        // The app key itself can no longer write a device.
        let direct = try await f.app.call("PUT", "/v1/devices/evil", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userID": "ana"])
        #expect(direct.status == 403)
        #expect(direct.errorCode == "installation-required")
        // Without a token the userID stays unverified; a forged token is refused.
        let unverified = try await attacker.client.call("PUT", "/v1/devices/\(attacker.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userID": "ana"])
        #expect(unverified.status == 200)
        #expect(unverified.json["userVerified"] == false)
        let forged = BackendTokens.userToken(userID: "ana", installationID: attacker.id, bundleID: Self.bundle, secret: String(repeating: "x", count: 64))
        let refused = try await attacker.client.call("PUT", "/v1/devices/\(attacker.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userID": "ana", "userToken": .string(forged)])
        #expect(refused.status == 401)
        #expect(refused.errorCode == "invalid-user-token")
        // The backend starts for ana: only ana's verified phone gets it.
        let r = try await f.admin.call("POST", "/v1/activities/ana-flight/start", json: f.startBody(users: ["ana"]))
        #expect(r.status == 202, "\(r.json)")
        #expect(r.json["queued"] == 1)
        _ = try await f.settled("ana-flight")
        #expect(Self.shows(f, "ana-flight", on: "victim"))
        #expect(!Self.shows(f, "ana-flight", on: "evil"))
    }

    @Test("the attacker's update token cannot join another passenger's activity, nor squat a future id; its own namespace works")
    func activityHijackAndSquat() async throws {
        let (f, victim, attacker, secret) = try await Self.setUp()
        defer { Task { await f.stop() } }
        try await Self.startOnVictim(f, victim, "flight-ana")
        let evilToken = String(repeating: "ab", count: 32)
        let joined = try await attacker.client.call("PUT", "/v1/activities/flight-ana/tokens/\(attacker.id)", json: ["token": .string(evilToken)])
        let squat = try await attacker.client.call("PUT", "/v1/activities/flight-tomorrow/tokens/\(attacker.id)", json: ["token": .string(evilToken)])
        // Existing-but-forbidden and unknown ids answer alike.
        #expect(joined.status == 404)
        #expect(squat.status == 404)
        #expect(joined.errorCode == squat.errorCode)
        #expect(joined.errorMessage.replacingOccurrences(of: "flight-ana", with: "X") == squat.errorMessage.replacingOccurrences(of: "flight-tomorrow", with: "X"))
        // Through the path of the victim's device: the same 404.
        let victimPath = try await attacker.client.call("PUT", "/v1/activities/flight-ana/tokens/\(victim.id)", json: ["token": .string(evilToken)])
        #expect(victimPath.status == 404)
        // The backend's start of tomorrow's id is not blocked.
        let tomorrow = try await f.admin.call("POST", "/v1/activities/flight-tomorrow/start", json: f.startBody(users: ["ana"]))
        #expect(tomorrow.status == 202, "\(tomorrow.json)")
        // The victim's next update reaches only the victim.
        let u = try await f.admin.call("POST", "/v1/activities/flight-ana/update", json: ["contentState": ServiceFixture.state(gate: "PRIVATE-9")])
        #expect(u.status == 202)
        #expect(u.json["queued"] == 1, "\(u.json)")
        _ = try await f.settled("flight-ana")
        #expect(f.deviceActivity("flight-ana", on: "victim")?.contentState["gate"] == "PRIVATE-9")
        #expect(!Self.shows(f, "flight-ana", on: "evil"))
        // A grant signed by the backend lets an installation in; one for another installation does not.
        let grant = BackendTokens.activityGrant(activityID: "flight-shared", installationID: attacker.id, bundleID: Self.bundle, secret: secret)
        #expect(try await attacker.client.call("PUT", "/v1/activities/flight-shared/tokens/\(attacker.id)", json: ["token": .string(evilToken), "grant": .string(grant)]).status == 201)
        let stolen = try await victim.client.call("PUT", "/v1/activities/flight-shared/tokens/\(victim.id)", json: ["token": .string(evilToken), "grant": .string(grant)])
        #expect(stolen.status == 401)
        // App-started activities live under the installation's id; the backend cannot start there.
        let own = "\(attacker.id):workout-1"
        #expect(try await attacker.client.call("PUT", "/v1/activities/\(own)/tokens/\(attacker.id)", json: ["token": .string(evilToken), "attributesType": "FlightAttributes"]).status == 201)
        #expect(try await victim.client.call("PUT", "/v1/activities/\(own)/tokens/\(victim.id)", json: ["token": .string(evilToken)]).status == 404)
        let reserved = try await f.admin.call("POST", "/v1/activities/\(attacker.id):next/start", json: f.startBody(users: ["ana"]))
        #expect(reserved.status == 400)
        #expect(reserved.errorCode == "reserved-activity-id")
    }

    @Test("another device and its tokens cannot be rewritten or deleted; its deliveries cannot be marked displayed")
    func rewriteDeleteAndReceipts() async throws {
        let (f, victim, attacker, _) = try await Self.setUp()
        defer { Task { await f.stop() } }
        try await Self.startOnVictim(f, victim, "flight-v")
        let body: JSONValue = ["bundleID": .string(Self.bundle), "iosVersion": "16.4", "userID": "mallory"]
        let rewrite = try await attacker.client.call("PUT", "/v1/devices/\(victim.id)", json: body)
        let unknown = try await attacker.client.call("PUT", "/v1/devices/inst_000000000000000000000000", json: body)
        #expect(rewrite.status == 404)
        #expect(rewrite.json["error"]?["code"] == unknown.json["error"]?["code"])
        #expect(try await attacker.client.call("DELETE", "/v1/devices/\(victim.id)").status == 404)
        #expect(try await attacker.client.call("DELETE", "/v1/activities/flight-v/tokens/\(victim.id)").status == 404)
        #expect(try await attacker.client.call("PUT", "/v1/devices/\(victim.id)/push-to-start/FlightAttributes", json: ["token": .string(String(repeating: "cd", count: 32))]).status == 404)
        // With the app key: refused outright.
        #expect(try await f.app.call("DELETE", "/v1/devices/\(victim.id)").status == 403)
        #expect(try await f.app.call("DELETE", "/v1/activities/flight-v/tokens/\(victim.id)").status == 403)
        // The victim's device is as it registered it.
        let device = try await f.admin.call("GET", "/v1/devices/\(victim.id)")
        #expect(device.json["iosVersion"] == "18.2")
        #expect(device.json["userID"] == "ana")
        #expect(device.json["userVerified"] == true)
        // Receipts: the victim's deliveries stay undisplayed; the answers tell nothing.
        _ = try await f.admin.call("POST", "/v1/activities/flight-v/update", json: ["contentState": ServiceFixture.state(gate: "H8")])
        _ = try await f.settled("flight-v")
        let named = try await attacker.client.call("POST", "/v1/activities/flight-v/receipts", json: ["deviceID": .string(victim.id)])
        #expect(named.status == 400)
        let existing = try await attacker.client.call("POST", "/v1/activities/flight-v/receipts", json: [:])
        let missing = try await attacker.client.call("POST", "/v1/activities/flight-none/receipts", json: [:])
        #expect(existing.status == 404)
        #expect(missing.status == 404)
        #expect(existing.errorMessage.replacingOccurrences(of: "flight-v", with: "X") == missing.errorMessage.replacingOccurrences(of: "flight-none", with: "X"))
        #expect(try await f.app.call("POST", "/v1/activities/flight-v/receipts", json: ["deviceID": .string(victim.id)]).status == 403)
        let rows = try await f.settled("flight-v").json["deliveries"]?.arrayValue ?? []
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0["displayed"] != true })
        // The victim's own receipt works.
        #expect(try await victim.client.call("POST", "/v1/activities/flight-v/receipts", json: [:]).status == 200)
    }

    @Test("a tap cannot be attributed to another device nor posted on an activity the installation does not hold; payloads are capped")
    func taps() async throws {
        let (f, victim, attacker, _) = try await Self.setUp { $0.interactionPayloadBytes = 64 }
        defer { Task { await f.stop() } }
        try await Self.startOnVictim(f, victim, "flight-t")
        let spoofed = try await attacker.client.call("POST", "/v1/activities/flight-t/interactions", json: ["action": "cancel", "deviceID": .string(victim.id)], headers: ["Idempotency-Key": "t1"])
        #expect(spoofed.status == 400)
        let notHeld = try await attacker.client.call("POST", "/v1/activities/flight-t/interactions", json: ["action": "cancel"], headers: ["Idempotency-Key": "t2"])
        #expect(notHeld.status == 404)
        #expect(try await f.app.call("POST", "/v1/activities/flight-t/interactions", json: ["action": "cancel"], headers: ["Idempotency-Key": "t3"]).status == 403)
        #expect(try await f.admin.call("GET", "/v1/activities/flight-t/interactions").json["interactions"]?.arrayValue?.isEmpty == true)
        let big = try await victim.client.call("POST", "/v1/activities/flight-t/interactions", json: ["action": "note", "payload": .string(String(repeating: "z", count: 200))], headers: ["Idempotency-Key": "t4"])
        #expect(big.status == 413)
        let own = try await victim.client.call("POST", "/v1/activities/flight-t/interactions", json: ["action": "share-gate"], headers: ["Idempotency-Key": "t5"])
        #expect(own.status == 201, "\(own.json)")
        #expect(own.json["deviceID"] == .string(victim.id))
        // Paging: one row a page, the cursor leads on.
        let page = try await f.admin.call("GET", "/v1/activities/flight-t/interactions?limit=1")
        #expect(page.json["interactions"]?.arrayValue?.count == 1)
        let next = try #require(page.json["next"]?.stringValue)
        #expect(try await f.admin.call("GET", "/v1/activities/flight-t/interactions?limit=1&after=\(next)").json["interactions"]?.arrayValue?.isEmpty == true)
    }

    @Test("one client burning its budget does not make real installs get 429")
    func rateLimitIsolation() async throws {
        let f = try await ServiceFixture(phones: []) { c in
            c.trustedProxies = ["127.0.0.1"]
            c.addressRateLimit = 0.001
            c.addressRateBurst = 5
            c.installationRateLimit = 0.001
            c.installationRateBurst = 5
        }
        defer { Task { await f.stop() } }
        let attacker = ["X-Forwarded-For": "203.0.113.66"]
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2"], headers: attacker).status)
        }
        #expect(statuses.filter { $0 == 429 }.count >= 6, "\(statuses)")
        // Failed authentications from the attacker's address are limited too, without a lookup.
        var failures: [Int] = []
        for _ in 0..<40 { failures.append(try await f.app.call("GET", "/v1/apps", key: "ll_inst_" + String(repeating: "0", count: 40), headers: attacker).status) }
        #expect(failures.first == 401)
        #expect(failures.last == 429)
        // Twenty real installs, each from its own address: every one registers.
        var real: [Int] = []
        for n in 0..<20 {
            let i = try await Self.install(f, headers: ["X-Forwarded-For": "198.51.100.\(n + 1)"])
            real.append(try await i.client.call("PUT", "/v1/devices/\(i.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2"]).status)
        }
        #expect(real.allSatisfy { $0 == 200 }, "\(real)")
    }

    @Test("50 concurrent requests with one Idempotency-Key: one effect, no 5xx")
    func idempotencyUnderConcurrency() async throws {
        let f = try await ServiceFixture(phones: []) { $0.addressRateBurst = 1000 }
        defer { Task { await f.stop() } }
        try await Self.fiftyWithOneKey(f)
    }

    @Test("50 concurrent requests with one Idempotency-Key on PostgreSQL: one effect, no 5xx", .enabled(if: TestPostgres.isAvailable))
    func idempotencyUnderConcurrencyOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture(phones: []) { $0.addressRateBurst = 1000; $0.database = database.url() }
        do { try await Self.fiftyWithOneKey(f) } catch { await f.stop(); throw error }
        await f.stop()
    }

    static func fiftyWithOneKey(_ f: ServiceFixture) async throws {
        let body: JSONValue = ["bundleID": .string(Self.bundle), "iosVersion": "18.2"]
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<50 { group.addTask { try await f.app.call("POST", "/v1/installations", json: body, headers: ["Idempotency-Key": "one-install"]) } }
            return try await group.reduce(into: [Reply]()) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 201 }, "\(replies.map(\.status))")
        #expect(Set(replies.compactMap { $0.json["installationID"]?.stringValue }).count == 1)
        // Another credential's same key is its own request.
        let other = try await f.admin.call("POST", "/v1/installations", json: body, headers: ["Idempotency-Key": "one-install"])
        #expect(other.status == 201)
        #expect(other.json["installationID"] != replies[0].json["installationID"])
    }

    @Test("users: at most maxInstallationsPerUser installations bound; expired tokens refused")
    func userCap() async throws {
        let f = try await ServiceFixture(phones: []) { $0.maxInstallationsPerUser = 2 }
        defer { Task { await f.stop() } }
        let secret = try await Self.tokenSecret(f)
        var statuses: [Int] = []
        for _ in 0..<3 {
            let i = try await Self.install(f)
            let token = BackendTokens.userToken(userID: "ben", installationID: i.id, bundleID: Self.bundle, secret: secret)
            let r = try await i.client.call("PUT", "/v1/devices/\(i.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userID": "ben", "userToken": .string(token)])
            statuses.append(r.status)
            if r.status == 409 { #expect(r.errorCode == "user-installation-limit") }
        }
        #expect(statuses == [200, 200, 409])
        let i = try await Self.install(f)
        let expired = BackendTokens.userToken(userID: "cy", installationID: i.id, bundleID: Self.bundle, secret: secret, now: Date().addingTimeInterval(-7200))
        let late = try await i.client.call("PUT", "/v1/devices/\(i.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userToken": .string(expired)])
        #expect(late.status == 401)
        #expect(late.errorMessage.contains("expired"))
        let far = BackendTokens.userToken(userID: "cy", installationID: i.id, bundleID: Self.bundle, secret: secret, lifetime: 86_400)
        #expect(try await i.client.call("PUT", "/v1/devices/\(i.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "userToken": .string(far)]).status == 401)
    }

    @Test("listings page with ?limit= and ?after=: apps")
    func listingsPage() async throws {
        let f = try await ServiceFixture(phones: [])
        defer { Task { await f.stop() } }
        let second = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.zebra", "teamID": .string(f.teamID), "keyID": .string(f.keyID), "key": .string(f.keyPEM), "environment": "sandbox"])
        #expect(second.status == 201, "\(second.json)")
        let first = try await f.admin.call("GET", "/v1/apps?limit=1")
        #expect(first.json["apps"]?.arrayValue?.map { $0["bundleID"] } == [.string(Self.bundle)])
        let next = try #require(first.json["next"]?.stringValue)
        let rest = try await f.admin.call("GET", "/v1/apps?limit=1&after=\(next)")
        #expect(rest.json["apps"]?.arrayValue?.map { $0["bundleID"] } == ["com.example.zebra"])
        #expect(try await f.admin.call("GET", "/v1/apps?limit=0").status == 400)
    }

    @Test("a database of the previous version is migrated: its devices still receive pushes and claim installations with a token they hold")
    func migration() async throws {
        let directory = NSTemporaryDirectory() + "liveline-migration-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The previous version's schema (migrations 1 to 3) and a device it registered by app key.
        let path = directory + "/old.db"
        let old = try SQLiteDatabase(path: path)
        try old.migrate(Array(Migrations.sqlite.prefix(3)))
        old.close()
        let f = try await ServiceFixture(phones: [("old-phone", "18.2")]) { $0.database = path }
        defer { Task { await f.stop() } }
        let token = try #require(f.simulator.app(Self.bundle, on: "old-phone")?.pushToStartTokens["FlightAttributes"])
        // Written as the old version did (an app key set the userID, unverified now).
        _ = try f.server.store.write { tx in
            try tx.upsertDevice(DeviceRecord(deviceID: "old-phone", bundleID: Self.bundle, iosVersion: "18.2", userID: "dana", frequentUpdates: false, updatedAt: Date(), userVerified: false))
            try tx.setPushToStartToken(TokenRecord(scope: "FlightAttributes", deviceID: "old-phone", token: token, registeredAt: Date()))
        }
        let byDevice = try await f.admin.call("POST", "/v1/activities/old-1/start", json: f.startBody(devices: ["old-phone"]))
        #expect(byDevice.status == 202, "\(byDevice.json)")
        _ = try await f.settled("old-1")
        #expect(Self.shows(f, "old-1", on: "old-phone"))
        // Its unverified userID is not an audience until a user token binds it again.
        #expect(try await f.admin.call("POST", "/v1/activities/old-2/start", json: f.startBody(users: ["dana"])).status == 404)
        // The claim: a wrong token is refused; the token the device holds gives it its credential under its old id.
        let wrong = try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "claim": ["deviceID": "old-phone", "token": .string(String(repeating: "ef", count: 32))]])
        #expect(wrong.status == 403)
        let claimed = try await f.app.call("POST", "/v1/installations", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "claim": ["deviceID": "old-phone", "token": .string(token)]])
        #expect(claimed.status == 201, "\(claimed.json)")
        #expect(claimed.json["installationID"] == "old-phone")
        let credential = APIClient(baseURL: f.server.url, key: claimed.json["secret"]?.stringValue)
        let updateToken = try #require(f.deviceActivity("old-1", on: "old-phone")?.pushToken)
        #expect(try await credential.call("PUT", "/v1/activities/old-1/tokens/old-phone", json: ["token": .string(updateToken)]).status == 201)
        let u = try await f.admin.call("POST", "/v1/activities/old-1/update", json: ["contentState": ServiceFixture.state(gate: "M1")])
        #expect(u.json["queued"] == 1, "\(u.json)")
        _ = try await f.settled("old-1")
        #expect(f.deviceActivity("old-1", on: "old-phone")?.contentState["gate"] == "M1")
    }
}

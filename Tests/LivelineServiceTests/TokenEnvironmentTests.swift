import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting
import Testing

/// Token hygiene against a real service and the simulator (docs/service.md, "Token environments
/// and expiry"): each token's APNs environment is recorded, its pushes go to that environment's
/// host or are refused before APNs is asked, a `BadDeviceToken` keeps the token and marks it, and
/// push-to-start tokens the app stopped reporting are not used for starts.
@Suite("Token environments: recorded, routed, refused before APNs, kept on BadDeviceToken, expired when unseen")
struct TokenEnvironmentTests {
    static let bundle = ServiceFixture.bundle

    /// An iPhone whose app was built for `environment` (its tokens belong there), with the app installed.
    static func addPhone(_ f: ServiceFixture, _ id: String, _ environment: APNSEnvironment) throws {
        _ = f.simulator.addDevice(name: id, osVersion: "18.2", environment: environment, id: id)
        _ = try f.simulator.install(bundle, on: id, activityTypes: [.type(FlightAttributes.self)])
    }

    /// Registers the phone and its push-to-start token, with `environment` in the body unless nil.
    @discardableResult
    static func register(_ f: ServiceFixture, _ phone: String, environment: String?) async throws -> Reply {
        let d = try await f.admin.call("PUT", "/v1/devices/\(phone)", json: ["bundleID": .string(bundle), "iosVersion": "18.2"])
        #expect(d.status == 201 || d.status == 200, "device: \(d.json)")
        let token = try #require(f.simulator.app(bundle, on: phone)?.pushToStartTokens["FlightAttributes"])
        var body: JSONObject = ["token": .string(token)]
        if let environment { body["environment"] = .string(environment) }
        return try await f.admin.call("PUT", "/v1/devices/\(phone)/push-to-start/FlightAttributes", json: .object(body))
    }

    static func enableBoth(_ f: ServiceFixture) async throws {
        let r = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": .string(bundle), "teamID": .string(f.teamID), "keyID": .string(f.keyID),
                                                                  "key": .string(f.keyPEM), "environment": "sandbox", "environments": ["sandbox", "production"]])
        #expect(r.status == 200, "app: \(r.json)")
        #expect(r.json["environments"] == ["sandbox", "production"])
    }

    static func pushToStart(_ f: ServiceFixture, _ phone: String) async throws -> JSONValue {
        let device = try await f.admin.call("GET", "/v1/devices/\(phone)")
        #expect(device.status == 200, "\(device.json)")
        return try #require(device.json["pushToStartTokens"]?.arrayValue?.first, "no push-to-start token in \(device.json)")
    }

    static func deliveries(_ reply: Reply) -> [JSONValue] { reply.json["deliveries"]?.arrayValue ?? [] }

    @Test("registration: environment is exactly sandbox or production (400 naming both otherwise); absent means the app's default")
    func registrationField() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try Self.addPhone(f, "prod-phone", .production)
        for bad: JSONValue in ["Production", "development", "", 1] {
            let d = try await f.admin.call("PUT", "/v1/devices/prod-phone", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2"])
            #expect(d.status == 201 || d.status == 200)
            let token = try #require(f.simulator.app(Self.bundle, on: "prod-phone")?.pushToStartTokens["FlightAttributes"])
            let r = try await f.admin.call("PUT", "/v1/devices/prod-phone/push-to-start/FlightAttributes", json: ["token": .string(token), "environment": bad])
            #expect(r.status == 400, "\(bad): \(r.json)")
            #expect(r.json["error"]?["field"] == "environment")
            if bad.stringValue != nil { #expect(r.errorMessage.contains("\"sandbox\" or \"production\""), "\(r.errorMessage)") }
        }
        // Nothing was registered by the refused calls.
        #expect(try await f.admin.call("GET", "/v1/devices/prod-phone").json["pushToStartTokens"] == [])
        let absent = try await Self.register(f, "prod-phone", environment: nil)
        #expect(absent.status == 201)
        #expect(absent.json["environment"] == "sandbox")
        #expect(try await Self.pushToStart(f, "prod-phone")["environmentReported"] == false)
        let stated = try await Self.register(f, "prod-phone", environment: "production")
        #expect(stated.status == 200)
        #expect(stated.json["environment"] == "production")
        let shown = try await Self.pushToStart(f, "prod-phone")
        #expect(shown["environment"] == "production" && shown["environmentReported"] == true)
        // The app's environments are checked too.
        let app = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": .string(Self.bundle), "teamID": .string(f.teamID), "keyID": .string(f.keyID),
                                                                   "key": .string(f.keyPEM), "environment": "sandbox", "environments": ["production"]])
        #expect(app.status == 400 && app.errorMessage.contains("must include environment \"sandbox\""), "\(app.json)")
    }

    @Test("a production token of a sandbox-only app: refused before APNs is asked, the reason on its delivery and its state")
    func mismatchRefusedBeforeAPNs() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try Self.addPhone(f, "prod-phone", .production)
        #expect(try await Self.register(f, "prod-phone", environment: "production").status == 201)
        let token = try #require(f.simulator.app(Self.bundle, on: "prod-phone")?.pushToStartTokens["FlightAttributes"])
        let start = try await f.admin.call("POST", "/v1/activities/flight-mm/start", json: f.startBody(devices: ["prod-phone"]))
        #expect(start.status == 202, "\(start.json)")
        let settled = try await f.settled("flight-mm")
        let row = try #require(Self.deliveries(settled).first)
        #expect(row["state"] == "failed")
        let reason = row["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("token-environment-mismatch" + ":"), "\(reason)")
        #expect(reason.contains("production") && reason.contains("sends only in sandbox"), "\(reason)")
        #expect(row["status"] == nil, "APNs gave no status: it was not asked")
        #expect(!f.simulator.log().contains { $0.path.hasSuffix(token) }, "the simulator saw the push")
        let shown = try await Self.pushToStart(f, "prod-phone")
        #expect(shown["state"] == "mismatch")
    }

    @Test("an app with both environments: each token's push goes to its own environment's host, and both phones show the activity")
    func routedToMatchingHost() async throws {
        let f = try await ServiceFixture(productionHost: true)
        defer { Task { await f.stop() } }
        try Self.addPhone(f, "prod-phone", .production)
        try Self.addPhone(f, "dev-phone", .sandbox)
        try await Self.enableBoth(f)
        #expect(try await Self.register(f, "prod-phone", environment: "production").status == 201)
        #expect(try await Self.register(f, "dev-phone", environment: "sandbox").status == 201)
        let start = try await f.admin.call("POST", "/v1/activities/flight-both/start", json: f.startBody(devices: ["prod-phone", "dev-phone"]))
        #expect(start.status == 202, "\(start.json)")
        let settled = try await f.settled("flight-both")
        #expect(Self.deliveries(settled).map { $0["state"] } == ["sent", "sent"], "\(settled.json)")
        #expect(f.deviceActivity("flight-both", on: "prod-phone") != nil)
        #expect(f.deviceActivity("flight-both", on: "dev-phone") != nil)
    }

    @Test("BadDeviceToken from the sandbox host: the token is kept and marked (state refused, why), not used again until registered again; update tokens too")
    func badDeviceTokenKeptAndMarked() async throws {
        let f = try await ServiceFixture(productionHost: true)
        defer { Task { await f.stop() } }
        try await Self.badDeviceTokenFlow(f)
    }

    /// The BadDeviceToken flow on `f` (SQLite here, PostgreSQL in `TokenEnvironmentPostgresTests`).
    static func badDeviceTokenFlow(_ f: ServiceFixture) async throws {
        try Self.addPhone(f, "prod-phone", .production)
        // The build reported nothing: the app's default (sandbox) is assumed, and the sandbox host refuses the token.
        #expect(try await Self.register(f, "prod-phone", environment: nil).status == 201)
        _ = try await f.admin.call("POST", "/v1/activities/flight-bad/start", json: f.startBody(devices: ["prod-phone"]))
        let settled = try await f.settled("flight-bad")
        let row = try #require(Self.deliveries(settled).first)
        #expect(row["state"] == "failed" && row["status"] == 400, "\(row)")
        let reason = row["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("BadDeviceToken: " + "token-environment-refused"), "\(reason)")
        #expect(reason.contains("APNs' sandbox host refused this token") && reason.contains("the build probably uses the other environment (production)"), "\(reason)")
        // Kept, and the device's answer says why.
        let shown = try await Self.pushToStart(f, "prod-phone")
        #expect(shown["state"] == "refused", "\(shown)")
        #expect(shown["reason"]?.stringValue?.contains("APNs' sandbox host refused this token") == true)
        #expect(shown["refusedAt"] != nil)
        // Not used again: the next start is skipped with the reason, before APNs.
        let before = f.simulator.log().count
        let again = try await f.admin.call("POST", "/v1/activities/flight-bad-2/start", json: f.startBody(devices: ["prod-phone"]))
        #expect(again.status == 422 && again.errorCode == "no-target", "\(again.json)")
        #expect(again.json["error"]?["skipped"]?.arrayValue?.first?["reason"]?.stringValue?.hasPrefix("token-environment-refused") == true, "\(again.json)")
        #expect(f.simulator.log().count == before)

        // Registered again for production, with the app sending in both: it is used, and the start arrives.
        try await Self.enableBoth(f)
        #expect(try await Self.register(f, "prod-phone", environment: "production").status == 200)
        #expect(try await Self.pushToStart(f, "prod-phone")["state"] == "active")
        let third = try await f.admin.call("POST", "/v1/activities/flight-bad-3/start", json: f.startBody(devices: ["prod-phone"]))
        #expect(third.status == 202, "\(third.json)")
        #expect(Self.deliveries(try await f.settled("flight-bad-3")).first?["state"] == "sent")
        let update = try #require(f.deviceActivity("flight-bad-3", on: "prod-phone")?.pushToken)

        // Its update token registered without an environment (sandbox assumed): refused, kept, skipped afterwards.
        let put = try await f.admin.call("PUT", "/v1/activities/flight-bad-3/tokens/prod-phone", json: ["token": .string(update)])
        #expect(put.status == 201 && put.json["environment"] == "sandbox", "\(put.json)")
        let u1 = try await f.admin.call("POST", "/v1/activities/flight-bad-3/update", json: ["contentState": ServiceFixture.state(gate: "C1")])
        #expect(u1.status == 202, "\(u1.json)")
        let afterUpdate = try await f.settled("flight-bad-3")
        let updateRow = try #require(Self.deliveries(afterUpdate).first { $0["event"] == "update" })
        #expect(updateRow["reason"]?.stringValue?.hasPrefix("BadDeviceToken: token-environment-refused") == true, "\(updateRow)")
        let listed = try #require(afterUpdate.json["tokens"]?.arrayValue?.first)
        #expect(listed["state"] == "refused" && listed["environment"] == "sandbox", "\(listed)")
        let u2 = try await f.admin.call("POST", "/v1/activities/flight-bad-3/update", json: ["contentState": ServiceFixture.state(gate: "C2")])
        #expect(u2.status == 422 && u2.json["error"]?["skipped"]?.arrayValue?.first?["deviceID"] == "prod-phone", "\(u2.json)")
        // Registered again for production: updates reach the phone.
        let fixed = try await f.admin.call("PUT", "/v1/activities/flight-bad-3/tokens/prod-phone", json: ["token": .string(update), "environment": "production"])
        #expect(fixed.status == 200)
        let u3 = try await f.admin.call("POST", "/v1/activities/flight-bad-3/update", json: ["contentState": ServiceFixture.state(gate: "C3")])
        #expect(u3.status == 202 && u3.json["skipped"] == nil, "\(u3.json)")
        let final = try await f.settled("flight-bad-3")
        #expect(Self.deliveries(final).first { $0["sendID"] == u3.json["sendID"] }?["state"] == "sent", "\(final.json)")
        #expect(f.deviceActivity("flight-bad-3", on: "prod-phone")?.contentState["gate"] == "C3")
    }

    @Test("a push-to-start token unseen longer than pushToStartTokenMaxUnseen is skipped with the reason; reported again, it is used")
    func pushToStartExpiry() async throws {
        let f = try await ServiceFixture { $0.pushToStartTokenMaxUnseen = .seconds(86_400) }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        // Two days pass without the app reporting the token: the store is written while the service is stopped.
        await f.server.stop()
        let store = try openStore(database: f.configuration.database)
        let old = try #require(try store.write { try $0.pushToStartToken(deviceID: "phone-1", attributesType: "FlightAttributes") })
        var backdated = old
        backdated.registeredAt = Date().addingTimeInterval(-2 * 86_400)
        try store.write { try $0.setPushToStartToken(backdated) }
        store.close()
        f.server = try ServiceServer.start(f.configuration) { _ in }
        let admin = APIClient(baseURL: f.server.adminURL ?? f.server.url, key: f.admin.key)

        let skipped = try await admin.call("POST", "/v1/activities/flight-old/start", json: f.startBody(devices: ["phone-1"]))
        #expect(skipped.status == 422 && skipped.errorCode == "no-target", "\(skipped.json)")
        let reason = skipped.json["error"]?["skipped"]?.arrayValue?.first?["reason"]?.stringValue ?? ""
        #expect(reason.hasPrefix("push-to-start-token-expired" + ":") && reason.contains("more than 1 days ago"), "\(reason)")
        let device = try await admin.call("GET", "/v1/devices/phone-1")
        #expect(device.json["pushToStartTokens"]?.arrayValue?.first?["state"] == "expired", "\(device.json)")
        // The app reports the same token again: it is seen, and used.
        #expect(try await admin.call("PUT", "/v1/devices/phone-1/push-to-start/FlightAttributes", json: ["token": .string(old.token)]).status == 200)
        let started = try await admin.call("POST", "/v1/activities/flight-old/start", json: f.startBody(devices: ["phone-1"]))
        #expect(started.status == 202, "\(started.json)")
    }

    @Test("pushToStartTokenMaxUnseenDays: a setting with a range, 0 for never")
    func expirySetting() throws {
        var c = ServiceConfiguration()
        #expect(c.pushToStartTokenMaxUnseen == .seconds(30 * 86_400))
        try c.set("pushToStartTokenMaxUnseenDays", "0.5", source: "test")
        #expect(c.pushToStartTokenMaxUnseen == .seconds(43_200))
        try c.set("pushToStartTokenMaxUnseenDays", "0", source: "test")
        #expect(c.pushToStartTokenMaxUnseen == nil)
        #expect(throws: ServiceConfiguration.Problem.self) { try c.set("pushToStartTokenMaxUnseenDays", "-1", source: "test") }
        try c.apply(environment: ["LIVELINE_PUSH_TO_START_TOKEN_MAX_UNSEEN_DAYS": "2", "LIVELINE_APNS_PRODUCTION_HOST": "127.0.0.1:9"])
        #expect(c.pushToStartTokenMaxUnseen == .seconds(172_800) && c.apnsProductionHost == "127.0.0.1:9")
    }
}

@Suite("Token environments on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct TokenEnvironmentPostgresTests {
    @Test("on PostgreSQL: BadDeviceToken keeps the token marked and skipped; registered again for production it reaches the phone through the production host")
    func badDeviceTokenOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture(productionHost: true) { $0.database = database.url() }
        var failure: (any Error)?
        do { try await TokenEnvironmentTests.badDeviceTokenFlow(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }
}

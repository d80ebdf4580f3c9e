import Foundation
import LivelineCore
import LivelineService
import LivelineTesting
import LivelineUI
import Testing

/// Activity aliases (docs/from-voltra.md): Voltra's activity name and the phone's own ActivityKit
/// activity id reach the logical activity on every installation route; nobody holding only the app
/// key can point an alias at what it does not hold, or shadow a logical id.
@Suite("Service: Voltra's name and the phone's activity id resolve to the logical id; hostile aliases refused")
struct ServiceAliasTests {
    static let bundle = ServiceFixture.bundle

    static func voltraState(_ text: String) throws -> JSONValue {
        let layout = try JSONValue.parse(Array(#"{"lockScreen": {"type": "Text", "children": "\#(text)"}}"#.utf8))
        return .object(try VoltraPayload.contentState(layoutJSON: layout.serialized(), mode: .fanOut))
    }

    /// The whole flow on the store `configure` picks (SQLite by default).
    static func flow(_ configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        let f = try await ServiceFixture(configure: configure)
        var failure: (any Error)?
        do { try await run(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }

    static func run(_ f: ServiceFixture) async throws {
        let phone = try await TrustAttackTests.install(f)
        let pushToStart = try #require(f.simulator.app(bundle, on: "phone-1")?.pushToStartTokens["VoltraAttributes"])
        #expect(try await phone.client.call("PUT", "/v1/devices/\(phone.id)/push-to-start/VoltraAttributes", json: ["token": .string(pushToStart)]).status == 201)

        // The page's start, with Voltra's name other than the logical id.
        let started = try await f.admin.call("POST", "/v1/activities/ride-7/start", json: [
            "attributesType": "VoltraAttributes", "attributes": ["name": "some-name", "deepLinkUrl": "app://some-deep-link-url"],
            "contentState": try voltraState("Hello"), "alert": ["title": "Driver arrived", "body": "Ready for pickup"], "audience": ["deviceIDs": [.string(phone.id)]]])
        #expect(started.status == 202, "\(started.json)")
        _ = try await f.settled("ride-7")
        let device = try #require(f.deviceActivity("some-name", on: "phone-1"), "the start reached the phone")
        let deviceActivityID = device.id
        #expect(UUID(uuidString: deviceActivityID) != nil, "the simulated phone's Activity.id is a UUID: \(deviceActivityID)")
        let updateToken = try #require(device.pushToken)

        // activityTokenReceived as Voltra emits it: under the name, with the phone's own activity id.
        let registered = try await phone.client.call("PUT", "/v1/activities/some-name/tokens/\(phone.id)", json: [
            "token": .string(updateToken), "attributesType": "VoltraAttributes", "deviceActivityID": .string(deviceActivityID)])
        #expect(registered.status == 201, "\(registered.json)")
        #expect(registered.json["activityID"] == "ride-7", "the token is the logical activity's: \(registered.json)")
        // Again (a rotation or a replay): the same alias is kept, no conflict.
        #expect(try await phone.client.call("PUT", "/v1/activities/\(deviceActivityID)/tokens/\(phone.id)", json: [
            "token": .string(updateToken), "deviceActivityID": .string(deviceActivityID)]).status == 200)

        // An update by the logical id reaches the phone.
        let arrived = try voltraState("Driver arrived")
        let updated = try await f.admin.call("POST", "/v1/activities/ride-7/update", json: ["contentState": arrived])
        #expect(updated.status == 202, "\(updated.json)")
        let settled = try await f.settled("ride-7")
        #expect(settled.json["deliveries"]?.arrayValue?.allSatisfy { $0["state"] == "sent" } == true, "\(settled.json)")
        #expect(f.deviceActivity("some-name", on: "phone-1")?.contentState["uiJsonData"] == arrived["uiJsonData"], "the update reached the phone")

        // A tap reported under the phone's activity id lands under the logical id; a receipt and a decode failure too.
        let tap = try await phone.client.call("POST", "/v1/activities/\(deviceActivityID)/interactions", json: ["action": "tip"], headers: ["Idempotency-Key": "tap-1"])
        #expect(tap.status == 201, "\(tap.json)")
        #expect(tap.json["activityID"] == "ride-7", "\(tap.json)")
        let byName = try await phone.client.call("POST", "/v1/activities/some-name/interactions", json: ["action": "call"], headers: ["Idempotency-Key": "tap-2"])
        #expect(byName.status == 201, "\(byName.json)")
        let listed = try await f.admin.call("GET", "/v1/activities/ride-7/interactions")
        #expect(listed.json["interactions"]?.arrayValue?.compactMap { $0["action"]?.stringValue } == ["tip", "call"], "\(listed.json)")
        let receipt = try await phone.client.call("POST", "/v1/activities/\(deviceActivityID)/receipts", json: [:])
        #expect(receipt.status == 200, "\(receipt.json)")
        #expect(receipt.json["activityID"] == "ride-7", "\(receipt.json)")
        let decode = try await phone.client.call("POST", "/v1/activities/some-name/decode-failures", json: ["error": "keyNotFound(status)"])
        #expect(decode.status == 201, "\(decode.json)")
        #expect(decode.json["activityID"] == "ride-7", "\(decode.json)")
        // The backend sees both aliases in the activity's status, and its routes take the logical id only.
        let aliases = try await f.admin.call("GET", "/v1/activities/ride-7").json["aliases"]?.arrayValue ?? []
        #expect(Set(aliases.map { "\($0["kind"]?.stringValue ?? "")=\($0["alias"]?.stringValue ?? "")@\($0["deviceID"]?.stringValue ?? "-")" })
                == ["name=some-name@-", "device=\(deviceActivityID)@\(phone.id)"], "\(aliases)")
        #expect(try await f.admin.call("POST", "/v1/activities/some-name/update", json: ["contentState": arrived]).status == 404)

        // Another installation of the same app, holding only the app key.
        let mallory = try await TrustAttackTests.install(f)
        _ = try await mallory.client.call("PUT", "/v1/devices/\(mallory.id)", json: ["bundleID": .string(bundle), "iosVersion": "18.2"])
        for id in [deviceActivityID, "some-name"] {
            let stolenTap = try await mallory.client.call("POST", "/v1/activities/\(id)/interactions", json: ["action": "tip"], headers: ["Idempotency-Key": "m-\(id)"])
            #expect(stolenTap.status == 404, "another installation's alias or an activity it does not hold: \(stolenTap.json)")
            let stolenReceipt = try await mallory.client.call("POST", "/v1/activities/\(id)/receipts", json: [:])
            #expect(stolenReceipt.status == 404, "\(stolenReceipt.json)")
        }
        // It cannot attach an alias to an activity it does not hold...
        let notHeld = try await mallory.client.call("PUT", "/v1/activities/some-name/tokens/\(mallory.id)", json: [
            "token": .string(String(repeating: "cd", count: 32)), "deviceActivityID": .string(UUID().uuidString)])
        #expect(notHeld.status == 404, "\(notHeld.json)")
        // ...nor, from its own activity, take the victim's device alias, a logical id, or a name.
        let own = "\(mallory.id):own"
        func claim(_ alias: String) async throws -> Reply {
            try await mallory.client.call("PUT", "/v1/activities/\(own)/tokens/\(mallory.id)", json: [
                "token": .string(String(repeating: "ef", count: 32)), "deviceActivityID": .string(alias)])
        }
        let takeVictim = try await claim(deviceActivityID)
        #expect(takeVictim.status == 409, "\(takeVictim.json)")
        #expect(takeVictim.errorCode == "alias-taken")
        // A logical activity whose id looks like an Activity.id (the backend registered it).
        let logicalUUID = UUID().uuidString
        #expect(try await f.admin.call("PUT", "/v1/devices/phone-x", json: ["bundleID": .string(bundle), "iosVersion": "18.2"]).status == 201)
        #expect(try await f.admin.call("PUT", "/v1/activities/\(logicalUUID)/tokens/phone-x", json: ["token": .string(String(repeating: "12", count: 32))]).status == 201)
        let shadow = try await claim(logicalUUID)
        #expect(shadow.status == 409, "an alias never shadows a logical id: \(shadow.json)")
        for notAnActivityID in ["some-name", "ride-7"] {
            let r = try await claim(notAnActivityID)
            #expect(r.status == 400, "\(r.json)")
            #expect(r.json["error"]?["field"] == "deviceActivityID", "\(r.json)")
        }
        // Nothing of it took: the victim's alias still reaches ride-7, and mallory's own activity has no alias.
        let still = try await phone.client.call("POST", "/v1/activities/\(deviceActivityID)/interactions", json: ["action": "again"], headers: ["Idempotency-Key": "tap-3"])
        #expect(still.json["activityID"] == "ride-7", "\(still.json)")
        // Its own device alias works for it alone (201: the refused attempts left not even its activity behind).
        let mine = UUID().uuidString
        let claimed = try await claim(mine)
        #expect(claimed.status == 201, "\(claimed.json)")
        #expect(try await mallory.client.call("POST", "/v1/activities/\(mine)/interactions", json: ["action": "x"], headers: ["Idempotency-Key": "m-own"]).json["activityID"]?.stringValue == own)
        #expect(try await phone.client.call("POST", "/v1/activities/\(mine)/interactions", json: ["action": "x"], headers: ["Idempotency-Key": "p-m"]).status == 404)
        // A stream of made-up activity ids stops at a few per activity.
        for _ in 1..<4 { #expect(try await claim(UUID().uuidString).status == 200) }
        let flood = try await claim(UUID().uuidString)
        #expect(flood.status == 409, "\(flood.json)")
        #expect(flood.errorCode == "too-many-aliases", "\(flood.json)")
        #expect(try await claim(mine).status == 200, "one already attached is still taken")

        // Another app's installation resolves none of this app's aliases.
        #expect(try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.zebra", "teamID": .string(f.teamID), "keyID": .string(f.keyID), "key": .string(f.keyPEM), "environment": "sandbox"]).status == 201)
        let zebraKey = try #require(try await f.admin.call("POST", "/v1/keys", json: ["scope": "app", "bundleID": "com.example.zebra"]).json["key"]?.stringValue)
        let made = try await APIClient(baseURL: f.server.url, key: zebraKey).call("POST", "/v1/installations", json: ["bundleID": "com.example.zebra", "iosVersion": "18.2"])
        #expect(made.status == 201, "\(made.json)")
        let zebra = APIClient(baseURL: f.server.url, key: made.json["secret"]?.stringValue)
        for id in [deviceActivityID, "some-name", "ride-7"] {
            let r = try await zebra.call("POST", "/v1/activities/\(id)/interactions", json: ["action": "tip"], headers: ["Idempotency-Key": "z-\(id)"])
            #expect(r.status == 404, "another app: \(r.json)")
        }

        // Starts: a name already naming another activity, and an id that is another activity's alias, are 409.
        let sameName = try await f.admin.call("POST", "/v1/activities/ride-9/start", json: [
            "attributesType": "VoltraAttributes", "attributes": ["name": "some-name"],
            "contentState": try voltraState("Hi"), "alert": ["title": "t"], "audience": ["deviceIDs": [.string(phone.id)]]])
        #expect(sameName.status == 409, "\(sameName.json)")
        #expect(sameName.json["error"]?["field"] == "attributes.name", "\(sameName.json)")
        let aliasAsID = try await f.admin.call("POST", "/v1/activities/some-name/start", json: [
            "attributesType": "VoltraAttributes", "attributes": ["name": "some-name"],
            "contentState": try voltraState("Hi"), "alert": ["title": "t"], "audience": ["deviceIDs": [.string(phone.id)]]])
        #expect(aliasAsID.status == 409, "\(aliasAsID.json)")
        #expect(aliasAsID.errorCode == "alias-taken", "\(aliasAsID.json)")
        let namespaced = try await f.admin.call("POST", "/v1/activities/ride-10/start", json: [
            "attributesType": "VoltraAttributes", "attributes": ["name": .string("\(phone.id):mine")],
            "contentState": try voltraState("Hi"), "alert": ["title": "t"], "audience": ["deviceIDs": [.string(phone.id)]]])
        #expect(namespaced.status == 400, "\(namespaced.json)")
    }

    @Test("on SQLite: the name and the phone's activity id reach ride-7; another installation, another app and shadowing are refused")
    func onSQLite() async throws { try await Self.flow() }
}

@Suite("Activity aliases on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct ServiceAliasPostgresTests {
    @Test("the same flow on PostgreSQL")
    func onPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await ServiceAliasTests.flow { $0.database = database.url() }
    }
}

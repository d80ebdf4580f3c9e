import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting
import Testing

/// Older app builds still installed (docs/traps.md): devices report their app build and the
/// schema version of each attributes type; each send is checked against every version a targeted
/// device still runs, on a real service in front of the simulator, whose "old build" phone decodes
/// an older `ContentState` exactly as ActivityKit would (an unknown enum case fails, an undeclared key is ignored).
@Suite("Service: a push an older app build still installed cannot decode is refused or sent only where it decodes")
struct ServiceAppBuildsTests {
    /// Build 41's FlightAttributes: no `cancelled` status yet, and no `gate`.
    static let version1: JSONValue = [
        "attributes": ["flightNumber": "string", "origin": "string", "destination": "string", "airline": "string", "departure": "date", "livelineActivityID": "string?"],
        "contentState": ["status": ["enum": ["scheduled", "delayed", "boarding", "departed", "landed"]], "boardingTime": "date", "delayMinutes": "int", "isBoarding": "bool"],
    ]
    /// Build 52's: the service's own FlightAttributes (fields in another order: the same schema).
    static let version2: JSONValue = [
        "attributes": ["origin": "string", "flightNumber": "string", "destination": "string", "airline": "string", "departure": "date", "livelineActivityID": "string?"],
        "contentState": ["status": ["enum": ["scheduled", "delayed", "boarding", "departed", "landed", "cancelled"]], "gate": "string?", "boardingTime": "date",
                         "delayMinutes": "int", "isBoarding": "bool"],
    ]

    /// A service and two phones: `phone-old` runs build 41 (version 1 of FlightAttributes), `phone-new` build 52 (version 2).
    static func fixture(_ configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) async throws -> ServiceFixture {
        let f = try await ServiceFixture(phones: [("phone-old", "18.2"), ("phone-new", "18.2")], configure: configure)
        let old = try ActivitySchema(json: .object((version1.objectValue ?? [:]).merging(["name": "FlightAttributes"])))
        _ = try f.simulator.install(ServiceFixture.bundle, on: "phone-old", activityTypes: [.schema(old)])
        return f
    }

    /// The device registration an app sends, with its build and schema version.
    static func register(_ f: ServiceFixture, _ phone: String, build: String?, version: String?, ios: String = "18.2") async throws {
        var body: JSONObject = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": .string(ios)]
        if let build { body["appBuild"] = .string(build); body["appVersion"] = "1.4" }
        if let version { body["schemaVersions"] = ["FlightAttributes": .string(version)] }
        let d = try await f.admin.call("PUT", "/v1/devices/\(phone)", json: .object(body))
        #expect(d.status == 201 || d.status == 200, "\(d.json)")
        let token = try #require(f.simulator.app(ServiceFixture.bundle, on: phone)?.pushToStartTokens["FlightAttributes"])
        let t = try await f.admin.call("PUT", "/v1/devices/\(phone)/push-to-start/FlightAttributes", json: ["token": .string(token)])
        #expect(t.status == 201 || t.status == 200, "\(t.json)")
    }

    static func putVersion(_ f: ServiceFixture, _ version: String, _ schema: JSONValue) async throws -> Reply {
        try await f.admin.call("PUT", "/v1/schemas/FlightAttributes/versions/\(version)", json: schema)
    }

    /// What the simulator did with the push the service sent for `sendID` to `phone`.
    static func verdict(_ f: ServiceFixture, _ settled: Reply, sendID: Int, phone: String) -> PushRecord.Verdict? {
        let row = settled.json["deliveries"]?.arrayValue?.first { $0["sendID"]?.numberValue == Double(sendID) && $0["deviceID"]?.stringValue == phone }
        guard let apnsID = row?["apnsID"]?.stringValue else { return nil }
        return f.simulator.log().first { $0.apnsID == apnsID }?.verdict
    }

    static func updates(_ settled: Reply, sendID: Int) -> [String] {
        (settled.json["deliveries"]?.arrayValue ?? []).filter { $0["sendID"]?.numberValue == Double(sendID) }.compactMap { $0["deviceID"]?.stringValue }.sorted()
    }

    @Test("the trap: unchecked, the old build drops a status it does not know while APNs says 200; with its version registered the update is refused with 422 older-build-cannot-decode naming the device and build, and nothing is queued")
    func refusedNamingTheDevices() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.stop() } }
        try await Self.trap(f)
    }

    @Test("the same on PostgreSQL: refused with the devices named, nothing queued", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does"))
    func refusedOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await Self.fixture { $0.database = database.url() }
        var failure: (any Error)?
        do { try await Self.trap(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }

    static func trap(_ f: ServiceFixture) async throws {
        try await Self.register(f, "phone-old", build: "41", version: "1")
        try await Self.register(f, "phone-new", build: "52", version: "2")
        try await f.startAndRegister("flight-ob", phones: ["phone-old", "phone-new"])

        // No version registered yet: the service checks its own schema only, and the old build drops the update.
        let unchecked = try await f.admin.call("POST", "/v1/activities/flight-ob/update", json: ["contentState": ServiceFixture.state(gate: "C1", status: "delayed")])
        #expect(unchecked.status == 202 && unchecked.json["olderBuilds"] == nil, "\(unchecked.json)")
        _ = try await f.settled("flight-ob")  // sent before the next one, so that it is not superseded
        let cancelled = try await f.admin.call("POST", "/v1/activities/flight-ob/update", json: ["contentState": ServiceFixture.state(gate: "C1", status: "cancelled")])
        #expect(cancelled.status == 202, "\(cancelled.json)")
        let settled = try await f.settled("flight-ob")
        let sendID = try #require(cancelled.json["sendID"]?.numberValue.map(Int.init))
        guard case .dropped(.decodingFailed, let detail)? = Self.verdict(f, settled, sendID: sendID, phone: "phone-old") else {
            Issue.record("the old build did not drop the cancelled status: \(String(describing: Self.verdict(f, settled, sendID: sendID, phone: "phone-old")))")
            return
        }
        #expect(detail.contains("cancelled"), "\(detail)")
        #expect(f.deviceActivity("flight-ob", on: "phone-old")?.contentState["status"] == "delayed")
        #expect(f.deviceActivity("flight-ob", on: "phone-new")?.contentState["status"] == "cancelled")

        // The versions the builds decode, registered: version 1 is checked on every send to phone-old.
        let v1 = try await Self.putVersion(f, "1", Self.version1)
        #expect(v1.status == 201, "\(v1.json)")
        #expect(v1.json["devices"] == 1 && v1.json["builds"]?[0]?["appBuild"] == "41", "\(v1.json)")
        #expect(try await Self.putVersion(f, "2", Self.version2).status == 201)
        let refused = try await f.admin.call("POST", "/v1/activities/flight-ob/update", json: ["contentState": ServiceFixture.state(gate: "C2", status: "cancelled")])
        #expect(refused.status == 422, "\(refused.json)")
        #expect(refused.errorCode == "older-build-cannot-decode", "\(refused.json)")
        #expect(refused.errorMessage.contains("phone-old (build 41)") && refused.errorMessage.contains("version 1"), "\(refused.errorMessage)")
        #expect(refused.errorMessage.contains("\"olderBuilds\": \"skip\""), "\(refused.errorMessage)")
        #expect(refused.json["error"]?["count"] == 1, "\(refused.json)")
        #expect(refused.json["error"]?["devices"] == [["deviceID": "phone-old", "appBuild": "41", "schemaVersion": "1"]], "\(refused.json)")
        #expect(refused.json["error"]?["builds"] == [["appBuild": "41", "devices": 1]], "\(refused.json)")
        #expect(refused.json["error"]?["findings"]?[0]?["path"] == "aps.content-state.status", "\(refused.json)")
        let after = try await f.settled("flight-ob")
        #expect(after.json["deliveries"]?.arrayValue?.count == settled.json["deliveries"]?.arrayValue?.count, "nothing was queued: \(after.json)")

        // Content both builds decode goes, and the answer says what each version did with it (version 1 ignores gate).
        let fine = try await f.admin.call("POST", "/v1/activities/flight-ob/update", json: ["contentState": ServiceFixture.state(gate: "C3", status: "boarding")])
        #expect(fine.status == 202, "\(fine.json)")
        #expect(fine.json["queued"] == 2, "\(fine.json)")
        let checked = fine.json["olderBuilds"]?["checked"]?.arrayValue ?? []
        #expect(checked.map { $0["version"]?.stringValue ?? "" } == ["1", "2"], "\(fine.json)")
        #expect(checked.allSatisfy { $0["decodes"] == true && $0["devices"] == 1 }, "\(fine.json)")
        #expect(checked.first?["ignores"] == ["aps.content-state.gate"], "\(fine.json)")
    }

    @Test("olderBuilds: skip sends only where it decodes and names the rest; a push-to-start is checked the same way, attributes included")
    func skipped() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.stop() } }
        try await Self.register(f, "phone-old", build: "41", version: "1")
        try await Self.register(f, "phone-new", build: "52", version: "2")
        #expect(try await Self.putVersion(f, "1", Self.version1).status == 201)

        // A start with a status build 41 does not know: refused, then started on phone-new only.
        var start = f.startBody(devices: ["phone-old", "phone-new"]).objectValue ?? [:]
        start["contentState"] = ServiceFixture.state(status: "cancelled")
        let refused = try await f.admin.call("POST", "/v1/activities/flight-sk/start", json: .object(start))
        #expect(refused.status == 422 && refused.errorCode == "older-build-cannot-decode", "\(refused.json)")
        start["olderBuilds"] = "skip"
        let started = try await f.admin.call("POST", "/v1/activities/flight-sk/start", json: .object(start))
        #expect(started.status == 202, "\(started.json)")
        #expect(started.json["queued"] == 1, "\(started.json)")
        #expect(started.json["olderBuilds"]?["skippedDevices"] == [["deviceID": "phone-old", "appBuild": "41", "schemaVersion": "1"]], "\(started.json)")
        _ = try await f.settled("flight-sk")
        #expect(f.deviceActivity("flight-sk", on: "phone-new") != nil)
        #expect(f.deviceActivity("flight-sk", on: "phone-old") == nil, "the old build was not started")

        // Attributes are what the old build decodes too: a start whose attributes lack what version 1 requires is refused.
        let strict: JSONValue = ["attributes": ["flightNumber": "string", "origin": "string", "destination": "string", "airline": "string", "departure": "date", "terminal": "string"],
                                 "contentState": Self.version1["contentState"] ?? [:]]
        #expect(try await Self.putVersion(f, "0", strict).status == 201)
        try await Self.register(f, "phone-old", build: "40", version: "0")
        let noTerminal = try await f.admin.call("POST", "/v1/activities/flight-at/start", json: f.startBody(devices: ["phone-old"]))
        #expect(noTerminal.status == 422 && noTerminal.json["error"]?["field"] == "attributes", "\(noTerminal.json)")
        #expect(noTerminal.errorMessage.contains("every targeted device") == false && noTerminal.errorMessage.contains("phone-old (build 40)"), "\(noTerminal.errorMessage)")
        start["contentState"] = ServiceFixture.state(status: "scheduled")
        start["audience"] = ["deviceIDs": ["phone-old"]]
        let everyone = try await f.admin.call("POST", "/v1/activities/flight-at/start", json: .object(start))
        #expect(everyone.status == 422 && everyone.errorMessage.contains("every targeted device"), "skip leaves nobody: \(everyone.json)")

        // An update with skip: phone-new gets it, phone-old (back on build 41) gets nothing.
        try await Self.register(f, "phone-old", build: "41", version: "1")
        try await f.startAndRegister("flight-up", phones: ["phone-old", "phone-new"])
        let update = try await f.admin.call("POST", "/v1/activities/flight-up/update", json: ["contentState": ServiceFixture.state(status: "cancelled"), "olderBuilds": "skip"])
        #expect(update.status == 202, "\(update.json)")
        #expect(update.json["queued"] == 1 && update.json["olderBuilds"]?["skipped"] == 1, "\(update.json)")
        let settled = try await f.settled("flight-up")
        #expect(Self.updates(settled, sendID: Int(update.json["sendID"]?.numberValue ?? 0)) == ["phone-new"], "\(settled.json)")
        #expect(f.deviceActivity("flight-up", on: "phone-new")?.contentState["status"] == "cancelled")
        #expect(f.deviceActivity("flight-up", on: "phone-old")?.contentState["status"] == "scheduled")
        let bad = try await f.admin.call("POST", "/v1/activities/flight-up/update", json: ["contentState": ServiceFixture.state(), "olderBuilds": "some"])
        #expect(bad.status == 400 && bad.json["error"]?["field"] == "olderBuilds", "\(bad.json)")
    }

    @Test("a version no targeted device runs is not checked; retiring a version still installed is 409 unless forced, and a retired version is not checked")
    func retiredAndUpgraded() async throws {
        let f = try await Self.fixture()
        defer { Task { await f.stop() } }
        try await Self.register(f, "phone-old", build: "41", version: "1")
        try await Self.register(f, "phone-new", build: "52", version: "2")
        #expect(try await Self.putVersion(f, "1", Self.version1).status == 201)
        try await f.startAndRegister("flight-rt", phones: ["phone-new"])
        // phone-old holds no token of this activity: version 1 is not checked, and nothing is refused.
        let alone = try await f.admin.call("POST", "/v1/activities/flight-rt/update", json: ["contentState": ServiceFixture.state(status: "cancelled")])
        #expect(alone.status == 202 && alone.json["olderBuilds"] == nil, "\(alone.json)")

        let listed = try await f.admin.call("GET", "/v1/schemas")
        let flight = listed.json["types"]?.arrayValue?.first { $0["attributesType"] == "FlightAttributes" }
        #expect(flight?["versions"]?[0]?["version"] == "1" && flight?["versions"]?[0]?["devices"] == 1, "\(listed.json)")
        #expect(flight?["unregisteredVersions"] == [["version": "2", "devices": 1]], "\(listed.json)")

        let busy = try await f.admin.call("DELETE", "/v1/schemas/FlightAttributes/versions/1")
        #expect(busy.status == 409 && busy.errorCode == "version-still-installed", "\(busy.json)")
        #expect(busy.errorMessage.contains("1 device still runs version 1") && busy.errorMessage.contains("build 41"), "\(busy.errorMessage)")
        // The old phone upgrades: no device runs version 1 any more, so it retires without force.
        try await Self.register(f, "phone-old", build: "52", version: "2")
        let retired = try await f.admin.call("DELETE", "/v1/schemas/FlightAttributes/versions/1")
        #expect(retired.status == 200 && retired.json["retired"] == true && retired.json["changed"] == true, "\(retired.json)")
        let detail = try await f.admin.call("GET", "/v1/schemas/FlightAttributes")
        #expect(detail.json["versions"]?[0]?["retired"] == true && detail.json["versions"]?[0]?["schema"]?["contentState"] != nil, "\(detail.json)")
        // Registering it again restores it; a different schema under the same version is refused.
        let again = try await Self.putVersion(f, "1", Self.version1)
        #expect(again.status == 200 && again.json["restored"] == true && again.json["retired"] == false, "\(again.json)")
        var changed = Self.version1.objectValue ?? [:]
        changed["contentState"] = ["status": "string"]
        let conflict = try await Self.putVersion(f, "1", .object(changed))
        #expect(conflict.status == 409 && conflict.errorMessage.contains("new version"), "\(conflict.json)")
        // Forced while a device runs it: then sends are not checked against it.
        try await Self.register(f, "phone-old", build: "41", version: "1")
        #expect(try await f.admin.call("DELETE", "/v1/schemas/FlightAttributes/versions/1?force=true").status == 200)
        try await f.startAndRegister("flight-rt2", phones: ["phone-old"])
        let unchecked = try await f.admin.call("POST", "/v1/activities/flight-rt2/update", json: ["contentState": ServiceFixture.state(status: "cancelled")])
        #expect(unchecked.status == 202 && unchecked.json["olderBuilds"] == nil, "\(unchecked.json)")
    }

    @Test("an iOS 18 phone on the old build follows the activity's channel: it is checked though it holds no update token, and cannot be skipped")
    func channelFollower() async throws {
        let f = try await ServiceFixture(phones: [("phone-old", "18.2"), ("phone-17", "17.5")])
        defer { Task { await f.stop() } }
        let old = try ActivitySchema(json: .object((Self.version1.objectValue ?? [:]).merging(["name": "FlightAttributes"])))
        _ = try f.simulator.install(ServiceFixture.bundle, on: "phone-old", activityTypes: [.schema(old)])
        try await Self.register(f, "phone-old", build: "41", version: "1")
        try await Self.register(f, "phone-17", build: "52", version: "2", ios: "17.5")
        #expect(try await Self.putVersion(f, "1", Self.version1).status == 201)
        let channel = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(ServiceFixture.bundle)])
        var start = f.startBody(devices: ["phone-old", "phone-17"]).objectValue ?? [:]
        start["channelID"] = .string(try #require(channel.json["channelID"]?.stringValue))
        let started = try await f.admin.call("POST", "/v1/activities/flight-ch/start", json: .object(start))
        #expect(started.status == 202 && started.json["queued"] == 2, "\(started.json)")
        let settledStart = try await f.settled("flight-ch")
        #expect(f.deviceActivity("flight-ch", on: "phone-old")?.channelID != nil, "the old phone follows the channel")
        let token = try #require(f.deviceActivity("flight-ch", on: "phone-17")?.pushToken, "\(settledStart.json)")
        #expect(try await f.admin.call("PUT", "/v1/activities/flight-ch/tokens/phone-17", json: ["token": .string(token)]).status == 201)

        let fine = try await f.admin.call("POST", "/v1/activities/flight-ch/update", json: ["contentState": ServiceFixture.state(status: "boarding")])
        #expect(fine.status == 202 && fine.json["olderBuilds"]?["checked"] == [["version": "1", "devices": 1, "decodes": true, "ignores": ["aps.content-state.gate"]]], "\(fine.json)")
        let skip = try await f.admin.call("POST", "/v1/activities/flight-ch/update", json: ["contentState": ServiceFixture.state(status: "cancelled"), "olderBuilds": "skip"])
        #expect(skip.status == 422 && skip.errorCode == "older-build-cannot-decode", "\(skip.json)")
        #expect(skip.errorMessage.contains("through its channel"), "\(skip.errorMessage)")
        #expect(skip.json["error"]?["devices"] == [["deviceID": "phone-old", "appBuild": "41", "schemaVersion": "1"]], "\(skip.json)")
    }

    @Test("registration: build fields are validated with 400s naming the field, shown on the device, and cleared when left out")
    func registrationFields() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let base: JSONObject = ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"]
        let bad: [(String, JSONValue, String)] = [
            ("appBuild", .string(String(repeating: "1", count: 65)), "appBuild"),
            ("appBuild", "52 beta", "appBuild"),
            ("appBuild", 52, "appBuild"),
            ("appVersion", "1.4/2", "appVersion"),
            ("schemaVersions", ["FlightAttributes"], "schemaVersions"),
            ("schemaVersions", ["Flight Attributes": "1"], "schemaVersions"),
            ("schemaVersions", ["FlightAttributes": 3], "schemaVersions.FlightAttributes"),
            ("schemaVersions", ["FlightAttributes": ""], "schemaVersions.FlightAttributes"),
        ]
        for (key, value, field) in bad {
            var body = base
            body[key] = value
            let r = try await f.admin.call("PUT", "/v1/devices/phone-1", json: .object(body))
            #expect(r.status == 400 && r.json["error"]?["field"]?.stringValue == field, "\(key)=\(value.jsonString): \(r.json)")
        }
        #expect(try await f.admin.call("GET", "/v1/devices/phone-1").status == 404, "no bad registration stored the device")
        var good = base
        good["appBuild"] = "1.4.52"
        good["appVersion"] = "1.4"
        good["schemaVersions"] = ["FlightAttributes": "2", "VoltraAttributes": "v1"]
        let put = try await f.admin.call("PUT", "/v1/devices/phone-1", json: .object(good))
        #expect(put.status == 201 && put.json["appBuild"] == "1.4.52", "\(put.json)")
        let got = try await f.admin.call("GET", "/v1/devices/phone-1")
        #expect(got.json["appBuild"] == "1.4.52" && got.json["appVersion"] == "1.4", "\(got.json)")
        #expect(got.json["schemaVersions"] == ["FlightAttributes": "2", "VoltraAttributes": "v1"], "\(got.json)")
        #expect(try await f.admin.call("PUT", "/v1/devices/phone-1", json: .object(base)).status == 200)
        let cleared = try await f.admin.call("GET", "/v1/devices/phone-1")
        #expect(cleared.json["appBuild"] == nil && cleared.json["schemaVersions"] == nil, "PUT replaces: \(cleared.json)")
    }

    @Test("the schema API: unknown types, malformed schemas and bad versions are refused by name; a key of some apps cannot change versions")
    func schemaAPIInputs() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        let unknown = try await f.admin.call("PUT", "/v1/schemas/ScoreAttributes/versions/1", json: Self.version1)
        #expect(unknown.status == 404 && unknown.errorCode == "unknown-attributes-type", "\(unknown.json)")
        let malformed = try await f.admin.call("PUT", "/v1/schemas/FlightAttributes/versions/1", json: ["contentState": ["status": "strnig"]])
        #expect(malformed.status == 400 && malformed.errorCode == "invalid-schema" && malformed.errorMessage.contains("strnig"), "\(malformed.json)")
        let named = try await f.admin.call("PUT", "/v1/schemas/FlightAttributes/versions/1", json: ["name": "Other", "contentState": ["status": "string"]])
        #expect(named.status == 400 && named.json["error"]?["field"] == "name", "\(named.json)")
        let version = try await f.admin.call("PUT", "/v1/schemas/FlightAttributes/versions/1:2", json: Self.version1)
        #expect(version.status == 400 && version.json["error"]?["field"] == "version", "\(version.json)")
        let missing = try await f.admin.call("DELETE", "/v1/schemas/FlightAttributes/versions/9")
        #expect(missing.status == 404, "\(missing.json)")
        let force = try await f.admin.call("DELETE", "/v1/schemas/FlightAttributes/versions/9?force=yes")
        #expect(force.status == 400 && force.json["error"]?["field"] == "force", "\(force.json)")
        let some = try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "apps": [.string(ServiceFixture.bundle)]])
        let limited = APIClient(baseURL: f.admin.baseURL, key: some.json["key"]?.stringValue)
        let forbidden = try await limited.call("PUT", "/v1/schemas/FlightAttributes/versions/1", json: Self.version1)
        #expect(forbidden.status == 403, "\(forbidden.json)")
        #expect(try await limited.call("GET", "/v1/schemas").status == 403, "device counts span every app")
        #expect(try await f.app.call("GET", "/v1/schemas").status == 403, "an app key reads no schema versions")
        #expect(try await f.admin.call("GET", "/v1/schemas/FlightAttributes").json["versions"] == [], "nothing was stored")
    }
}

extension JSONObject {
    func merging(_ other: JSONObject) -> JSONObject {
        var out = self
        for member in other { out[member.key] = member.value }
        return out
    }
}

extension JSONValue {
    /// An array's element, or nil.
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let items = arrayValue, items.indices.contains(index) else { return nil }
        return items[index]
    }
}

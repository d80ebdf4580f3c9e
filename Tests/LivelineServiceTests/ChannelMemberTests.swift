import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineTesting
import Testing

/// App-started channel activities reachable (docs/security.md, "Channels bound to activities"): the
/// backend binds a channel to a logical id, an iOS 18 phone starts an activity itself on that channel
/// (`pushType: .channel`), its installation reports it, and `update`/`end` by the logical id reach
/// it. Every hostile report is refused with the answer an unknown activity gets, and changes nothing.
@Suite("Service: app-started channel activities, bound by the backend, reported by installations")
struct ChannelMemberTests {
    static let bundle = ServiceFixture.bundle

    /// Starts FlightAttributes on `phone` as the app would itself (Swift values: the simulator decodes
    /// as ActivityKit does), naming the logical id it was given, following `channelID`.
    @discardableResult
    static func appStart(_ f: ServiceFixture, on phone: String, _ activityID: String, channelID: String) throws -> ActivitySnapshot {
        let departure = Date(timeIntervalSince1970: 1_764_612_000)
        return try f.simulator.startActivity(on: phone, bundleID: bundle,
                                             attributes: FlightAttributes(flightNumber: "LL 1234", origin: "LIS", destination: "ZRH", airline: "Liveline Air",
                                                                          departure: departure, livelineActivityID: activityID),
                                             contentState: FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: departure.addingTimeInterval(-2400)),
                                             pushMode: .channel(channelID))
    }

    /// An installation of the app registered as an iOS `ios` device (no push-to-start needed).
    static func installed(_ f: ServiceFixture, ios: String = "18.2") async throws -> TrustAttackTests.Installation {
        let i = try await TrustAttackTests.install(f, ios: ios)
        let d = try await i.client.call("PUT", "/v1/devices/\(i.id)", json: ["bundleID": .string(bundle), "iosVersion": .string(ios)])
        #expect(d.status == 201 || d.status == 200, "\(d.json)")
        return i
    }

    /// The 404 of an unknown activity, with the id taken out: every refused report must read the same.
    static func hidden(_ r: Reply, _ id: String) -> String {
        "\(r.status) \(r.errorCode ?? "-") \(r.errorMessage.replacingOccurrences(of: id, with: "<id>")) \(r.json["error"]?["field"]?.stringValue ?? "-")"
    }

    static func flow(_ configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        let f = try await ServiceFixture(phones: [("fan", "18.2"), ("evil", "18.2")], configure: configure)
        var failure: (any Error)?
        do { try await run(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }

    static func run(_ f: ServiceFixture) async throws {
        let secret = try await TrustAttackTests.tokenSecret(f)
        // The backend makes a channel for the logical activity "match-1".
        let made = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(bundle), "activityID": "match-1", "attributesType": "FlightAttributes", "storagePolicy": 1])
        #expect(made.status == 201, "\(made.json)")
        let channelID = try #require(made.json["channelID"]?.stringValue, "\(made.json)")
        #expect(made.json["channel"]?["activityID"] == "match-1", "\(made.json)")

        // The fan's app starts the activity itself on that channel (iOS 18): no update token, ever.
        let fan = try await installed(f)
        let started = try appStart(f, on: "fan", "match-1", channelID: channelID)
        #expect(started.pushToken == nil && started.channelID == channelID)

        // Without a grant it does not hold match-1: the one answer of an unknown activity.
        let unknown = try await fan.client.call("PUT", "/v1/activities/match-404/channel-members/\(fan.id)", json: ["channelID": .string(channelID)])
        #expect(unknown.status == 404, "\(unknown.json)")
        let ungranted = try await fan.client.call("PUT", "/v1/activities/match-1/channel-members/\(fan.id)", json: ["channelID": .string(channelID)])
        #expect(hidden(ungranted, "match-1") == hidden(unknown, "match-404"), "\(ungranted.json)")

        // With the backend's grant it is a member; a second report keeps when it joined.
        let grant = BackendTokens.activityGrant(activityID: "match-1", installationID: fan.id, bundleID: bundle, secret: secret)
        let member = try await fan.client.call("PUT", "/v1/activities/match-1/channel-members/\(fan.id)", json: [
            "channelID": .string(channelID), "grant": .string(grant), "deviceActivityID": .string(started.id)])
        #expect(member.status == 201, "\(member.json)")
        let again = try await fan.client.call("PUT", "/v1/activities/\(started.id)/channel-members/\(fan.id)", json: ["channelID": .string(channelID)])
        #expect(again.status == 200, "a member holds it; the phone's own id resolves: \(again.json)")
        #expect(again.json["joinedAt"] == member.json["joinedAt"] && again.json["activityID"] == "match-1", "\(again.json)")

        // The backend's update and end by the logical id reach the app-started activity.
        let update = try await f.admin.call("POST", "/v1/activities/match-1/update", json: ["contentState": ServiceFixture.state(gate: "C7", status: "delayed")])
        #expect(update.status == 202, "\(update.json)")
        let settled = try await f.settled("match-1")
        #expect(settled.json["deliveries"]?.arrayValue?.map { "\($0["target"]?.stringValue ?? "")/\($0["state"]?.stringValue ?? "")" } == ["channel/sent"], "\(settled.json)")
        #expect(f.deviceActivity("match-1", on: "fan")?.contentState["gate"] == "C7", "the app-started activity shows the update")
        let status = try #require(settled.json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == fan.id }, "the member is in the status: \(settled.json)")
        #expect(status["state"] == "active" && status["reachable"] == true && status["channelID"]?.stringValue == channelID && status["startedBy"] == "app", "\(status)")

        // --- Hostile installations (the app key is public) ---
        let evil = try await installed(f)
        // 1. No grant, the right channel: refused as unknown.
        let noGrant = try await evil.client.call("PUT", "/v1/activities/match-1/channel-members/\(evil.id)", json: ["channelID": .string(channelID)])
        #expect(hidden(noGrant, "match-1") == hidden(unknown, "match-404"), "\(noGrant.json)")
        // 2. Another installation's id in the path.
        let other = try await evil.client.call("PUT", "/v1/activities/match-1/channel-members/\(fan.id)", json: ["channelID": .string(channelID), "grant": .string(grant)])
        #expect(other.status == 404 && other.errorCode == "unknown-device", "\(other.json)")
        // 3. Redirect: an activity of one user (token-based, granted to evil) onto the shared channel.
        #expect(try await f.admin.call("PUT", "/v1/devices/phone-x", json: ["bundleID": .string(bundle), "iosVersion": "17.5"]).status == 201)
        #expect(try await f.admin.call("PUT", "/v1/activities/flight-ana/tokens/phone-x", json: ["token": .string(String(repeating: "ab", count: 32)), "attributesType": "FlightAttributes"]).status == 201)
        let anaGrant = BackendTokens.activityGrant(activityID: "flight-ana", installationID: evil.id, bundleID: bundle, secret: secret)
        let redirect = try await evil.client.call("PUT", "/v1/activities/flight-ana/channel-members/\(evil.id)", json: ["channelID": .string(channelID), "grant": .string(anaGrant)])
        #expect(hidden(redirect, "flight-ana") == hidden(unknown, "match-404"), "\(redirect.json)")
        let ana = try await f.admin.call("GET", "/v1/activities/flight-ana")
        #expect(ana.json["channelID"] == nil || ana.json["channelID"] == .null, "the report bound nothing: \(ana.json)")
        let anaUpdate = try await f.admin.call("POST", "/v1/activities/flight-ana/update", json: ["contentState": ServiceFixture.state(gate: "Z9")])
        #expect(anaUpdate.status == 202 && anaUpdate.json["queued"] == 1, "\(anaUpdate.json)")
        let anaRows = try await f.settled("flight-ana").json["deliveries"]?.arrayValue ?? []
        #expect(!anaRows.contains { $0["target"] == "channel" }, "ana's content never goes on the shared channel: \(anaRows)")
        #expect(f.deviceActivity("match-1", on: "fan")?.contentState["gate"] == "C7", "the fan's activity never saw ana's update")
        // 4. A channel of the app that is not match-1's.
        let loose = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(bundle)])
        let looseID = try #require(loose.json["channelID"]?.stringValue, "\(loose.json)")
        let evilGrant = BackendTokens.activityGrant(activityID: "match-1", installationID: evil.id, bundleID: bundle, secret: secret)
        let wrongChannel = try await evil.client.call("PUT", "/v1/activities/match-1/channel-members/\(evil.id)", json: ["channelID": .string(looseID), "grant": .string(evilGrant)])
        #expect(hidden(wrongChannel, "match-1") == hidden(unknown, "match-404"), "\(wrongChannel.json)")
        // 5. Another app's channel and activity.
        #expect(try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.zebra", "teamID": .string(f.teamID), "keyID": .string(f.keyID), "key": .string(f.keyPEM), "environment": "sandbox"]).status == 201)
        _ = try f.simulator.install("com.example.zebra", on: "evil", teamID: f.teamID)
        let zebra = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": "com.example.zebra", "activityID": "zebra-match"])
        let zebraChannel = try #require(zebra.json["channelID"]?.stringValue, "\(zebra.json)")
        let zebraGrant = BackendTokens.activityGrant(activityID: "zebra-match", installationID: evil.id, bundleID: bundle, secret: secret)
        let otherApp = try await evil.client.call("PUT", "/v1/activities/zebra-match/channel-members/\(evil.id)", json: ["channelID": .string(zebraChannel), "grant": .string(zebraGrant)])
        #expect(hidden(otherApp, "zebra-match") == hidden(unknown, "match-404"), "\(otherApp.json)")
        let otherChannel = try await evil.client.call("PUT", "/v1/activities/match-1/channel-members/\(evil.id)", json: ["channelID": .string(zebraChannel), "grant": .string(evilGrant)])
        #expect(hidden(otherChannel, "match-1") == hidden(unknown, "match-404"), "\(otherChannel.json)")
        // 6. A forged grant (signed with another secret) is refused, not a membership.
        let forged = BackendTokens.activityGrant(activityID: "match-1", installationID: evil.id, bundleID: bundle, secret: String(repeating: "x", count: 40))
        let forgedAnswer = try await evil.client.call("PUT", "/v1/activities/match-1/channel-members/\(evil.id)", json: ["channelID": .string(channelID), "grant": .string(forged)])
        #expect(forgedAnswer.status == 401, "\(forgedAnswer.json)")
        // Nothing of it took: the only member of match-1 is the fan.
        let after = try await f.admin.call("GET", "/v1/activities/match-1")
        #expect(after.json["devices"]?.arrayValue?.compactMap { $0["deviceID"]?.stringValue } == [fan.id], "\(after.json)")
        // 7. An iOS 17 phone follows no channel, even granted.
        let old = try await installed(f, ios: "17.5")
        let oldGrant = BackendTokens.activityGrant(activityID: "match-1", installationID: old.id, bundleID: bundle, secret: secret)
        let oldAnswer = try await old.client.call("PUT", "/v1/activities/match-1/channel-members/\(old.id)", json: ["channelID": .string(channelID), "grant": .string(oldGrant)])
        #expect(oldAnswer.status == 422 && oldAnswer.errorCode == "channel-unsupported", "\(oldAnswer.json)")

        // Binding: the installations' namespace, a running activity and another app's channel are refused.
        let reserved = try await f.admin.call("PUT", "/v1/activities/\(fan.id):mine/channel", json: ["channelID": .string(looseID)])
        #expect(reserved.status == 400 && reserved.errorCode == "reserved-activity-id", "\(reserved.json)")
        let running = try await f.admin.call("PUT", "/v1/activities/flight-ana/channel", json: ["channelID": .string(looseID)])
        #expect(running.status == 409, "a running activity keeps what its phones follow: \(running.json)")
        let zebraOnly = try #require(try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "apps": ["com.example.zebra"]]).json["key"]?.stringValue)
        let crossApp = try await APIClient(baseURL: f.server.url, key: zebraOnly).call("PUT", "/v1/activities/zebra-2/channel", json: ["channelID": .string(looseID)])
        #expect(crossApp.status == 404 && crossApp.errorCode == "unknown-channel", "\(crossApp.json)")
        let bound = try await f.admin.call("PUT", "/v1/activities/match-2/channel", json: ["channelID": .string(looseID)])
        #expect(bound.status == 201 && bound.json["channelID"]?.stringValue == looseID, "\(bound.json)")
        #expect(try await f.admin.call("PUT", "/v1/activities/match-2/channel", json: ["channelID": .string(looseID)]).status == 200, "the same binding again")

        // The end by the logical id reaches the phone; the member leaves with DELETE.
        let end = try await f.admin.call("POST", "/v1/activities/match-1/end", json: ["contentState": ServiceFixture.state(gate: "C7", status: "landed"), "dismissImmediately": true])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("match-1")
        let ended = try #require(f.deviceActivity("match-1", on: "fan"))
        #expect(ended.state != .active && ended.contentState["status"] == "landed", "the app-started activity ended: \(ended)")
        #expect(try await fan.client.call("DELETE", "/v1/activities/match-1/channel-members/\(fan.id)").status == 200)
        #expect(try await fan.client.call("DELETE", "/v1/activities/match-1/channel-members/\(fan.id)").status == 404)
    }

    @Test("on SQLite: an app-started channel activity is updated and ended by logical id; hostile reports refused as unknown")
    func onSQLite() async throws { try await Self.flow() }

    /// A bound activity with the fan as its member.
    static func member(_ f: ServiceFixture, phone: String = "fan") async throws -> (TrustAttackTests.Installation, String) {
        let secret = try await TrustAttackTests.tokenSecret(f)
        let made = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(bundle), "activityID": "match-b", "attributesType": "FlightAttributes"])
        let channelID = try #require(made.json["channelID"]?.stringValue, "\(made.json)")
        let fan = try await installed(f)
        try appStart(f, on: phone, "match-b", channelID: channelID)
        let grant = BackendTokens.activityGrant(activityID: "match-b", installationID: fan.id, bundleID: bundle, secret: secret)
        let r = try await fan.client.call("PUT", "/v1/activities/match-b/channel-members/\(fan.id)", json: ["channelID": .string(channelID), "grant": .string(grant)])
        #expect(r.status == 201, "\(r.json)")
        return (fan, channelID)
    }

    @Test("a member's budget lowers a broadcast it would throttle")
    func budget() async throws { try await Self.budgetFlow() }

    static func budgetFlow(_ configure: @escaping (inout ServiceConfiguration) -> Void = { _ in }) async throws {
        let f = try await ServiceFixture(phones: [("fan", "18.2")]) { configure(&$0); $0.immediateBudgetPerHour = 2; $0.frequentImmediateBudgetPerHour = 2 }
        defer { Task { await f.stop() } }
        let (fan, _) = try await Self.member(f)
        var priorities: [Double] = []
        for gate in ["A1", "A2", "A3"] {
            let r = try await f.admin.call("POST", "/v1/activities/match-b/update", json: ["contentState": ServiceFixture.state(gate: gate), "priority": 10])
            #expect(r.status == 202, "\(r.json)")
            _ = try await f.settled("match-b")
            let rows = try await f.admin.call("GET", "/v1/activities/match-b").json["deliveries"]?.arrayValue ?? []
            priorities.append(rows.first { $0["sendID"] == r.json["sendID"] }?["priority"]?.numberValue ?? -1)
            if gate == "A3" {
                #expect(r.json["downgraded"] == 1, "\(r.json)")
                #expect(r.json["warnings"]?.arrayValue?.contains { $0["code"] == "broadcast-over-budget" && ($0["message"]?.stringValue ?? "").contains(fan.id) } == true, "\(r.json)")
            }
        }
        #expect(priorities == [10, 10, 5], "the third broadcast goes at 5: the member spent its 2: \(priorities)")
        #expect(f.deviceActivity("match-b", on: "fan")?.contentState["gate"] == "A3", "and it still shows")
    }

    @Test("a member on an older build is counted by the older-build check and cannot be skipped")
    func olderBuilds() async throws {
        let f = try await ServiceFixture(phones: [("fan", "18.2")])
        defer { Task { await f.stop() } }
        #expect(try await ServiceAppBuildsTests.putVersion(f, "1", ServiceAppBuildsTests.version1).status == 201)
        #expect(try await ServiceAppBuildsTests.putVersion(f, "2", ServiceAppBuildsTests.version2).status == 201)
        let (fan, _) = try await Self.member(f)
        let d = try await fan.client.call("PUT", "/v1/devices/\(fan.id)", json: ["bundleID": .string(Self.bundle), "iosVersion": "18.2", "appBuild": "41", "schemaVersions": ["FlightAttributes": "1"]])
        #expect(d.status == 200, "\(d.json)")
        let cancelled = try await f.admin.call("POST", "/v1/activities/match-b/update", json: ["contentState": ServiceFixture.state(status: "cancelled")])
        #expect(cancelled.status == 422 && cancelled.errorCode == "older-build-cannot-decode", "\(cancelled.json)")
        #expect(cancelled.json["error"]?["devices"]?.arrayValue?.first?["deviceID"]?.stringValue == fan.id, "\(cancelled.json)")
        let skipped = try await f.admin.call("POST", "/v1/activities/match-b/update", json: ["contentState": ServiceFixture.state(status: "cancelled"), "olderBuilds": "skip"])
        #expect(skipped.status == 422, "a channel member cannot be left out of a broadcast: \(skipped.json)")
        let fine = try await f.admin.call("POST", "/v1/activities/match-b/update", json: ["contentState": ServiceFixture.state(status: "delayed")])
        #expect(fine.status == 202, "\(fine.json)")
    }
}

@Suite("App-started channel activities on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct ChannelMemberPostgresTests {
    @Test("the same flow on PostgreSQL")
    func onPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await ChannelMemberTests.flow { $0.database = database.url() }
    }

    @Test("a member's budget on PostgreSQL")
    func budgetOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await ChannelMemberTests.budgetFlow { $0.database = database.url() }
    }
}

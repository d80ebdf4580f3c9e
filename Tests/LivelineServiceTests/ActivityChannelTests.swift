import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineTesting
import Testing

/// Every push-started iOS 18 activity reachable: a channel of its own, created on demand, reused,
/// recreated on ChannelNotRegistered, deleted after the end and a grace, and the per-app limit guarded.
@Suite("Service: on-demand channels of logical activities")
struct ActivityChannelTests {
    static func channels(_ f: ServiceFixture) -> Int { Int(f.simulator.statusJSON()["channels"]?.numberValue ?? -1) }
    /// The service's channels of the app (a channel id is base64 and may hold a "/": listed, not fetched by path).
    static func listed(_ f: ServiceFixture) async throws -> [JSONValue] {
        try await f.admin.call("GET", "/v1/channels?bundleID=\(ServiceFixture.bundle)").json["channels"]?.arrayValue ?? []
    }

    @Test("an iOS 18 phone that never delivers an update token is started without a channelID, then updated and ended by logical id")
    func reachableWithoutUpdateToken() async throws {
        let f = try await ServiceFixture(phones: [("p18", "18.2")])
        defer { Task { await f.stop() } }
        try f.simulator.setModes(DeviceModes(withholdsUpdateTokens: true), on: "p18")
        try await f.register("p18")
        let start = try await f.admin.call("POST", "/v1/activities/flight-18/start", json: f.startBody(devices: ["p18"], channel: nil))
        #expect(start.status == 202, "\(start.json)")
        let channelID = try #require(start.json["activityChannel"]?["channelID"]?.stringValue, "\(start.json)")
        #expect(start.json["activityChannel"]?["created"] == true)
        #expect(start.json["activityChannel"]?["storagePolicy"] == 1, "a careful sender's default: the phone offline at an update gets it later")
        #expect(Self.channels(f) == 1, "the channel was created in APNs")
        _ = try await f.settled("flight-18")
        let shown = try #require(f.deviceActivity("flight-18", on: "p18"), "the push-to-start showed")
        #expect(shown.pushToken == nil, "the phone never issues an update token")
        #expect(shown.channelID == channelID, "started with input-push-channel")

        let update = try await f.admin.call("POST", "/v1/activities/flight-18/update", json: ["contentState": ServiceFixture.state(gate: "C7", status: "delayed")])
        #expect(update.status == 202, "no update token, yet the update has a way: \(update.json)")
        #expect(update.json["queued"] == 1)
        _ = try await f.settled("flight-18")
        #expect(f.deviceActivity("flight-18", on: "p18")?.contentState["gate"] == "C7", "the phone shows the update")

        let end = try await f.admin.call("POST", "/v1/activities/flight-18/end", json: ["contentState": ServiceFixture.state(gate: "C7", status: "landed"), "dismissImmediately": true])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("flight-18")
        let ended = try #require(f.deviceActivity("flight-18", on: "p18"))
        #expect(ended.state != .active, "the phone shows the end")
        #expect(ended.contentState["status"] == "landed")
    }

    @Test("a phone added to a running activity follows the channel the activity already has")
    func addedPhoneFollowsTheChannel() async throws {
        let f = try await ServiceFixture(phones: [("p1", "18.2"), ("p2", "18.2")])
        defer { Task { await f.stop() } }
        for p in ["p1", "p2"] {
            try f.simulator.setModes(DeviceModes(withholdsUpdateTokens: true), on: p)
            try await f.register(p)
        }
        let first = try await f.admin.call("POST", "/v1/activities/flight-2p/start", json: f.startBody(devices: ["p1"], channel: nil))
        let channelID = try #require(first.json["activityChannel"]?["channelID"]?.stringValue, "\(first.json)")
        _ = try await f.settled("flight-2p")
        let second = try await f.admin.call("POST", "/v1/activities/flight-2p/start", json: f.startBody(devices: ["p1", "p2"], channel: nil))
        #expect(second.status == 202, "\(second.json)")
        #expect(second.json["activityChannel"]?["channelID"]?.stringValue == channelID && second.json["activityChannel"]?["created"] == false, "\(second.json)")
        #expect(second.json["queued"] == 1, "p1 holds it already: \(second.json)")
        _ = try await f.settled("flight-2p")
        #expect(f.deviceActivity("flight-2p", on: "p2")?.channelID == channelID)
        #expect(Self.channels(f) == 1)
        #expect(try await f.admin.call("POST", "/v1/activities/flight-2p/update", json: ["contentState": ServiceFixture.state(gate: "G2")]).status == 202)
        _ = try await f.settled("flight-2p")
        #expect(f.deviceActivity("flight-2p", on: "p1")?.contentState["gate"] == "G2")
        #expect(f.deviceActivity("flight-2p", on: "p2")?.contentState["gate"] == "G2", "both phones, neither with an update token, show the update")
    }

    @Test("the opt-out keeps the token path; bad channel choices are refused, naming the field")
    func optOutAndBadInput() async throws {
        let f = try await ServiceFixture(phones: [("p18", "18.2")])
        defer { Task { await f.stop() } }
        try f.simulator.setModes(DeviceModes(withholdsUpdateTokens: true), on: "p18")
        try await f.register("p18")
        for (field, value) in [("channel", JSONValue.string("sometimes")), ("channel", .number(1)), ("channelStoragePolicy", .number(2)), ("channelStoragePolicy", .string("1"))] {
            var body = f.startBody(devices: ["p18"], channel: nil).objectValue!
            body[field] = value
            let r = try await f.admin.call("POST", "/v1/activities/flight-x/start", json: .object(body))
            #expect(r.status == 400, "\(field)=\(value): \(r.json)")
            #expect(r.json["error"]?["field"]?.stringValue == field, "\(r.json)")
        }
        var both = f.startBody(devices: ["p18"], channel: nil).objectValue!
        both["channel"] = "none"
        both["channelStoragePolicy"] = 0
        #expect(try await f.admin.call("POST", "/v1/activities/flight-x/start", json: .object(both)).json["error"]?["field"] == "channelStoragePolicy")
        #expect(Self.channels(f) == 0, "nothing refused made a channel")
        // A start refused after its channel was made (no alert) takes the channel back with it.
        var noAlert = f.startBody(devices: ["p18"], channel: nil).objectValue!
        noAlert["alert"] = nil
        let refused = try await f.admin.call("POST", "/v1/activities/flight-x/start", json: .object(noAlert))
        #expect(refused.status == 400 && refused.json["error"]?["field"] == "alert", "\(refused.json)")
        #expect(Self.channels(f) == 0, "the channel made for the refused start was deleted in APNs")
        #expect(try await Self.listed(f).isEmpty, "and in the service")

        var none = f.startBody(devices: ["p18"], channel: nil).objectValue!
        none["channel"] = "none"
        let start = try await f.admin.call("POST", "/v1/activities/flight-x/start", json: .object(none))
        #expect(start.status == 202, "\(start.json)")
        #expect(start.json["activityChannel"] == nil)
        #expect(Self.channels(f) == 0)
        _ = try await f.settled("flight-x")
        #expect(f.deviceActivity("flight-x", on: "p18")?.channelID == nil)
        // Without a channel, and without the token that never came, an update has nowhere to go.
        #expect(try await f.admin.call("POST", "/v1/activities/flight-x/update", json: ["contentState": ServiceFixture.state(gate: "A1")]).status == 422)
    }

    @Test("a no-storage channel on request; reused when the activity starts again; deleted after the end and the grace")
    func reusedThenDeleted() async throws {
        let f = try await ServiceFixture(phones: [("p18", "18.2")]) { $0.activityChannelGrace = .seconds(2) }
        defer { Task { await f.stop() } }
        try await f.register("p18")
        var body = f.startBody(devices: ["p18"], channel: nil).objectValue!
        body["channelStoragePolicy"] = 0
        let first = try await f.admin.call("POST", "/v1/activities/flight-r/start", json: .object(body))
        let channelID = try #require(first.json["activityChannel"]?["channelID"]?.stringValue, "\(first.json)")
        #expect(first.json["activityChannel"]?["storagePolicy"] == 0)
        let record = try await Self.listed(f)
        #expect(record.count == 1 && record.first?["channelID"]?.stringValue == channelID && record.first?["storagePolicy"] == 0 && record.first?["activityID"] == "flight-r", "\(record)")
        _ = try await f.settled("flight-r")
        // A no-storage channel takes broadcasts with apns-expiration 0: the update is sent.
        _ = try await f.admin.call("POST", "/v1/activities/flight-r/update", json: ["contentState": ServiceFixture.state(gate: "E2")])
        let updated = try await f.settled("flight-r")
        #expect(updated.json["deliveries"]?.arrayValue?.first { $0["target"] == "channel" }?["state"] == "sent", "\(updated.json)")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-r/end", json: ["dismissImmediately": true]).status == 202)
        // Started again within the grace: the same channel, not a new one.
        var restart = f.startBody(devices: ["p18"], channel: nil).objectValue!
        restart["restart"] = true
        let again = try await f.admin.call("POST", "/v1/activities/flight-r/start", json: .object(restart))
        #expect(again.status == 202, "\(again.json)")
        #expect(again.json["activityChannel"]?["channelID"]?.stringValue == channelID)
        #expect(again.json["activityChannel"]?["created"] == false)
        #expect(Self.channels(f) == 1)
        _ = try await f.settled("flight-r")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-r/end", json: ["dismissImmediately": true]).status == 202)
        try await until("the ended activity's channel to be deleted in APNs", within: .seconds(20)) {
            Self.channels(f) == 0
        }
        // The service forgets it once APNs has answered the delete: a moment after the simulator did.
        try await until("the service to forget the deleted channel", within: .seconds(10), poll: .milliseconds(50)) {
            try await Self.listed(f).isEmpty
        }
    }

    @Test("ChannelNotRegistered for an activity's channel: a new channel is created, the activity bound to it, and the push sent again")
    func recreatedOnChannelNotRegistered() async throws {
        let f = try await ServiceFixture(phones: [("p18", "18.2")])
        defer { Task { await f.stop() } }
        try await f.register("p18")
        let start = try await f.admin.call("POST", "/v1/activities/flight-n/start", json: f.startBody(devices: ["p18"], channel: nil))
        let old = try #require(start.json["activityChannel"]?["channelID"]?.stringValue, "\(start.json)")
        _ = try await f.settled("flight-n")
        f.simulator.inject(FaultRule(.respond(.channelNotRegistered), scope: .channel(old), limit: 1))
        #expect(try await f.admin.call("POST", "/v1/activities/flight-n/update", json: ["contentState": ServiceFixture.state(gate: "F9")]).status == 202)
        let settled = try await f.settled("flight-n")
        let rows = settled.json["deliveries"]?.arrayValue?.filter { $0["target"] == "channel" } ?? []
        let lost = try #require(rows.first { $0["token"]?.stringValue == old }, "\(settled.json)")
        #expect(lost["state"] == "failed")
        #expect(lost["reason"]?.stringValue?.contains("created again") == true, "\(lost)")
        let resent = try #require(rows.first { $0["token"]?.stringValue != old }, "the push went again on a new channel: \(settled.json)")
        #expect(resent["state"] == "sent", "APNs took it on the new channel: \(resent)")
        let new = try #require(resent["token"]?.stringValue)
        #expect(Self.channels(f) == 2, "the new channel was created in APNs")
        let listed = try await Self.listed(f)
        #expect(listed.compactMap { $0["channelID"]?.stringValue } == [new], "the activity's channel is the new one, the lost one forgotten: \(listed)")
        #expect(listed.first?["activityID"] == "flight-n", "listed as the activity's own")
        // The next update goes to the new channel.
        _ = try await f.admin.call("POST", "/v1/activities/flight-n/update", json: ["contentState": ServiceFixture.state(gate: "F10")])
        let next = try await f.settled("flight-n")
        #expect(next.json["deliveries"]?.arrayValue?.filter { $0["target"] == "channel" && $0["state"] == "sent" && $0["token"]?.stringValue == new }.count == 2)
    }

    @Test("the per-app channel limit: a new activity's channel is refused before APNs is asked, an activity's own channel is reused")
    func limitGuarded() async throws {
        let f = try await ServiceFixture(phones: [("p18", "18.2")]) { $0.channelLimit = 1 }
        defer { Task { await f.stop() } }
        try await f.register("p18")
        let a = try await f.admin.call("POST", "/v1/activities/flight-a/start", json: f.startBody(devices: ["p18"], channel: nil))
        #expect(a.status == 202, "\(a.json)")
        _ = try await f.settled("flight-a")
        let b = try await f.admin.call("POST", "/v1/activities/flight-b/start", json: f.startBody(devices: ["p18"], channel: nil))
        #expect(b.status == 409, "\(b.json)")
        #expect(b.errorCode == "channel-limit")
        #expect(b.errorMessage.contains("limit of 1") && b.errorMessage.contains("flight-b") && b.errorMessage.contains("\"channel\": \"none\""), "\(b.errorMessage)")
        #expect(Self.channels(f) == 1, "APNs was not asked")
        #expect(try await f.admin.call("GET", "/v1/activities/flight-b").status == 404, "nothing was started")
        // POST /v1/channels keeps the same limit.
        #expect(try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(ServiceFixture.bundle)]).errorCode == "channel-limit")
        // At the limit, flight-a started again reuses its own channel.
        #expect(try await f.admin.call("POST", "/v1/activities/flight-a/end", json: ["dismissImmediately": true]).status == 202)
        _ = try await f.settled("flight-a")
        var restart = f.startBody(devices: ["p18"], channel: nil).objectValue!
        restart["restart"] = true
        let again = try await f.admin.call("POST", "/v1/activities/flight-a/start", json: .object(restart))
        #expect(again.status == 202, "\(again.json)")
        #expect(again.json["activityChannel"]?["created"] == false)
    }
}

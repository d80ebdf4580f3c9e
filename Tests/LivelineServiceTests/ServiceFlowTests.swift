import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import Testing

@Suite("Service: the flight tracker's flow over HTTP")
struct ServiceFlowTests {
    @Test("start by push-to-start, register the update token, update and end reach the phone")
    func fullFlow() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1", user: "ana")
        let start = try await f.admin.call("POST", "/v1/activities/flight-LL1234/start", json: f.startBody(users: ["ana"]))
        #expect(start.status == 202, "\(start.json)")
        #expect(start.json["queued"] == 1)
        let afterStart = try await f.settled("flight-LL1234")
        #expect(afterStart.json["final"] == true)
        #expect(afterStart.json["deliveries"]?.arrayValue?.first?["state"] == "sent")
        // The phone started the activity and can read the logical id from its attributes.
        let activity = try #require(f.deviceActivity("flight-LL1234", on: "phone-1"))
        #expect(activity.state == .active)
        let token = try #require(activity.pushToken)
        // ISO dates in the API became reference-date seconds on the device.
        #expect(activity.contentState["boardingTime"] == .number(ISO8601DateFormatter().date(from: "2026-12-01T17:20:00Z")!.timeIntervalSinceReferenceDate))
        #expect(activity.attributes["departure"]?.numberValue == ISO8601DateFormatter().date(from: "2026-12-01T18:00:00Z")!.timeIntervalSinceReferenceDate)

        let reg = try await f.admin.call("PUT", "/v1/activities/flight-LL1234/tokens/phone-1", json: ["token": .string(token)])
        #expect(reg.status == 201)
        #expect(reg.json["token"]?.stringValue == String(token.prefix(8)) + "…")

        let update = try await f.admin.call("POST", "/v1/activities/flight-LL1234/update", json: ["contentState": ServiceFixture.state(gate: "C7", status: "delayed"), "alert": ["title": "Gate change"]])
        #expect(update.status == 202, "\(update.json)")
        let settled = try await f.settled("flight-LL1234")
        #expect(settled.json["counts"]?["sent"] == 2)
        #expect(f.deviceActivity("flight-LL1234", on: "phone-1")?.contentState["gate"] == "C7")

        let end = try await f.admin.call("POST", "/v1/activities/flight-LL1234/end", json: ["contentState": ServiceFixture.state(gate: "C7", status: "landed"), "dismissImmediately": true])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("flight-LL1234")
        #expect(f.deviceActivity("flight-LL1234", on: "phone-1")?.state != .active)
        // Nothing more can be sent to an ended activity.
        let late = try await f.admin.call("POST", "/v1/activities/flight-LL1234/update", json: ["contentState": ServiceFixture.state()])
        #expect(late.status == 409)
        #expect(late.errorMessage.contains("has ended"))
        // Started again after its end only when the start says so (StartOnceTests), and then it no
        // longer holds the old run's update token.
        let plain = try await f.admin.call("POST", "/v1/activities/flight-LL1234/start", json: f.startBody(users: ["ana"]))
        #expect(plain.status == 409 && plain.errorCode == "already-ended", "\(plain.json)")
        var restart = f.startBody(users: ["ana"]).objectValue ?? [:]
        restart["restart"] = true
        let again = try await f.admin.call("POST", "/v1/activities/flight-LL1234/start", json: .object(restart))
        #expect(again.status == 202, "\(again.json)")
        #expect(try await f.settled("flight-LL1234").json["tokens"]?.arrayValue?.isEmpty == true)
    }

    @Test("an iOS 18 phone follows the activity's channel, an iOS 17 phone gets per-token pushes")
    func channelAndFallback() async throws {
        let f = try await ServiceFixture(phones: [("new-phone", "18.2"), ("old-phone", "17.5")])
        defer { Task { await f.stop() } }
        try await f.register("new-phone", ios: "18.2", user: "ana")
        try await f.register("old-phone", ios: "17.5", user: "ben")
        let channel = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(ServiceFixture.bundle)])
        #expect(channel.status == 201, "\(channel.json)")
        let channelID = try #require(channel.json["channelID"]?.stringValue)
        var body = f.startBody(users: ["ana", "ben"]).objectValue!
        body["channelID"] = .string(channelID)
        let start = try await f.admin.call("POST", "/v1/activities/flight-1/start", json: .object(body))
        #expect(start.status == 202, "\(start.json)")
        _ = try await f.settled("flight-1")
        #expect(f.deviceActivity("flight-1", on: "new-phone")?.channelID == channelID)
        let oldToken = try #require(f.deviceActivity("flight-1", on: "old-phone")?.pushToken)
        _ = try await f.admin.call("PUT", "/v1/activities/flight-1/tokens/old-phone", json: ["token": .string(oldToken)])

        let update = try await f.admin.call("POST", "/v1/activities/flight-1/update", json: ["contentState": ServiceFixture.state(gate: "D4")])
        #expect(update.status == 202, "\(update.json)")
        #expect(update.json["queued"] == 2)  // one broadcast + one token
        let settled = try await f.settled("flight-1")
        let targets = settled.json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" }.compactMap { $0["target"]?.stringValue }.sorted()
        #expect(targets == ["channel", "token"])
        #expect(f.deviceActivity("flight-1", on: "new-phone")?.contentState["gate"] == "D4")
        #expect(f.deviceActivity("flight-1", on: "old-phone")?.contentState["gate"] == "D4")
    }

    @Test("a dead token is pruned; a 410 older than the token's registration keeps it")
    func pruning() async throws {
        let f = try await ServiceFixture(phones: [("phone-1", "18.2"), ("phone-2", "18.2")])
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.register("phone-2")
        try await f.startAndRegister("flight-2", phones: ["phone-1", "phone-2"])
        // The user dismisses the activity on phone-2: APNs answers 410 Unregistered for its token.
        let dismissed = try #require(f.deviceActivity("flight-2", on: "phone-2"))
        try f.simulator.dismissByUser(dismissed.id)
        let update = try await f.admin.call("POST", "/v1/activities/flight-2/update", json: ["contentState": ServiceFixture.state(gate: "A1")])
        #expect(update.status == 202)
        let settled = try await f.settled("flight-2")
        let rows = settled.json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" } ?? []
        #expect(rows.first { $0["deviceID"] == "phone-2" }?["state"] == "pruned")
        #expect(rows.first { $0["deviceID"] == "phone-1" }?["state"] == "sent")
        #expect(settled.json["tokens"]?.arrayValue?.map { $0["deviceID"] } == ["phone-1"])
    }

    @Test("a 503 from APNs is retried with backoff until it is sent")
    func retries() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-3", phones: ["phone-1"])
        f.simulator.inject(FaultRule(.respond(.serviceUnavailable), limit: 2))
        let update = try await f.admin.call("POST", "/v1/activities/flight-3/update", json: ["contentState": ServiceFixture.state(gate: "E5")])
        #expect(update.status == 202)
        let settled = try await f.settled("flight-3")
        let row = try #require(settled.json["deliveries"]?.arrayValue?.first { $0["event"] == "update" })
        #expect(row["state"] == "sent")
        #expect(row["attempts"] == 3)
        #expect(f.deviceActivity("flight-3", on: "phone-1")?.contentState["gate"] == "E5")
    }

    @Test("priority 10 beyond the hourly budget goes out as 5, with the reason recorded")
    func priorityBudget() async throws {
        let f = try await ServiceFixture { $0.immediateBudgetPerHour = 1 }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-4", phones: ["phone-1"])
        for gate in ["A1", "A2"] {
            // Priority 10 asked for: without it, an update with no alert goes at 5 (ServiceBudgetTests).
            let r = try await f.admin.call("POST", "/v1/activities/flight-4/update", json: ["contentState": ServiceFixture.state(gate: gate), "priority": 10])
            #expect(r.status == 202)
            _ = try await f.settled("flight-4")
        }
        let rows = try await f.settled("flight-4").json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" } ?? []
        #expect(rows.map { $0["priority"] } == [5, 10])  // newest first
        #expect(rows.first?["note"]?.stringValue?.contains("1 of 1 priority-10 pushes") == true)
    }

    @Test("a start beyond the device's push-to-start budget is refused and nothing is sent")
    func startBudget() async throws {
        let f = try await ServiceFixture { $0.startBudget = 1 }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        #expect(try await f.admin.call("POST", "/v1/activities/a-1/start", json: f.startBody(devices: ["phone-1"])).status == 202)
        let second = try await f.admin.call("POST", "/v1/activities/a-2/start", json: f.startBody(devices: ["phone-1"]))
        #expect(second.status == 429)
        #expect(second.errorCode == "start-budget-exceeded")
        #expect(second.errorMessage.contains("phone-1"))
        #expect(try await f.admin.call("GET", "/v1/activities/a-2").status == 404)
    }

    @Test("a repeated Idempotency-Key returns the first answer and sends once; reused for another body it is refused")
    func idempotency() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-5", phones: ["phone-1"])
        let body: JSONValue = ["contentState": ServiceFixture.state(gate: "F6")]
        let first = try await f.admin.call("POST", "/v1/activities/flight-5/update", json: body, headers: ["Idempotency-Key": "gate-f6"])
        let again = try await f.admin.call("POST", "/v1/activities/flight-5/update", json: body, headers: ["Idempotency-Key": "gate-f6"])
        #expect(first.status == 202)
        #expect(again.status == 202)
        #expect(again.json == first.json)
        #expect(again.headers["idempotent-replayed"] == "true")
        let other = try await f.admin.call("POST", "/v1/activities/flight-5/update", json: ["contentState": ServiceFixture.state(gate: "G7")], headers: ["Idempotency-Key": "gate-f6"])
        #expect(other.status == 422)
        #expect(other.errorCode == "idempotency-key-reused")
        let settled = try await f.settled("flight-5")
        #expect(settled.json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" }.count == 1)
    }

    @Test("an end at a given time waits in the outbox until then; updates after it are refused")
    func scheduledEnd() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-11", phones: ["phone-1"])
        let at = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        let end = try await f.admin.call("POST", "/v1/activities/flight-11/end", json: ["contentState": ServiceFixture.state(status: "landed"), "at": .string(ISO8601DateFormatter().string(from: at))])
        #expect(end.status == 202, "\(end.json)")
        #expect(end.json["scheduledFor"] != nil)
        let waiting = try await f.admin.call("GET", "/v1/activities/flight-11")
        let row = try #require(waiting.json["deliveries"]?.arrayValue?.first { $0["event"] == "end" })
        #expect(row["state"] == "queued")
        #expect(row["nextAttemptAt"] != nil)
        #expect(f.deviceActivity("flight-11", on: "phone-1")?.state == .active)
        // An update before the end is still allowed; one after it is not.
        #expect(try await f.admin.call("POST", "/v1/activities/flight-11/update", json: ["contentState": ServiceFixture.state(gate: "Z9")]).status == 202)
        let settled = try await f.settled("flight-11")
        #expect(settled.json["final"] == true)
        #expect(Date() >= at)
        #expect(f.deviceActivity("flight-11", on: "phone-1")?.state != .active)
        #expect(try await f.admin.call("POST", "/v1/activities/flight-11/update", json: ["contentState": ServiceFixture.state()]).status == 409)
    }

    @Test("the service stops sending to an activity 8 hours after it started")
    func eightHours() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try f.server.store.write { tx in
            try tx.upsertActivity(ActivityRecord(activityID: "old", bundleID: ServiceFixture.bundle, attributesType: "FlightAttributes", channelID: nil, startedAt: Date().addingTimeInterval(-8 * 3600 - 60)))
            try tx.setActivityToken(TokenRecord(scope: "old", deviceID: "phone-1", token: String(repeating: "ab", count: 32), registeredAt: Date()))
        }
        let r = try await f.admin.call("POST", "/v1/activities/old/update", json: ["contentState": ServiceFixture.state()])
        #expect(r.status == 409)
        #expect(r.errorMessage.contains("more than 8 hours ago"))
        #expect(try await f.settled("old").json["deliveries"]?.arrayValue?.isEmpty == true)
    }

    @Test("a receipt marks the newest sent push displayed")
    func receipts() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-6", phones: ["phone-1"])
        _ = try await f.admin.call("POST", "/v1/activities/flight-6/update", json: ["contentState": ServiceFixture.state(gate: "H8")])
        _ = try await f.settled("flight-6")
        let r = try await f.admin.call("POST", "/v1/activities/flight-6/receipts", json: ["deviceID": "phone-1"])
        #expect(r.status == 200, "\(r.json)")
        let rows = try await f.settled("flight-6").json["deliveries"]?.arrayValue ?? []
        #expect(rows.first?["displayed"] == true)
        #expect(rows.dropFirst().allSatisfy { $0["displayed"] == nil })
    }
}

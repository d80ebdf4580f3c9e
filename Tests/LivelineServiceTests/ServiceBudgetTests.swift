import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting
import Testing

/// Budgets on a real service and the simulated iPhones: broadcasts counted, the default priority,
/// and each device's ledger. `ServiceBudgetPostgresTests` runs the broadcast case on PostgreSQL.
@Suite("Service: priority budgets, broadcasts and the ledger")
struct ServiceBudgetTests {
    /// The device's own hourly budget (the simulator's default), given to the service as well.
    static let deviceBudget = DeviceRules().updateBudgetPerHour

    /// An iOS 18 phone following the activity's channel receives `deviceBudget + 1` priority-10
    /// broadcasts: the last goes at 5 with the reason, and the phone shows it instead of throttling it.
    static func broadcastsSpendTheBudget(_ f: ServiceFixture) async throws {
        try await f.register("new-phone", ios: "18.2")
        let channel = try await f.admin.call("POST", "/v1/channels", json: ["bundleID": .string(ServiceFixture.bundle)])
        let channelID = try #require(channel.json["channelID"]?.stringValue, "\(channel.json)")
        var body = f.startBody(devices: ["new-phone"]).objectValue!
        body["channelID"] = .string(channelID)
        #expect(try await f.admin.call("POST", "/v1/activities/match-1/start", json: .object(body)).status == 202)
        _ = try await f.settled("match-1")
        var last = Reply(status: 0, json: .null, headers: [:])
        for n in 1...(deviceBudget + 1) {
            last = try await f.admin.call("POST", "/v1/activities/match-1/update", json: ["contentState": ServiceFixture.state(gate: "G\(n)"), "priority": 10])
            #expect(last.status == 202, "\(last.json)")
            _ = try await f.settled("match-1")
        }
        #expect(last.json["downgraded"] == 1, "\(last.json)")
        #expect(last.json["warnings"]?.arrayValue?.contains { $0["code"] == "broadcast-over-budget" } == true, "\(last.json)")
        let rows = try await f.settled("match-1").json["deliveries"]?.arrayValue?.filter { $0["target"] == "channel" } ?? []
        #expect(rows.count == deviceBudget + 1)
        #expect(rows.first?["priority"] == 5)  // newest first
        #expect(rows.first?["note"]?.stringValue?.contains("new-phone") == true, "\(rows.first ?? .null)")
        #expect(rows.dropFirst().allSatisfy { $0["priority"] == 10 })
        // The phone showed the last one: nothing was throttled on the device.
        #expect(f.deviceActivity("match-1", on: "new-phone")?.contentState["gate"] == .string("G\(deviceBudget + 1)"))
        let throttled = f.simulator.log().flatMap(\.deliveries).filter { $0.dropReason == .overBudget }
        #expect(throttled.isEmpty, "the device throttled: \(throttled)")

        // The ledger: the budget spent by broadcasts, the lowered one, the push-to-start.
        let ledger = try await f.admin.call("GET", "/v1/devices/new-phone/budget")
        #expect(ledger.status == 200, "\(ledger.json)")
        let activity = try #require(ledger.json["immediate"]?["activities"]?.arrayValue?.first { $0["activityID"] == "match-1" }, "\(ledger.json)")
        #expect(activity["spent"] == .number(Double(deviceBudget)))
        #expect(activity["byBroadcast"] == .number(Double(deviceBudget)))
        #expect(activity["remaining"] == 0)
        #expect(activity["refillsAt"] != nil)
        #expect(ledger.json["lowered"]?["count"] == 1)
        #expect(ledger.json["lowered"]?["recent"]?.arrayValue?.first?["via"] == "channel")
        #expect(ledger.json["pushToStart"]?["spent"] == 1)
        #expect(ledger.json["pushToStart"]?["activityIDs"] == ["match-1"])
        // The activity's status carries each device's budget for it.
        let status = try await f.admin.call("GET", "/v1/activities/match-1")
        let budget = try #require(status.json["devices"]?.arrayValue?.first { $0["deviceID"] == "new-phone" }?["budget"], "\(status.json)")
        #expect(budget["activityID"] == "match-1")
        #expect(budget["immediate"]?["activities"]?.arrayValue?.first?["byBroadcast"] == .number(Double(deviceBudget)))
        #expect(budget["lowered"]?["count"] == 1)
    }

    @Test("broadcasts count against the budget of every phone on the channel; over it they go at 5 and the phone shows them")
    func broadcastsCounted() async throws {
        let f = try await ServiceFixture(phones: [("new-phone", "18.2")]) { $0.immediateBudgetPerHour = Self.deviceBudget }
        defer { Task { await f.stop() } }
        try await Self.broadcastsSpendTheBudget(f)
    }

    @Test("with no priority, an update goes at 5 unless it carries an alert; an explicit 10 is kept")
    func defaultPriority() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-p", phones: ["phone-1"])
        let plain = try await f.admin.call("POST", "/v1/activities/flight-p/update", json: ["contentState": ServiceFixture.state(gate: "A1")])
        #expect(plain.json["priority"] == 5, "\(plain.json)")
        _ = try await f.settled("flight-p")
        let alerted = try await f.admin.call("POST", "/v1/activities/flight-p/update", json: ["contentState": ServiceFixture.state(gate: "A2"), "alert": ["title": "Gate change"]])
        #expect(alerted.json["priority"] == 10, "\(alerted.json)")
        _ = try await f.settled("flight-p")
        let asked = try await f.admin.call("POST", "/v1/activities/flight-p/update", json: ["contentState": ServiceFixture.state(gate: "A3"), "priority": 10])
        #expect(asked.json["priority"] == 10, "\(asked.json)")
        let rows = try await f.settled("flight-p").json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" } ?? []
        #expect(rows.map { $0["priority"] } == [10, 10, 5])  // newest first
        // The device received each (priority 5 is delivered too, and costs no budget).
        #expect(f.deviceActivity("flight-p", on: "phone-1")?.contentState["gate"] == "A3")
        let ledger = try await f.admin.call("GET", "/v1/devices/phone-1/budget?activityID=flight-p")
        #expect(ledger.json["immediate"]?["activities"]?.arrayValue?.first?["spent"] == 2, "\(ledger.json)")
    }

    @Test("token updates lowered to 5 and updates coalesced while waiting are lines of the device's ledger; each coalesced row ends superseded")
    func ledgerOfTokens() async throws {
        let f = try await ServiceFixture { $0.immediateBudgetPerHour = 1 }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-l", phones: ["phone-1"])
        for gate in ["B1", "B2"] {
            let r = try await f.admin.call("POST", "/v1/activities/flight-l/update", json: ["contentState": ServiceFixture.state(gate: gate), "priority": 10])
            #expect(r.status == 202)
            if gate == "B2" { #expect(r.json["warnings"]?.arrayValue?.contains { $0["code"] == "priority-lowered" } == true, "\(r.json)") }
            _ = try await f.settled("flight-l")
        }
        // APNs unavailable: the next update waits (retrying); two newer ones replace it, then the newest is sent.
        f.simulator.inject(FaultRule(.respond(.serviceUnavailable), limit: 1))
        for gate in ["C1", "C2", "C3"] {
            #expect(try await f.admin.call("POST", "/v1/activities/flight-l/update", json: ["contentState": ServiceFixture.state(gate: gate)]).status == 202)
        }
        let settled = try await f.settled("flight-l")
        #expect(settled.json["final"] == true)
        let rows = settled.json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" } ?? []
        let superseded = rows.filter { $0["state"] == "superseded" }
        // Whatever the timing, every update is final: sent, or superseded with the reason.
        #expect(rows.allSatisfy { $0["state"] == "sent" || $0["state"] == "superseded" }, "\(rows)")
        #expect(superseded.allSatisfy { $0["reason"]?.stringValue?.contains("newer update") == true })
        #expect(f.deviceActivity("flight-l", on: "phone-1")?.contentState["gate"] == "C3")

        let ledger = try await f.admin.call("GET", "/v1/devices/phone-1/budget")
        #expect(ledger.status == 200)
        #expect(ledger.json["lowered"]?["count"] == 1, "\(ledger.json)")
        #expect(ledger.json["lowered"]?["recent"]?.arrayValue?.first?["via"] == "token")
        #expect(ledger.json["lowered"]?["recent"]?.arrayValue?.first?["reason"]?.stringValue?.contains("1 of 1") == true)
        #expect(ledger.json["coalesced"]?["count"] == .number(Double(superseded.count)), "\(ledger.json)")
        #expect(ledger.json["immediate"]?["activities"]?.arrayValue?.first?["spent"] == 1)
        #expect(ledger.json["immediate"]?["activities"]?.arrayValue?.first?["remaining"] == 0)
    }

    @Test("the ledger is the owner app's: another app's admin key and an app key do not see it")
    func ledgerScoped() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        let app = try await f.admin.call("POST", "/v1/apps", json: ["bundleID": "com.example.other", "teamID": .string(f.teamID), "keyID": .string(f.keyID), "key": .string(f.keyPEM), "environment": "sandbox"])
        #expect(app.status == 201, "\(app.json)")
        let other = try await f.admin.call("POST", "/v1/keys", json: ["scope": "admin", "apps": ["com.example.other"]])
        let otherKey = try #require(other.json["key"]?.stringValue, "\(other.json)")
        let hidden = try await f.admin.call("GET", "/v1/devices/phone-1/budget", key: .some(otherKey))
        #expect(hidden.status == 404)
        #expect(try await f.app.call("GET", "/v1/devices/phone-1/budget").status == 403)
        #expect(try await f.admin.call("GET", "/v1/devices/nobody/budget").status == 404)
        let long = try await f.admin.call("GET", "/v1/devices/phone-1/budget?activityID=" + String(repeating: "a", count: 201))
        #expect(long.status == 400)
        #expect(long.errorMessage.contains("activityID"), "\(long.json)")
        #expect(try await f.admin.call("GET", "/v1/devices/phone-1/budget").json["immediate"]?["budgetPerHour"] == 12)
        // An activity asked for is listed even before it spent anything.
        let unspent = try await f.admin.call("GET", "/v1/devices/phone-1/budget?activityID=flight-x")
        #expect(unspent.json["immediate"]?["activities"] == [["activityID": "flight-x", "spent": 0, "remaining": 12, "byToken": 0, "byBroadcast": 0]], "\(unspent.json)")
    }
}

@Suite("Service on PostgreSQL: budgets", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct ServiceBudgetPostgresTests {
    @Test("broadcasts count against the budget and the ledger reads them, on PostgreSQL")
    func broadcastsCountedOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture(phones: [("new-phone", "18.2")]) {
            $0.database = database.url()
            $0.immediateBudgetPerHour = ServiceBudgetTests.deviceBudget
        }
        var failure: (any Error)?
        do { try await ServiceBudgetTests.broadcastsSpendTheBudget(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }
}

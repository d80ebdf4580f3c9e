import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting
import Testing

/// The per-device status of `GET /v1/activities/{id}` against a real service and simulated
/// phones that misbehave as real ones do (DeviceModes): a force-quit app, a token that never comes.
@Suite("Activity status per device: state, lifecycle, last delivery, receipt, and why a push did not show")
struct ActivityStatusTests {
    /// The status of `phone` in the activity's answer.
    static func status(_ f: ServiceFixture, _ activityID: String, _ phone: String) async throws -> JSONValue? {
        let r = try await f.admin.call("GET", "/v1/activities/\(activityID)")
        #expect(r.status == 200, "\(r.json)")
        return r.json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == phone }
    }

    /// Waits until `phone`'s status has a reason, and returns the status.
    static func reason(_ f: ServiceFixture, _ activityID: String, _ phone: String) async throws -> JSONValue {
        var last: JSONValue?
        try await until("the status of \(phone) in \(activityID) to give a reason", within: .seconds(20), poll: .milliseconds(50)) {
            last = try await status(f, activityID, phone)
            return last?["reason"] != nil
        }
        return last!
    }

    /// The force-quit phone's push-to-start: APNs accepted it, the phone never showed it, and the
    /// service says so once `startShownWithin` passed; the phone that showed it is active.
    static func forceQuitFlow(_ configure: @escaping (inout ServiceConfiguration) -> Void) async throws {
        let f = try await ServiceFixture(phones: [("phone-1", "18.2"), ("quit", "18.2")]) {
            $0.startShownWithin = .milliseconds(300)
            configure(&$0)
        }
        var failure: (any Error)?
        do {
            try f.simulator.setModes(DeviceModes(forceQuit: true), on: "quit")
            try await f.register("phone-1")
            try await f.register("quit")
            try await f.startAndRegister("flight-quit", phones: ["phone-1"])
            let start = try await f.admin.call("POST", "/v1/activities/flight-quit-2/start", json: f.startBody(devices: ["phone-1", "quit"]))
            #expect(start.status == 202, "\(start.json)")
            _ = try await f.settled("flight-quit-2")
            let token = try #require(f.deviceActivity("flight-quit-2", on: "phone-1")?.pushToken)
            #expect(try await f.admin.call("PUT", "/v1/activities/flight-quit-2/tokens/phone-1", json: ["token": .string(token)]).status == 201)
            #expect(f.deviceActivity("flight-quit-2", on: "quit") == nil)

            let quit = try await reason(f, "flight-quit-2", "quit")
            #expect(quit["reason"]?["code"] == "start-never-shown", "\(quit)")
            #expect(quit["reason"]?["message"]?.stringValue?.contains("force-quit") == true)
            #expect(quit["state"] == "started")
            #expect(quit["reachable"] == false)
            #expect(quit["lastDelivery"]?["status"] == 200)
            #expect(quit["lastDelivery"]?["state"] == "sent")
            #expect(quit["lastDelivery"]?["target"] == "push-to-start")
            #expect(quit["lifecycle"]?["startAcceptedAt"]?.stringValue != nil)
            #expect(quit["receipt"] == nil)
            // The simulator agrees: APNs said 200, the phone dropped it.
            #expect(f.simulator.log().contains { if case .dropped(.forceQuitStart, _) = $0.verdict { true } else { false } })

            let shown = try #require(try await status(f, "flight-quit-2", "phone-1"))
            #expect(shown["state"] == "active", "\(shown)")
            #expect(shown["reason"] == nil, "\(shown)")
            #expect(shown["reachable"] == true)
            #expect(shown["lifecycle"]?["tokenRegisteredAt"]?.stringValue != nil)
            // Every name the answer had before is still there (a contract).
            let whole = try await f.admin.call("GET", "/v1/activities/flight-quit-2")
            for name in ["activityID", "bundleID", "attributesType", "startedAt", "tokenCount", "tokens", "counts", "final", "deliveries"] {
                #expect(whole.json[name] != nil, "\(name) is missing")
            }
        } catch {
            failure = error
        }
        await f.stop()
        if let failure { throw failure }
    }

    @Test("a force-quit phone's push-to-start APNs accepted is flagged start-never-shown after startShownWithin; the phone that showed it is active")
    func forceQuitStartNeverShown() async throws {
        try await Self.forceQuitFlow { _ in }
    }

    @Test("before startShownWithin the unconfirmed start is only started, without a reason")
    func notYet() async throws {
        let f = try await ServiceFixture(phones: [("quit", "18.2")]) { $0.startShownWithin = .seconds(3600) }
        defer { Task { await f.stop() } }
        try f.simulator.setModes(DeviceModes(forceQuit: true), on: "quit")
        try await f.register("quit")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-wait/start", json: f.startBody(devices: ["quit"])).status == 202)
        let settled = try await f.settled("flight-wait")
        #expect(settled.json["final"] == true)
        let s = try #require(try await Self.status(f, "flight-wait", "quit"))
        #expect(s["state"] == "started", "\(s)")
        #expect(s["reason"] == nil, "\(s)")
    }

    @Test("an iOS 17 phone whose update token never comes: the start showed (a receipt), and the status says it is unreachable")
    func tokenNeverCame() async throws {
        let f = try await ServiceFixture(phones: [("old", "17.5")]) { $0.startShownWithin = .milliseconds(300) }
        defer { Task { await f.stop() } }
        try f.simulator.setModes(DeviceModes(withholdsUpdateTokens: true), on: "old")
        try await f.register("old", ios: "17.5")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-17/start", json: f.startBody(devices: ["old"])).status == 202)
        _ = try await f.settled("flight-17")
        let activity = try #require(f.deviceActivity("flight-17", on: "old"))
        #expect(activity.state == .active)
        #expect(activity.pushToken == nil)
        // The app saw the activity's content and says so; no token ever reaches it.
        #expect(try await f.admin.call("POST", "/v1/activities/flight-17/receipts", json: ["deviceID": "old"]).status == 200)
        let s = try await Self.reason(f, "flight-17", "old")
        #expect(s["reason"]?["code"] == "update-token-never-came", "\(s)")
        #expect(s["reason"]?["message"]?.stringValue?.contains("iOS 17.5") == true)
        #expect(s["state"] == "active")
        #expect(s["reachable"] == false)
        #expect(s["receipt"]?["displayedAt"]?.stringValue != nil)
        // An update has nowhere to go.
        let update = try await f.admin.call("POST", "/v1/activities/flight-17/update", json: ["contentState": ServiceFixture.state(gate: "C1")])
        #expect(update.status == 422)
    }

    @Test("a token the phone rotated: the update APNs refused with 410 gives token-rotated, the new token makes it reachable again")
    func tokenRotated() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-rot", phones: ["phone-1"])
        let device = try #require(f.deviceActivity("flight-rot", on: "phone-1"))
        let rotated = try f.simulator.rotatePushToken(device.id)
        #expect(try await f.admin.call("POST", "/v1/activities/flight-rot/update", json: ["contentState": ServiceFixture.state(gate: "D4")]).status == 202)
        _ = try await f.settled("flight-rot")
        let s = try #require(try await Self.status(f, "flight-rot", "phone-1"))
        #expect(s["reason"]?["code"] == "token-rotated", "\(s)")
        #expect(s["lastDelivery"]?["status"] == 410)
        #expect(s["reachable"] == false)
        #expect(try await f.admin.call("PUT", "/v1/activities/flight-rot/tokens/phone-1", json: ["token": .string(rotated)]).status == 201)
        let again = try #require(try await Self.status(f, "flight-rot", "phone-1"))
        #expect(again["reachable"] == true, "\(again)")
    }

    @Test("a decode failure the installation reports is the reason; only the installation holding the activity may report it")
    func decodeFailureReported() async throws {
        let f = try await ServiceFixture(phones: [("victim", "18.2"), ("evil", "18.2")])
        defer { Task { await f.stop() } }
        let owner = try await TrustAttackTests.install(f)
        try await TrustAttackTests.register(f, owner, phone: "victim")
        let other = try await TrustAttackTests.install(f)
        try await TrustAttackTests.register(f, other, phone: "evil")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-dec/start", json: f.startBody(devices: [owner.id])).status == 202)
        _ = try await f.settled("flight-dec")

        let report: JSONValue = ["error": "keyNotFound(gate): the app's FlightAttributes.ContentState has no gate"]
        // Another installation cannot report on it, nor for the owner.
        let foreign = try await other.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: report)
        #expect(foreign.status == 404, "\(foreign.json)")
        let impersonated = try await other.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: ["error": "x", "deviceID": .string(owner.id)])
        #expect(impersonated.status == 400)
        // Bad input is named.
        let empty = try await owner.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: ["error": "  "])
        #expect(empty.status == 400 && empty.errorMessage.contains("error"), "\(empty.json)")
        let missing = try await owner.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: [:])
        #expect(missing.status == 400 && missing.errorMessage.contains("error"), "\(missing.json)")

        let posted = try await owner.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: report)
        #expect(posted.status == 201, "\(posted.json)")
        let s = try #require(try await Self.status(f, "flight-dec", owner.id))
        #expect(s["reason"]?["code"] == "decode-failed", "\(s)")
        #expect(s["reason"]?["message"]?.stringValue?.contains("keyNotFound(gate)") == true)
        #expect(s["decodeFailure"]?["error"] == report["error"])
        // A second report replaces the first: one row per device.
        #expect(try await owner.client.call("POST", "/v1/activities/flight-dec/decode-failures", json: ["error": "typeMismatch(delayMinutes)"]).status == 201)
        #expect(try f.server.store.write { try $0.deviceReports(activityID: "flight-dec") }.map(\.detail) == ["typeMismatch(delayMinutes)"])
    }

    @Test("a device that sends receipts and sent none for the newest accepted update within receiptWithin: no-receipt")
    func noReceipt() async throws {
        let f = try await ServiceFixture { $0.receiptWithin = .milliseconds(300) }
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try await f.startAndRegister("flight-rcpt", phones: ["phone-1"])
        #expect(try await f.admin.call("POST", "/v1/activities/flight-rcpt/receipts", json: ["deviceID": "phone-1"]).status == 200)
        let shown = try #require(try await Self.status(f, "flight-rcpt", "phone-1"))
        #expect(shown["reason"] == nil, "\(shown)")
        #expect(shown["receipt"]?["event"] == "start")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-rcpt/update", json: ["contentState": ServiceFixture.state(gate: "F2")]).status == 202)
        _ = try await f.settled("flight-rcpt")
        let s = try await Self.reason(f, "flight-rcpt", "phone-1")
        #expect(s["reason"]?["code"] == "no-receipt", "\(s)")
        #expect(s["lastDelivery"]?["event"] == "update")
        #expect(s["state"] == "active")
    }

    /// An activity as the store holds it, with one update to phone-1 that APNs accepted just now
    /// (claimed and recorded here, at a due time the outbox workers never reach).
    static func acceptedNow(_ f: ServiceFixture, _ id: String, startedAgo: TimeInterval, endedAgo: TimeInterval?) throws {
        let now = Date()
        let token = String(repeating: "cd", count: 32)
        let far = now.addingTimeInterval(365 * 86_400)
        try f.server.store.write { tx in
            try tx.upsertActivity(ActivityRecord(activityID: id, bundleID: ServiceFixture.bundle, attributesType: "FlightAttributes", channelID: nil,
                                                 startedAt: now.addingTimeInterval(-startedAgo), endedAt: endedAgo.map { now.addingTimeInterval(-$0) }))
            try tx.setActivityToken(TokenRecord(scope: id, deviceID: "phone-1", token: token, registeredAt: now.addingTimeInterval(-startedAgo)))
            _ = try tx.insertSend(SendRecord(activityID: id, event: "update", bundleID: ServiceFixture.bundle, body: Array(#"{"aps":{}}"#.utf8), createdAt: now),
                                  deliveries: [NewDelivery(deviceID: "phone-1", target: .token, token: token, priority: 10, notBefore: far)], now: now)
            let rows = try tx.claimDue(now: far.addingTimeInterval(1), limit: 10, leaseUntil: far.addingTimeInterval(60)).filter { $0.activityID == id }
            try tx.record(rows.map { DeliveryOutcome(id: $0.id, state: .sent, apnsID: UUID().uuidString.lowercased(), status: 200) }, now: now)
        }
    }

    @Test("an update APNs accepted after ActivityKit's 8 hours, or after the activity's end: past-8-hours, activity-ended")
    func acceptedTooLate() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        try Self.acceptedNow(f, "late-8h", startedAgo: 9 * 3600, endedAgo: nil)
        try Self.acceptedNow(f, "late-end", startedAgo: 3600, endedAgo: 600)
        let late = try #require(try await Self.status(f, "late-8h", "phone-1"))
        #expect(late["reason"]?["code"] == "past-8-hours", "\(late)")
        #expect(late["lastDelivery"]?["status"] == 200)
        let ended = try #require(try await Self.status(f, "late-end", "phone-1"))
        #expect(ended["reason"]?["code"] == "activity-ended", "\(ended)")
        #expect(ended["state"] == "ended")
        #expect(ended["lifecycle"]?["endedBy"] == "the backend's end")
    }

    @Test("past 8 hours the activity is ended on every device by ActivityKit's limit, and dismissed 12 hours after its start")
    func eightAndTwelveHours() async throws {
        let f = try await ServiceFixture()
        defer { Task { await f.stop() } }
        try await f.register("phone-1")
        for (id, age) in [("nine-hours", 9.0), ("thirteen-hours", 13.0)] {
            try f.server.store.write { tx in
                try tx.upsertActivity(ActivityRecord(activityID: id, bundleID: ServiceFixture.bundle, attributesType: "FlightAttributes", channelID: nil, startedAt: Date().addingTimeInterval(-age * 3600)))
                try tx.setActivityToken(TokenRecord(scope: id, deviceID: "phone-1", token: String(repeating: "ab", count: 32), registeredAt: Date().addingTimeInterval(-age * 3600)))
            }
        }
        let nine = try #require(try await Self.status(f, "nine-hours", "phone-1"))
        #expect(nine["state"] == "ended", "\(nine)")
        #expect(nine["lifecycle"]?["endedBy"]?.stringValue?.contains("8-hour") == true)
        #expect(nine["reachable"] == false)
        let thirteen = try #require(try await Self.status(f, "thirteen-hours", "phone-1"))
        #expect(thirteen["state"] == "dismissed", "\(thirteen)")
    }
}

@Suite("Activity status on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct ActivityStatusPostgresTests {
    @Test("the force-quit phone's start is flagged start-never-shown on PostgreSQL too")
    func forceQuitOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await ActivityStatusTests.forceQuitFlow { $0.database = database.url() }
    }

    @Test("device reports: one per device and kind, the newest kept, on PostgreSQL")
    func reportsOnPostgres() throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let store = try PostgresStore(url: database.url())
        defer { store.close() }
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        try store.write { tx in
            _ = try tx.replaceDeviceReport(DeviceReportRecord(activityID: "a", deviceID: "d1", kind: "decode-failure", detail: "first", reportedAt: at, createdAt: at))
            _ = try tx.replaceDeviceReport(DeviceReportRecord(activityID: "a", deviceID: "d1", kind: "decode-failure", detail: "second", reportedAt: at.addingTimeInterval(1), createdAt: at))
            _ = try tx.replaceDeviceReport(DeviceReportRecord(activityID: "a", deviceID: "d2", kind: "decode-failure", detail: "other", reportedAt: at, createdAt: at))
            _ = try tx.replaceDeviceReport(DeviceReportRecord(activityID: "b", deviceID: "d1", kind: "decode-failure", detail: "elsewhere", reportedAt: at, createdAt: at))
        }
        let reports = try store.write { try $0.deviceReports(activityID: "a") }
        #expect(reports.map(\.detail) == ["second", "other"])
        #expect(reports.first?.reportedAt == at.addingTimeInterval(1))
    }
}

import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineTesting
import Testing

/// Renewal past 8 hours, on one virtual clock for the service and the simulated iPhones: successors
/// push-started before ActivityKit's 8 hours with the current content, the predecessor ended only
/// once the successor is confirmed, and a status that says why a device was not renewed.
@Suite("Service: renewal past 8 hours")
struct RenewalTests {
    static let hour: TimeInterval = 3600

    /// A fixture whose service and simulator read `clock` (started at the real time: the simulator's
    /// certificates are checked against the wall clock).
    static func fixture(_ phones: [(String, OSVersion)], clock: VirtualClock, database: String? = nil,
                        configure: (inout ServiceConfiguration) -> Void = { _ in }) async throws -> ServiceFixture {
        try await ServiceFixture(phones: phones, clock: clock) { c in
            c.renewalMargin = .seconds(900)
            if let database { c.database = database }
            configure(&c)
        }
    }

    static func startBody(_ f: ServiceFixture, devices: [String], renew: Bool?) -> JSONValue {
        var body = f.startBody(devices: devices).objectValue!  // "channel": "none": the token path
        if let renew { body["renew"] = .bool(renew) }
        return .object(body)
    }

    /// The flight's activities on a phone that are still on it (not dismissed), oldest first.
    static func visible(_ f: ServiceFixture, _ activityID: String, on phone: String) -> [ActivitySnapshot] {
        all(f, activityID, on: phone).filter { $0.state != .dismissed }
    }

    static func all(_ f: ServiceFixture, _ activityID: String, on phone: String) -> [ActivitySnapshot] {
        f.simulator.activities().filter { $0.deviceID == phone && $0.attributes[ActivitySchema.activityIDKey]?.stringValue == activityID }
    }

    /// What the app does when ActivityKit hands it an update token: registers it for the logical id.
    static func appRegistersNewestToken(_ f: ServiceFixture, _ activityID: String, on phone: String) async throws -> String {
        let token = try #require(visible(f, activityID, on: phone).last?.pushToken, "the newest activity on \(phone) has an update token")
        let r = try await f.admin.call("PUT", "/v1/activities/\(activityID)/tokens/\(phone)", json: ["token": .string(token)])
        #expect(r.status == 201 || r.status == 200, "\(r.json)")
        return token
    }

    static func update(_ f: ServiceFixture, _ activityID: String, gate: String, status: String) async throws -> Reply {
        let r = try await f.admin.call("POST", "/v1/activities/\(activityID)/update", json: ["contentState": ServiceFixture.state(gate: gate, status: status)])
        _ = try await f.settled(activityID)
        return r
    }

    static func renewal(_ f: ServiceFixture, _ activityID: String) async throws -> JSONValue? {
        try await f.admin.call("GET", "/v1/activities/\(activityID)").json["renewal"]
    }

    @Test("a 20-hour flight: renewed twice, each successor with the current content, one activity on the phone at a time, the final state shown")
    func twentyHourFlightOnSQLite() async throws { try await Self.twentyHourFlight(database: nil) }

    static func twentyHourFlight(database: String?) async throws {
        let clock = VirtualClock(start: Date())
        let f = try await Self.fixture([("p17", "17.5")], clock: clock, database: database)
        defer { Task { await f.stop() } }
        try await f.register("p17", ios: "17.5")
        let t0 = clock.now
        func at(_ hours: TimeInterval) { clock.set(t0.addingTimeInterval(hours * Self.hour)) }

        let start = try await f.admin.call("POST", "/v1/activities/flight-20h/start", json: Self.startBody(f, devices: ["p17"], renew: true))
        #expect(start.status == 202, "\(start.json)")
        // Not opted in: this one is left to ActivityKit's 8 hours.
        #expect(try await f.admin.call("POST", "/v1/activities/flight-plain/start", json: Self.startBody(f, devices: ["p17"], renew: nil)).status == 202)
        _ = try await f.settled("flight-20h")
        _ = try await f.settled("flight-plain")
        let first = try await Self.appRegistersNewestToken(f, "flight-20h", on: "p17")
        _ = try await Self.appRegistersNewestToken(f, "flight-plain", on: "p17")
        #expect(try await Self.renewal(f, "flight-20h")?["generation"] == 1)
        let renewsAt = try #require(try await Self.renewal(f, "flight-20h")?["renewsAt"]?.stringValue)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let due = try #require(iso.date(from: renewsAt), "\(renewsAt)")
        #expect(abs(due.timeIntervalSince(t0) - (8 * Self.hour - 900)) < 0.01, "the margin before 8 hours: \(renewsAt)")

        at(2)
        #expect(try await Self.update(f, "flight-20h", gate: "C4", status: "boarding").status == 202)

        // One minute before the margin: nothing is due.
        at(8 - 0.25 - 1.0 / 60)
        #expect(await f.server.service.renewActivities().started == 0)
        #expect(Self.all(f, "flight-20h", on: "p17").count == 1)

        // The margin (15 minutes) before 8 hours (half a minute past it: the check runs every 30 s): a
        // successor with the current content.
        at(7.76)
        let pass = await f.server.service.renewActivities()
        #expect(pass.started == 1, "\(pass)")
        _ = try await f.settled("flight-20h")
        let both = Self.visible(f, "flight-20h", on: "p17")
        #expect(both.count == 2, "a push-to-start makes a second activity on the phone, as on iOS: \(both.map(\.state))")
        let successor = try #require(both.last)
        #expect(successor.contentState["gate"] == "C4" && successor.contentState["status"] == "boarding", "the current content, not the start's: \(successor.contentState)")
        #expect(successor.attributes["flightNumber"] == "LL 1234", "the same attributes")
        #expect(both.first?.state == .active, "the predecessor is not ended before the successor is confirmed")
        let pending = try #require(try await Self.renewal(f, "flight-20h"))
        #expect(pending["generation"] == 1 && pending["devices"]?.arrayValue?.first?["state"] == "pending", "\(pending)")
        #expect(Self.all(f, "flight-plain", on: "p17").count == 1, "an activity that did not opt in is not renewed")

        // An update while the successor waits for confirmation reaches the predecessor (the token the service holds).
        #expect(try await Self.update(f, "flight-20h", gate: "C5", status: "boarding").status == 202)
        #expect(Self.visible(f, "flight-20h", on: "p17").map { $0.contentState["gate"] } == ["C5", "C4"])

        // The app registers the successor's token: confirmed, the logical id moves, the predecessor ends,
        // and the successor is sent what it missed.
        let second = try await Self.appRegistersNewestToken(f, "flight-20h", on: "p17")
        #expect(second != first)
        #expect(await f.server.service.renewActivities().confirmed == 1)
        _ = try await f.settled("flight-20h")
        let one = Self.visible(f, "flight-20h", on: "p17")
        #expect(one.count == 1 && one.first?.pushToken == second, "exactly one activity on the phone, the successor: \(one.map(\.state))")
        let ended = try #require(Self.all(f, "flight-20h", on: "p17").first)
        #expect(ended.pushToken == first && ended.contentState["gate"] == "C5", "the predecessor ended with the current content")
        #expect(one.first?.contentState["gate"] == "C5", "the successor caught up with the update it missed: \(String(describing: one.first?.contentState))")
        let status = try await f.admin.call("GET", "/v1/activities/flight-20h")
        let renewal = try #require(status.json["renewal"])
        #expect(renewal["generation"] == 2, "\(renewal)")
        let device = try #require(status.json["devices"]?.arrayValue?.first { $0["deviceID"] == "p17" })
        #expect(device["renewal"]?["state"] == "confirmed" && device["renewal"]?["successor"]?["confirmedBy"] == "update-token", "\(device)")
        #expect(device["state"] == "active", "the device's status describes the successor: \(device)")
        #expect(device["renewal"]?["predecessor"]?["endSendID"] != nil, "\(device)")

        // Past the first activity's 8 hours the logical id still takes updates: they reach the successor.
        at(10)
        let departed = try await Self.update(f, "flight-20h", gate: "C5", status: "departed")
        #expect(departed.status == 202, "\(departed.json)")
        #expect(Self.visible(f, "flight-20h", on: "p17").last?.contentState["status"] == "departed")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-plain/update", json: ["contentState": ServiceFixture.state(gate: "C4", status: "departed")]).status == 409,
                "without renewal the service stops at 8 hours")

        // The second renewal, 7 h 45 min after the first.
        at(7.76 * 2)
        #expect(await f.server.service.renewActivities().started == 1)
        _ = try await f.settled("flight-20h")
        #expect(Self.visible(f, "flight-20h", on: "p17").last?.contentState["status"] == "departed")
        let third = try await Self.appRegistersNewestToken(f, "flight-20h", on: "p17")
        #expect(await f.server.service.renewActivities().confirmed == 1)
        _ = try await f.settled("flight-20h")
        #expect(Self.visible(f, "flight-20h", on: "p17").map(\.pushToken) == [third])

        // Landing at 20 hours, and the end: the final state shows.
        at(19.5)
        #expect(try await Self.update(f, "flight-20h", gate: "C4", status: "landed").status == 202)
        at(20)
        let end = try await f.admin.call("POST", "/v1/activities/flight-20h/end", json: ["contentState": ServiceFixture.state(gate: "C4", status: "landed")])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("flight-20h")
        let last = Self.visible(f, "flight-20h", on: "p17")
        #expect(last.count == 1, "\(last.map(\.state))")
        #expect(last.first?.state == .ended && last.first?.contentState["status"] == "landed", "the flight's final state is shown")
        #expect(Self.all(f, "flight-20h", on: "p17").count == 3, "the first start and two successors")
        #expect(try await Self.renewal(f, "flight-20h")?["generation"] == 3)
        #expect(await f.server.service.renewActivities() == RenewalPass(), "an ended activity is not renewed")
    }

    @Test("a successor never confirmed leaves the predecessor alone and says why; a receipt confirms one without a token")
    func unconfirmedAndReceiptOnSQLite() async throws { try await Self.unconfirmedAndReceipt(database: nil) }

    static func unconfirmedAndReceipt(database: String?) async throws {
        let clock = VirtualClock(start: Date())
        let f = try await Self.fixture([("silent", "17.5"), ("receipts", "17.5")], clock: clock, database: database)
        defer { Task { await f.stop() } }
        for p in ["silent", "receipts"] { try await f.register(p, ios: "17.5") }
        let t0 = clock.now
        #expect(try await f.admin.call("POST", "/v1/activities/flight-u/start", json: Self.startBody(f, devices: ["silent", "receipts"], renew: true)).status == 202)
        _ = try await f.settled("flight-u")
        for p in ["silent", "receipts"] {
            _ = try await Self.appRegistersNewestToken(f, "flight-u", on: p)
            try f.simulator.setModes(DeviceModes(withholdsUpdateTokens: true), on: p)  // the successors get no update token
        }

        clock.set(t0.addingTimeInterval(7.76 * Self.hour))
        #expect(await f.server.service.renewActivities().started == 2)
        _ = try await f.settled("flight-u")
        #expect(try await f.admin.call("POST", "/v1/activities/flight-u/receipts", json: ["deviceID": "receipts"]).status < 300)
        #expect(await f.server.service.renewActivities().confirmed == 1)
        _ = try await f.settled("flight-u")
        #expect(Self.visible(f, "flight-u", on: "receipts").count == 1, "the receipt confirmed the successor; its predecessor was ended")

        clock.set(t0.addingTimeInterval(8 * Self.hour - 60))
        #expect(await f.server.service.renewActivities().unconfirmed == 0, "not given up before the predecessor's 8 hours")
        #expect(Self.all(f, "flight-u", on: "silent").first?.state == .active, "the predecessor is not ended by the service")
        clock.set(t0.addingTimeInterval(8 * Self.hour + 1))
        #expect(await f.server.service.renewActivities().unconfirmed == 1)
        let status = try await f.admin.call("GET", "/v1/activities/flight-u?limit=1000")
        let rows = status.json["renewal"]?["devices"]?.arrayValue ?? []
        let silent = try #require(rows.first { $0["deviceID"] == "silent" })
        #expect(silent["state"] == "unconfirmed" && silent["reason"]?["code"] == "successor-unconfirmed", "\(silent)")
        #expect(silent["reason"]?["message"]?.stringValue?.contains("did not end the predecessor") == true, "\(silent)")
        #expect(rows.first { $0["deviceID"] == "receipts" }?["successor"]?["confirmedBy"] == "receipt")
        let ends = status.json["deliveries"]?.arrayValue?.filter { $0["event"] == "end" } ?? []
        #expect(ends.count == 1, "one end, for the confirmed device's predecessor only: \(ends)")
    }

    @Test("devices that cannot be renewed get a reason: no push-to-start token, iOS before 17.2, the push-to-start budget")
    func reasons() async throws {
        let clock = VirtualClock(start: Date())
        let f = try await Self.fixture([("p2s", "17.5"), ("nop2s", "17.5"), ("old", "17.0")], clock: clock) { c in
            c.startBudget = 1
            c.startBudgetWindow = .seconds(9 * 3600)
        }
        defer { Task { await f.stop() } }
        try await f.register("p2s", ios: "17.5")
        let t0 = clock.now
        #expect(try await f.admin.call("POST", "/v1/activities/flight-r/start", json: Self.startBody(f, devices: ["p2s"], renew: true)).status == 202)
        _ = try await f.settled("flight-r")
        _ = try await Self.appRegistersNewestToken(f, "flight-r", on: "p2s")
        // Two phones whose apps started the flight themselves and registered its token: one with no
        // push-to-start token at the service, one on iOS 17.0 (push-to-start needs 17.2).
        for (phone, ios) in [("nop2s", "17.5"), ("old", "17.0")] {
            #expect(try await f.admin.call("PUT", "/v1/devices/\(phone)", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": .string(ios)]).status < 300)
            let attributes = FlightAttributes(flightNumber: "LL 1234", origin: "LIS", destination: "ZRH", airline: "Liveline Air", departure: t0, livelineActivityID: "flight-r")
            _ = try f.simulator.startActivity(on: phone, bundleID: ServiceFixture.bundle, attributes: attributes, contentState: .init(status: .scheduled, gate: "B12", boardingTime: t0))
            _ = try await Self.appRegistersNewestToken(f, "flight-r", on: phone)
        }

        clock.set(t0.addingTimeInterval(7.76 * Self.hour))
        let pass = await f.server.service.renewActivities()
        #expect(pass.started == 0 && pass.waiting == 1 && pass.skipped == 2, "\(pass)")
        _ = try await f.settled("flight-r")
        #expect(Self.all(f, "flight-r", on: "p2s").count == 1, "over the budget, nothing was pushed")
        func renewal(_ phone: String) async throws -> JSONValue? {
            try await f.admin.call("GET", "/v1/activities/flight-r").json["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == phone }?["renewal"]
        }
        let waiting = try await renewal("p2s")
        #expect(waiting?["state"] == "waiting" && waiting?["reason"]?["code"] == "start-budget-exceeded", "\(String(describing: waiting))")
        #expect(try await renewal("nop2s")?["reason"]?["code"] == "no-push-to-start-token")
        #expect(try await renewal("old")?["reason"]?["code"] == "ios-too-old")
        #expect(try await Self.renewal(f, "flight-r")?["generation"] == 1)
        // The budget never frees in time: at the 8 hours the wait is over.
        clock.set(t0.addingTimeInterval(8 * Self.hour + 1))
        #expect(await f.server.service.renewActivities().skipped == 1)
        let over = try await renewal("p2s")
        #expect(over?["state"] == "skipped" && over?["reason"]?["message"]?.stringValue?.contains("before ActivityKit ended the predecessor") == true, "\(String(describing: over))")
    }

    @Test("the service's own renewer finds a due activity without being called (margin 60 s: it looks every 6 s)")
    func renewerRuns() async throws {
        let clock = VirtualClock(start: Date())
        let f = try await Self.fixture([("p17", "17.5")], clock: clock) { $0.renewalMargin = .seconds(60) }
        defer { Task { await f.stop() } }
        try await f.register("p17", ios: "17.5")
        let t0 = clock.now
        #expect(try await f.admin.call("POST", "/v1/activities/flight-loop/start", json: Self.startBody(f, devices: ["p17"], renew: true)).status == 202)
        _ = try await f.settled("flight-loop")
        _ = try await Self.appRegistersNewestToken(f, "flight-loop", on: "p17")
        clock.set(t0.addingTimeInterval(8 * Self.hour - 30))
        try await until("the renewer to push-start a successor", within: .seconds(30)) {
            Self.visible(f, "flight-loop", on: "p17").count == 2
        }
    }

    @Test("renewalMarginSeconds: set from the environment, a value out of range refused naming it")
    func marginSetting() throws {
        var c = ServiceConfiguration()
        #expect(c.renewalMargin == .seconds(900))
        try c.apply(environment: ["LIVELINE_RENEWAL_MARGIN_SECONDS": "1800"])
        #expect(c.renewalMargin == .seconds(1800))
        #expect(throws: ServiceConfiguration.Problem.self) { try c.apply(environment: ["LIVELINE_RENEWAL_MARGIN_SECONDS": "30"]) }
        do { try c.apply(environment: ["LIVELINE_RENEWAL_MARGIN_SECONDS": "30"]) } catch { #expect(error.message.contains("LIVELINE_RENEWAL_MARGIN_SECONDS"), "\(error.message)") }
    }

    @Test("renew must be a boolean, named in the error")
    func badInput() async throws {
        let clock = VirtualClock(start: Date())
        let f = try await Self.fixture([("p17", "17.5")], clock: clock)
        defer { Task { await f.stop() } }
        try await f.register("p17", ios: "17.5")
        var body = Self.startBody(f, devices: ["p17"], renew: nil).objectValue!
        body["renew"] = "yes"
        let r = try await f.admin.call("POST", "/v1/activities/flight-b/start", json: .object(body))
        #expect(r.status == 400 && r.json["error"]?["field"] == "renew", "\(r.json)")
        #expect(try await Self.renewal(f, "flight-b") == nil)
    }
}

@Suite("Renewal past 8 hours on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct RenewalPostgresTests {
    @Test("a 20-hour flight renewed twice, on PostgreSQL")
    func twentyHourFlightOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await RenewalTests.twentyHourFlight(database: database.url())
    }

    @Test("an unconfirmed successor and a receipt, on PostgreSQL")
    func unconfirmedOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await RenewalTests.unconfirmedAndReceipt(database: database.url())
    }
}

import Foundation
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineTesting
import Testing

/// Exactly one activity per logical id per device (Service+StartOnce.swift), against a real
/// service and simulated phones that make a second Live Activity for every second push-to-start,
/// as iOS does.
@Suite("One activity per logical id per device: a repeated start is refused or skipped, an ended one is not brought back")
struct StartOnceTests {
    /// The phone's activities (any state the simulator still lists) for the logical id.
    static func onPhone(_ f: ServiceFixture, _ activityID: String, _ phone: String) -> [ActivitySnapshot] {
        f.simulator.activities().filter { $0.deviceID == phone && $0.attributes[ActivitySchema.activityIDKey]?.stringValue == activityID }
    }

    static func running(_ f: ServiceFixture, _ activityID: String, _ phone: String) -> Int {
        onPhone(f, activityID, phone).filter { $0.state == .active || $0.state == .stale }.count
    }

    /// Runs `body` on a fresh service (and simulator), stopping both whatever happens.
    static func with(phones: [(String, OSVersion)] = [("phone-1", "18.2"), ("phone-2", "18.2")], database: String? = nil,
                     configure: @escaping (inout ServiceConfiguration) -> Void = { _ in },
                     _ body: (ServiceFixture) async throws -> Void) async throws {
        let f = try await ServiceFixture(phones: phones) {
            if let database { $0.database = database }
            configure(&$0)
        }
        var failure: (any Error)?
        do { try await body(f) } catch { failure = error }
        await f.stop()
        if let failure { throw failure }
    }

    /// The flows every store must give the same answers for.
    static func repeatedStart(_ f: ServiceFixture) async throws {
        try await f.register("phone-1")
        try await f.register("phone-2")
        try await f.startAndRegister("flight-once", phones: ["phone-1"])
        #expect(running(f, "flight-once", "phone-1") == 1)

        // The backend calls start again (a retry, its offline queue): nothing is sent.
        let again = try await f.admin.call("POST", "/v1/activities/flight-once/start", json: f.startBody(devices: ["phone-1"]))
        #expect(again.status == 409, "\(again.json)")
        #expect(again.errorCode == "already-started", "\(again.json)")
        let held = again.json["error"]?["skipped"]?.arrayValue?.first
        #expect(held?["deviceID"] == "phone-1")
        #expect(held?["code"] == "already-started")
        #expect(held?["state"] == "active", "\(held ?? .null)")
        _ = try await f.settled("flight-once")
        #expect(onPhone(f, "flight-once", "phone-1").count == 1, "the phone shows the flight twice")
        let status = try await f.admin.call("GET", "/v1/activities/flight-once")
        #expect(status.json["deliveries"]?.arrayValue?.filter { $0["target"] == "push-to-start" }.count == 1, "\(status.json)")

        // A mixed audience: the phone that has it is skipped, the other one started.
        let mixed = try await f.admin.call("POST", "/v1/activities/flight-once/start", json: f.startBody(devices: ["phone-1", "phone-2"]))
        #expect(mixed.status == 202, "\(mixed.json)")
        #expect(mixed.json["queued"] == 1)
        let skipped = mixed.json["skipped"]?.arrayValue ?? []
        #expect(skipped.count == 1 && skipped.first?["deviceID"] == "phone-1" && skipped.first?["code"] == "already-started", "\(mixed.json)")
        _ = try await f.settled("flight-once")
        #expect(onPhone(f, "flight-once", "phone-1").count == 1)
        #expect(onPhone(f, "flight-once", "phone-2").count == 1, "phone-2 was not started")
        // The run keeps its first start time (ActivityKit's 8 hours count from it).
        #expect(try await f.admin.call("GET", "/v1/activities/flight-once").json["startedAt"] == status.json["startedAt"])
    }

    /// Ended and dismissed: a plain start is refused, `restart` starts a new run.
    static func endedNotResurrected(_ f: ServiceFixture) async throws {
        try await f.register("phone-1")
        try await f.startAndRegister("flight-end", phones: ["phone-1"])
        let end = try await f.admin.call("POST", "/v1/activities/flight-end/end", json: ["dismissImmediately": true])
        #expect(end.status == 202, "\(end.json)")
        _ = try await f.settled("flight-end")
        #expect(running(f, "flight-end", "phone-1") == 0, "the end did not reach the phone")

        let again = try await f.admin.call("POST", "/v1/activities/flight-end/start", json: f.startBody(devices: ["phone-1"]))
        #expect(again.status == 409, "\(again.json)")
        #expect(again.errorCode == "already-ended", "\(again.json)")
        #expect(again.errorMessage.contains("\"restart\": true"))
        _ = try await f.settled("flight-end")
        #expect(running(f, "flight-end", "phone-1") == 0, "a dismissed activity came back")

        var body = f.startBody(devices: ["phone-1"]).objectValue ?? [:]
        body["restart"] = true
        let restarted = try await f.admin.call("POST", "/v1/activities/flight-end/start", json: .object(body))
        #expect(restarted.status == 202, "\(restarted.json)")
        _ = try await f.settled("flight-end")
        #expect(running(f, "flight-end", "phone-1") == 1, "restart did not start it again")
        // The new run is running: a start without restart is skipped again.
        let third = try await f.admin.call("POST", "/v1/activities/flight-end/start", json: .object(body))
        #expect(third.status == 409 && third.errorCode == "already-started", "\(third.json)")
        #expect(running(f, "flight-end", "phone-1") == 1)
    }

    /// Starts at once (the backend's retries racing its first call): one is sent, the others are told.
    /// `clients` take turns (instances of the service on one database).
    static func concurrentStarts(_ f: ServiceFixture, clients: [APIClient]) async throws {
        try await f.register("phone-1")
        let body = f.startBody(devices: ["phone-1"])
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for i in 0..<8 {
                let client = clients[i % clients.count]
                group.addTask { let r = try await client.call("POST", "/v1/activities/flight-race/start", json: body); return (r.status, r.errorCode) }
            }
            var all: [(Int, String?)] = []
            for try await s in group { all.append(s) }
            return all
        }
        #expect(statuses.filter { $0.0 == 202 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0.0 == 409 && $0.1 == "already-started" }.count == 7, "\(statuses)")
        _ = try await f.settled("flight-race")
        #expect(onPhone(f, "flight-race", "phone-1").count == 1)
    }

    @Test("eight starts at once: one is sent, seven answer already-started, the phone shows one activity")
    func concurrentOnSQLite() async throws {
        try await Self.with { try await Self.concurrentStarts($0, clients: [$0.admin]) }
    }

    @Test("a second start of a running activity sends nothing (409 already-started) and the phone shows it once; a mixed audience starts only the phone without it")
    func repeatedStartOnSQLite() async throws {
        try await Self.with { try await Self.repeatedStart($0) }
    }

    @Test("an ended, dismissed activity is not started again without \"restart\": true; with it, once")
    func endedOnSQLite() async throws {
        try await Self.with { try await Self.endedNotResurrected($0) }
    }

    @Test("the simulated phone makes a second activity for a second push-to-start of the same attributes, as iOS does")
    func phoneDuplicates() async throws {
        try await Self.with { f in
            try await f.register("phone-1")
            try await f.startAndRegister("flight-dup", phones: ["phone-1"])
            // The same push-to-start queued a second time behind the service's back.
            try f.server.store.write { tx in
                let row = try #require(try tx.deliveries(activityID: "flight-dup", limit: 10).first { $0.target == .pushToStart })
                let send = try #require(try tx.send(row.sendID))
                _ = try tx.insertSend(SendRecord(activityID: "flight-dup", event: "start", bundleID: ServiceFixture.bundle, body: send.body, createdAt: Date()),
                                      deliveries: [NewDelivery(deviceID: "phone-1", target: .pushToStart, token: row.token, priority: 10, notBefore: Date(), environment: row.environment)],
                                      now: Date())
            }
            _ = try await f.settled("flight-dup")
            #expect(Self.running(f, "flight-dup", "phone-1") == 2, "\(Self.onPhone(f, "flight-dup", "phone-1").map(\.id))")
        }
    }

    @Test("restart that is not a boolean is refused naming it, and nothing is sent")
    func restartNotBoolean() async throws {
        try await Self.with { f in
            try await f.register("phone-1")
            var body = f.startBody(devices: ["phone-1"]).objectValue ?? [:]
            body["restart"] = "yes"
            let r = try await f.admin.call("POST", "/v1/activities/flight-bad/start", json: .object(body))
            #expect(r.status == 400, "\(r.json)")
            #expect(r.json["error"]?["field"] == "restart", "\(r.json)")
            #expect(try await f.admin.call("GET", "/v1/activities/flight-bad").status == 404)
        }
    }

    @Test("a repeated Idempotency-Key returns the first start's answer and the phone shows the flight once")
    func idempotentStart() async throws {
        try await Self.with { f in
            try await f.register("phone-1")
            let first = try await f.admin.call("POST", "/v1/activities/flight-key/start", json: f.startBody(devices: ["phone-1"]), headers: ["Idempotency-Key": "start-1"])
            #expect(first.status == 202, "\(first.json)")
            _ = try await f.settled("flight-key")
            let again = try await f.admin.call("POST", "/v1/activities/flight-key/start", json: f.startBody(devices: ["phone-1"]), headers: ["Idempotency-Key": "start-1"])
            #expect(again.status == 202, "\(again.json)")
            #expect(again.json["sendIDs"] == first.json["sendIDs"])
            _ = try await f.settled("flight-key")
            #expect(Self.onPhone(f, "flight-key", "phone-1").count == 1)
        }
    }

    @Test("a start APNs refused (nothing was created on the phone) may be sent again, and then shows once")
    func failedStartGoesAgain() async throws {
        try await Self.with { f in
            try await f.register("phone-1")
            let token = try #require(f.simulator.app(ServiceFixture.bundle, on: "phone-1")?.pushToStartTokens["FlightAttributes"])
            f.simulator.inject(FaultRule(.respond(.payloadTooLarge), scope: .token(token), limit: 1))
            #expect(try await f.admin.call("POST", "/v1/activities/flight-fail/start", json: f.startBody(devices: ["phone-1"])).status == 202)
            _ = try await f.settled("flight-fail")
            let failed = try #require(try await ActivityStatusTests.status(f, "flight-fail", "phone-1"))
            #expect(failed["state"] == "failed", "\(failed)")
            #expect(Self.onPhone(f, "flight-fail", "phone-1").isEmpty)

            let again = try await f.admin.call("POST", "/v1/activities/flight-fail/start", json: f.startBody(devices: ["phone-1"]))
            #expect(again.status == 202, "\(again.json)")
            #expect(again.json["queued"] == 1)
            _ = try await f.settled("flight-fail")
            #expect(Self.running(f, "flight-fail", "phone-1") == 1)
        }
    }

    @Test("a start the force-quit phone never showed is refused again, and \"restart\": true sends it once the app is back")
    func neverShownRestart() async throws {
        try await Self.with(phones: [("quit", "18.2")], configure: { $0.startShownWithin = .milliseconds(300) }) { f in
            try f.simulator.setModes(DeviceModes(forceQuit: true), on: "quit")
            try await f.register("quit")
            #expect(try await f.admin.call("POST", "/v1/activities/flight-quit/start", json: f.startBody(devices: ["quit"])).status == 202)
            let status = try await ActivityStatusTests.reason(f, "flight-quit", "quit")
            #expect(status["reason"]?["code"] == "start-never-shown", "\(status)")
            #expect(status["reason"]?["message"]?.stringValue?.contains("\"restart\": true") == true, "\(status)")
            let plain = try await f.admin.call("POST", "/v1/activities/flight-quit/start", json: f.startBody(devices: ["quit"]))
            #expect(plain.status == 409 && plain.errorCode == "already-started", "\(plain.json)")
            #expect(plain.json["error"]?["skipped"]?.arrayValue?.first?["state"] == "started")

            try f.simulator.setModes(DeviceModes(), on: "quit")
            var body = f.startBody(devices: ["quit"]).objectValue ?? [:]
            body["restart"] = true
            let restarted = try await f.admin.call("POST", "/v1/activities/flight-quit/start", json: .object(body))
            #expect(restarted.status == 202, "\(restarted.json)")
            _ = try await f.settled("flight-quit")
            #expect(Self.running(f, "flight-quit", "quit") == 1)
        }
    }
}

@Suite("One activity per device on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct StartOncePostgresTests {
    @Test("a repeated start and a mixed audience on PostgreSQL")
    func repeatedStartOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await StartOnceTests.with(database: database.url()) { try await StartOnceTests.repeatedStart($0) }
    }

    @Test("eight starts at once on two instances of one PostgreSQL database: one is sent, the phone shows one activity")
    func concurrentOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await StartOnceTests.with(database: database.url()) { f in
            let other = try ServiceServer.start(f.configuration) { _ in }
            do {
                try await StartOnceTests.concurrentStarts(f, clients: [f.admin, APIClient(baseURL: other.url, key: f.admin.key)])
            } catch {
                await other.stop()
                throw error
            }
            await other.stop()
        }
    }

    @Test("an ended activity is not resurrected without restart, on PostgreSQL")
    func endedOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        try await StartOnceTests.with(database: database.url()) { try await StartOnceTests.endedNotResurrected($0) }
    }
}

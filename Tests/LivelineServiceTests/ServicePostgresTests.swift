import Foundation
import LivelineCore
import LivelineService
import LivelineStore
import LivelineTesting
import Testing

@Suite("Service on PostgreSQL", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh, as make test does (LIVELINE_REQUIRE_SERVERS=1 makes this a failure)"))
struct ServicePostgresTests {
    @Test("the flow on PostgreSQL: register, start, update reach the phone; another instance's leased row is left alone")
    func flowOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let password = "svc-pw-91c2"
        let url = database.url(password: password)
        // Another instance, still running, holds a row on the wire under a lease of an hour.
        let other = try PostgresStore(url: url)
        let held = try other.write { tx -> Int64 in
            _ = try tx.insertSend(SendRecord(activityID: "held-elsewhere", event: "update", bundleID: ServiceFixture.bundle, body: Array("{}".utf8), createdAt: Date()),
                                  deliveries: [NewDelivery(deviceID: "elsewhere", target: .token, token: "00ff", priority: 10, notBefore: Date())], now: Date())
            return try tx.claimDue(now: Date(), limit: 10, leaseUntil: Date().addingTimeInterval(3600))[0].id
        }

        let f = try await ServiceFixture { $0.database = url }
        var failure: (any Error)?
        do {
            #expect(f.server.store.isShared)
            #expect(!f.server.store.location.contains(password))
            try await f.register("phone-1")
            try await f.startAndRegister("flight-pg", phones: ["phone-1"])
            let update = try await f.admin.call("POST", "/v1/activities/flight-pg/update", json: ["contentState": ServiceFixture.state(gate: "C7", status: "delayed")])
            #expect(update.status == 202, "\(update.json)")
            let settled = try await f.settled("flight-pg")
            #expect(settled.json["final"] == true)
            #expect(settled.json["counts"]?["sent"] == 2, "\(settled.json)")
            #expect(settled.json["deliveries"]?.arrayValue?.allSatisfy { $0["state"] == "sent" } == true)
            #expect(f.deviceActivity("flight-pg", on: "phone-1")?.contentState["gate"] == "C7")
            // The other instance sees the same outbox, and its leased row was neither released nor sent.
            #expect(try other.write { try $0.deliveryCounts(activityID: "flight-pg") } == [.sent: 2])
            let row = try other.write { try $0.deliveries(activityID: "held-elsewhere", limit: 1) }.first
            #expect(row?.id == held)
            #expect(row?.state == .sending)
            #expect(row?.attempts == 1)
        } catch {
            failure = error
        }
        await f.stop()
        other.close()
        if let failure { throw failure }
    }

    @Test("PostgreSQL dropping the service's connections: requests answer 503 store-unavailable or work, never 500, and the service recovers by itself")
    func recoversFromLostConnections() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture { $0.database = database.url() }
        var failure: (any Error)?
        do {
            try await f.register("phone-1")
            try await f.startAndRegister("flight-lost", phones: ["phone-1"])
            try database.terminateConnections()
            var statuses: [Int] = []
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let r = try await f.admin.call("PUT", "/v1/devices/phone-2", json: ["bundleID": .string(ServiceFixture.bundle), "iosVersion": "18.2"])
                statuses.append(r.status)
                if r.status == 503 { #expect(r.errorCode == "store-unavailable") }
                if r.status != 503 { break }
            }
            #expect(statuses.last == 201, "\(statuses)")
            #expect(statuses.dropLast().allSatisfy { $0 == 503 }, "\(statuses)")
            // Deliveries work again too.
            let update = try await f.admin.call("POST", "/v1/activities/flight-lost/update", json: ["contentState": ServiceFixture.state(gate: "B9")])
            #expect(update.status == 202, "\(update.json)")
            let settled = try await f.settled("flight-lost")
            #expect(settled.json["counts"]?["sent"] == 2, "\(settled.json)")
            #expect(f.deviceActivity("flight-lost", on: "phone-1")?.contentState["gate"] == "B9")
        } catch {
            failure = error
        }
        await f.stop()
        if let failure { throw failure }
    }
}

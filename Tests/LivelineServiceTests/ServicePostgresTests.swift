import Foundation
import LivelineCore
import LivelineService
import LivelineStore
import LivelineTesting
import Testing

@Suite("Service on PostgreSQL", .enabled(if: TestPostgres.isAvailable, "needs the test server of scripts/with-postgres.sh (make test)"))
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
}

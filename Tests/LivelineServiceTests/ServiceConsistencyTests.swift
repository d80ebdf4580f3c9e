import Foundation
import LivelineCore
import LivelineHTTPServer
import LivelineService
import LivelineStore
import LivelineTesting
import Synchronization
import Testing

/// Issue #22's correctness gaps, each shown by the test that failed before its fix: an update
/// racing an end, a brief store error in the outbox, and the webhook with several instances.
@Suite("Service consistency: races and store faults lose nothing")
struct ServiceConsistencyTests {
    static let token = String(repeating: "ab", count: 32)

    /// Makes `rounds` activities (by registering an update token, no push), then sends each an
    /// update (through `updater`) and an end (through `ender`) at the same time. An end answered 202
    /// must stay: the activity reads ended afterwards, and a later update is refused.
    static func updateRacesEnd(_ f: ServiceFixture, updater: APIClient, ender: APIClient, rounds: Int) async throws {
        try await f.register("phone-1")
        var erased: [String] = []
        var ends = 0
        for round in 0..<rounds {
            let id = "race-\(round)"
            let t = try await f.admin.call("PUT", "/v1/activities/\(id)/tokens/phone-1", json: ["token": .string(token), "attributesType": "FlightAttributes"])
            try #require(t.status == 201, "token: \(t.json)")
            // Two updates and the end at once: each update races the end (and the other update).
            async let first = updater.call("POST", "/v1/activities/\(id)/update", json: ["contentState": ServiceFixture.state(gate: "G\(round)")])
            async let second = updater.call("POST", "/v1/activities/\(id)/update", json: ["contentState": ServiceFixture.state(gate: "H\(round)")])
            async let end = ender.call("POST", "/v1/activities/\(id)/end", json: ["contentState": ServiceFixture.state(status: "landed")])
            let (u1, u2, e) = try await (first, second, end)
            for u in [u1, u2] { #expect(u.status == 202 || u.status == 409, "update of \(id): \(u.status) \(u.json)") }
            #expect(e.status == 202, "end of \(id): \(e.status) \(e.json)")
            guard e.status == 202 else { continue }
            ends += 1
            let read = try await f.admin.call("GET", "/v1/activities/\(id)?limit=1")
            if read.json["endedAt"] == nil { erased.append(id) }
            let after = try await f.admin.call("POST", "/v1/activities/\(id)/update", json: ["contentState": ServiceFixture.state(gate: "late")])
            #expect(after.status == 409, "an update after the end of \(id) was answered \(after.status): \(after.json)")
        }
        #expect(ends == rounds)
        #expect(erased.isEmpty, "\(erased.count) of \(rounds) ends were erased by an update that read the activity before the end: \(erased.prefix(10))")
    }

    /// The race needs no push to arrive: APNs is a closed port, so the activities keep their
    /// (made-up) tokens instead of losing them to `BadDeviceToken`, and rows wait a minute between tries.
    static func offline(_ c: inout ServiceConfiguration) {
        c.apnsHost = "127.0.0.1:9"
        c.retryBase = .seconds(60)
    }

    @Test("an update racing an end never erases the end (SQLite, 120 rounds)")
    func updateRacingEndKeepsTheEnd() async throws {
        let f = try await ServiceFixture(configure: Self.offline)
        do { try await Self.updateRacesEnd(f, updater: f.admin, ender: f.admin, rounds: 120) } catch { await f.stop(); throw error }
        await f.stop()
    }

    @Test("an update racing an end on another instance never erases the end (PostgreSQL, two instances, 60 rounds)", .enabled(if: TestPostgres.runs))
    func updateRacingEndKeepsTheEndOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let f = try await ServiceFixture { Self.offline(&$0); $0.database = database.url() }
        var second: ServiceServer?
        do {
            let other = try ServiceServer.start(f.configuration) { _ in }
            second = other
            let ender = APIClient(baseURL: other.url, key: f.admin.key)
            try await Self.updateRacesEnd(f, updater: f.admin, ender: ender, rounds: 60)
        } catch {
            await second?.stop()
            await f.stop()
            throw error
        }
        await second?.stop()
        await f.stop()
    }

    /// A brief store error while the outbox looks up a row's send or app: the rows wait and are
    /// sent, not failed, and the failed lookups spend no attempt.
    static func storeErrorsRetry(_ f: ServiceFixture, _ faults: StoreFaults) async throws {
        try await f.register("phone-1")
        try await f.startAndRegister("flight-faults", phones: ["phone-1"])
        faults.fail("send", times: 3)
        faults.fail("app", times: 2)
        let update = try await f.admin.call("POST", "/v1/activities/flight-faults/update", json: ["contentState": ServiceFixture.state(gate: "F3")])
        #expect(update.status == 202, "\(update.json)")
        let settled = try await f.settled("flight-faults")
        #expect(settled.json["final"] == true, "\(settled.json)")
        #expect(settled.json["counts"]?["sent"] == 2, "\(settled.json)")
        #expect(settled.json["counts"]?["failed"] == 0, "\(settled.json)")
        let row = settled.json["deliveries"]?.arrayValue?.first { $0["event"] == "update" }
        #expect(row?["state"] == "sent", "\(settled.json)")
        #expect(row?["attempts"] == 1, "the store's errors spent attempts: \(row ?? .null)")
        // Every injected fault met the outbox (the rows went round until the store answered).
        #expect(faults.thrown("send") == 3 && faults.thrown("app") == 2, "send: \(faults.thrown("send")) of 3, app: \(faults.thrown("app")) of 2")
        #expect(f.deviceActivity("flight-faults", on: "phone-1")?.contentState["gate"] == "F3")
    }

    @Test("a brief store error in the outbox leaves the rows to retry, never failed (SQLite)")
    func storeErrorsRetryOnSQLite() async throws {
        let faults = StoreFaults()
        let f = try await ServiceFixture(store: StoreOpening { FaultyStore(try openStore(database: $0.database), faults: faults) })
        do { try await Self.storeErrorsRetry(f, faults) } catch { await f.stop(); throw error }
        await f.stop()
    }

    @Test("a brief store error in the outbox leaves the rows to retry, never failed (PostgreSQL)", .enabled(if: TestPostgres.runs))
    func storeErrorsRetryOnPostgres() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let faults = StoreFaults()
        let f = try await ServiceFixture(store: StoreOpening { FaultyStore(try openStore(database: $0.database), faults: faults) }) { $0.database = database.url() }
        do { try await Self.storeErrorsRetry(f, faults) } catch { await f.stop(); throw error }
        await f.stop()
    }
}

/// The backend's webhook for the lease test: counts deliveries by `Idempotency-Key`, answering
/// each after `delay` (a backend that takes its time, so instances overlap).
final class CountingWebhook: Sendable {
    let counts = Mutex([String: Int]())
    let delay: Duration
    init(delay: Duration) { self.delay = delay }

    func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let key = request.headers.first { $0.name.lowercased() == "idempotency-key" }?.value ?? "-"
        try? await Task.sleep(for: delay)
        counts.withLock { $0[key, default: 0] += 1 }
        return .json(200, Array("{}".utf8))
    }
}

@Suite("Service webhooks with several instances", .enabled(if: TestPostgres.runs, "SKIPPED: no PostgreSQL test server (LIVELINE_TEST_POSTGRES_URL is unset): run through scripts/with-postgres.sh"))
struct ServiceWebhookLeaseTests {
    @Test("three instances on one PostgreSQL database deliver each of 40 interactions exactly once")
    func oneDeliveryPerInteraction() async throws {
        let database = try TestPostgres.makeDatabase()
        defer { database.drop() }
        let webhook = CountingWebhook(delay: .milliseconds(20))
        let receiver = try HTTPServer.start(HTTPServerConfiguration()) { await webhook.handle($0) }
        let f = try await ServiceFixture {
            $0.database = database.url()
            $0.webhookURL = receiver.url + "/hooks/liveline"
            $0.webhookSecret = "whsec-lease-\(UUID().uuidString)"
        }
        var others: [ServiceServer] = []
        var failure: (any Error)?
        let n = 40
        do {
            for _ in 0..<2 { others.append(try ServiceServer.start(f.configuration) { _ in }) }
            try await f.register("phone-1")
            let t = try await f.admin.call("PUT", "/v1/activities/lease-1/tokens/phone-1", json: ["token": .string(ServiceConsistencyTests.token), "attributesType": "FlightAttributes"])
            try #require(t.status == 201, "\(t.json)")
            // Spread over the instances, as a load balancer would.
            let apis = [f.admin] + others.map { APIClient(baseURL: $0.url, key: f.admin.key) }
            for i in 0..<n {
                let r = try await apis[i % apis.count].call("POST", "/v1/activities/lease-1/interactions", json: ["action": "tap", "payload": ["i": .number(Double(i))]],
                                                           headers: ["Idempotency-Key": "tap-\(i)"])
                try #require(r.status == 201, "\(r.json)")
            }
            try await until("every interaction to be delivered", within: .seconds(60)) {
                try f.server.store.write { try $0.interactions(activityID: "lease-1", limit: 1000) }.allSatisfy { $0.webhookState == "delivered" }
            }
        } catch {
            failure = error
        }
        // Stopped instances deliver nothing more: the receiver's counts are final.
        for other in others { await other.stop() }
        await f.stop()
        await receiver.stop()
        if let failure { throw failure }
        let counts = webhook.counts.withLock { $0 }
        #expect(counts.count == n, "\(counts.count) of \(n) interactions reached the webhook")
        let repeated = counts.filter { $0.value != 1 }
        #expect(repeated.isEmpty, "delivered more than once: \(repeated.sorted { $0.key < $1.key }.prefix(10))")
    }
}

import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelinePostgres
import LivelineStore
import LivelineTesting

/// `liveline-bench scale`: the service on PostgreSQL with 1, 2 and 3 instances, beside one instance
/// on SQLite and the raw client, and the outbox's claim/complete cycle beside the database's own
/// ceiling. It starts a throw-away PostgreSQL of its own.
enum BenchScaleCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench scale", abstract: "Benchmark scale-out: fan-out with 1–3 instances on PostgreSQL vs SQLite and the raw client; outbox cycles vs INSERT + DELETE.",
        usage: "[--fanout N] [--cycles N] [--batch N] [--only fanout|outbox]",
        options: [
            .init(name: "fanout", valueName: "n", help: "Tokens in each fan-out (default 100000)."),
            .init(name: "cycles", valueName: "n", help: "Outbox rows claimed and completed (default 100000)."),
            .init(name: "batch", valueName: "n", help: "Rows per claim and per INSERT/DELETE transaction (default 250, what one worker pipeline claims)."),
            .init(name: "only", valueName: "part", help: "Run one part: fanout or outbox."),
        ],
        discussion: """
            fanout  one update to N tokens, POST to every row final, each through real `liveline serve`
                    processes to an in-process simulator: 1, 2 and 3 instances sharing one PostgreSQL,
                    1 instance on SQLite, beside APNSClient.sendAll of the same pushes.
            outbox  rows claimed (FOR UPDATE SKIP LOCKED, under a lease) and completed (`sent`) in batches,
                    one transaction each, beside INSERT of a batch and DELETE of it on the same server.
            Needs PostgreSQL's server programs (Debian: postgresql) and curl.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let fanout = try arguments.int("fanout") ?? 100_000
        let cycles = try arguments.int("cycles") ?? 100_000
        let batch = try arguments.int("batch") ?? 250
        guard fanout > 0, cycles > 0, batch > 0 else { throw arguments.usageError("'--fanout', '--cycles' and '--batch' must be positive") }
        let only = try arguments.choice("only", among: ["fanout", "outbox"])
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        let cluster = try PostgresCluster.start()
        defer { cluster.remove() }
        let version = (try? PostgresConnection(cluster.url)).flatMap { c in defer { c.close() }; return try? c.queryOne("SHOW server_version")?.string("server_version") } ?? "?"
        Console.out("liveline bench scale: \(ProcessInfo.processInfo.activeProcessorCount) cores, PostgreSQL \(version) (throw-away, fsync off), SQLite \(SQLiteStore.libraryVersion)")
        if only == nil || only == "fanout" { try await fanOut(workspace, cluster, count: fanout) }
        if only == nil || only == "outbox" { try outbox(cluster, count: cycles, batch: batch) }
        return 0
    }

    static func fanOut(_ workspace: BenchWorkspace, _ cluster: PostgresCluster, count: Int) async throws {
        let setupStart = Date()
        let rig = try FanOutRig(workspace: workspace, phones: count, logCapacity: 0, seed: 1)
        Console.err("fanout: \(count) simulated phones with a running activity in \(String(format: "%.1f", Date().timeIntervalSince(setupStart))) s")

        // The raw client, the same pushes.
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "C7", boardingTime: Date().addingTimeInterval(4800))
        let request = PushRequest.liveActivity(try .update(state: state), bundleID: FanOutRig.bundle)
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: .token(key: try P256PrivateKey(pem: rig.keyPEM), keyID: rig.keyID, teamID: rig.teamID),
            environment: .custom(host: "127.0.0.1", port: rig.server.port, caFile: rig.server.caFile)))
        let rawStart = Date()
        var rawAccepted = 0
        for await r in client.sendAll(rig.tokens.map { (request, $0) }) where r.result.isAccepted { rawAccepted += 1 }
        let raw = Double(count) / Date().timeIntervalSince(rawStart)
        await client.shutdown()
        Console.out("fanout         raw APNSClient.sendAll: \(Int(raw)) pushes/s (\(rawAccepted) accepted)")

        /// POST one update through `instances` and wait until every row is final: pushes a second.
        func measure(_ activityID: String, _ instances: [FanOutRig.Instance], key: String) throws -> (rate: Double, sent: Int) {
            let api = try CurlClient(baseURL: instances[0].url, key: key, workspace: workspace)
            let start = Date()
            _ = try api.expect("POST", "/v1/activities/\(activityID)/update", FanOutRig.updateBody(gate: "S\(instances.count)"))
            let snapshot = try FanOutRig.waitFinal(api, activityID, timeout: 1200)
            return (Double(count) / Date().timeIntervalSince(start), Int(snapshot["counts"]?["sent"]?.numberValue ?? 0))
        }

        let sqlite = workspace.directory.appendingPathComponent("scale.db").path
        let sqliteKey = try rig.seed(database: sqlite, activityIDs: ["scale-sqlite"])
        let one = try await FanOutRig.serve(rig.environment(database: sqlite))
        let onSQLite = try measure("scale-sqlite", [one], key: sqliteKey)
        _ = await one.stop()
        Console.out("               1 instance on SQLite: \(Int(onSQLite.rate)) pushes/s (\(onSQLite.sent) sent): \(BenchServiceCommand.ratio(onSQLite.rate, raw))× the raw client")

        let url = try cluster.makeDatabase("liveline_scale")
        let key = try rig.seed(database: url, activityIDs: ["scale-pg1", "scale-pg2", "scale-pg3"])
        var instances: [FanOutRig.Instance] = []
        var rates: [Double] = []
        for n in 1...3 {
            // Instances join one by one: every running instance shares the outbox.
            instances.append(try await FanOutRig.serve(rig.environment(database: url)))
            let r = try measure("scale-pg\(n)", instances, key: key)
            rates.append(r.rate)
            Console.out("               \(n) instance\(n == 1 ? "" : "s") on PostgreSQL: \(Int(r.rate)) pushes/s (\(r.sent) sent): \(BenchServiceCommand.ratio(r.rate, raw))× the raw client, "
                        + "\(BenchServiceCommand.ratio(r.rate, onSQLite.rate))× SQLite\(n > 1 ? ", \(BenchServiceCommand.ratio(r.rate, rates[0]))× one instance" : "")")
        }
        for i in instances { _ = await i.stop() }
        await rig.stop()
    }

    static func outbox(_ cluster: PostgresCluster, count: Int, batch: Int) throws {
        let url = try cluster.makeDatabase("liveline_outbox")
        let store = try PostgresStore(url: url)
        defer { store.close() }
        let now = Date()
        try store.write { tx in
            _ = try tx.insertSend(SendRecord(activityID: "outbox-bench", event: "update", bundleID: "com.example.flights", body: Array("{}".utf8), createdAt: now),
                                  deliveries: (0..<count).map { NewDelivery(deviceID: "d\($0)", target: .token, token: String(format: "%064x", $0), priority: 10, notBefore: now) },
                                  now: now)
        }
        let start = Date()
        var done = 0
        while true {
            let t = Date()
            let rows = try store.write { try $0.claimDue(now: t, limit: batch, leaseUntil: t.addingTimeInterval(60)) }
            if rows.isEmpty { break }
            try store.write { try $0.record(rows.map { DeliveryOutcome(id: $0.id, state: .sent, apnsID: "00000000-0000-0000-0000-000000000000", status: 200) }, now: Date()) }
            done += rows.count
        }
        let outboxRate = Double(done) / Date().timeIntervalSince(start)

        // The ceiling: a batch INSERTed in one transaction and DELETEd in the next, nothing else.
        let plain = try PostgresConnection(url)
        defer { plain.close() }
        try plain.execute("CREATE TABLE plain_queue (id bigserial PRIMARY KEY, token text NOT NULL, state text NOT NULL)")
        let plainStart = Date()
        var moved = 0
        while moved < count {
            let n = min(batch, count - moved)
            let ids = try plain.transaction {
                try plain.query("INSERT INTO plain_queue (token, state) SELECT lpad(to_hex(g), 64, '0'), 'queued' FROM generate_series($1::bigint, $2::bigint) AS g RETURNING id",
                                [.integer(Int64(moved)), .integer(Int64(moved + n - 1))]).compactMap { $0.int64("id") }
            }
            _ = try plain.transaction { try plain.run("DELETE FROM plain_queue WHERE id = ANY($1::bigint[])", [.integerArray(ids)]) }
            moved += ids.count
        }
        let plainRate = Double(moved) / Date().timeIntervalSince(plainStart)
        Console.out("outbox         \(Int(outboxRate)) claim/complete cycles/s (\(done) rows, \(batch) a claim, FOR UPDATE SKIP LOCKED) vs \(Int(plainRate)) rows/s INSERT + DELETE in the same batches: "
                    + "\(BenchServiceCommand.ratio(outboxRate, plainRate))× the database's ceiling")
    }
}

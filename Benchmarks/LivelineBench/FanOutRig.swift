import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineService
import LivelineSimulator
import LivelineStore
import LivelineProcess
import LivelineTesting

/// What the fault and scale benches share: an in-process simulator with one phone per token, each
/// running a flight activity, served over HTTP/2 + TLS on loopback; a store seeded with those tokens
/// under one logical activity; real `liveline serve` processes in front of it; and the check of a
/// fan-out's outcome, row by row, against the simulator's log.
final class FanOutRig: @unchecked Sendable {
    static let bundle = "com.example.flights"
    let workspace: BenchWorkspace
    let simulator: Simulator
    let server: SimulatorServer
    /// Update token of phone `p<i>` at index i.
    let tokens: [String]
    let keyPEM: String
    let keyID: String
    let teamID: String

    /// `phones` simulated iPhones (ids `p0`…) with a running activity; the log keeps `logCapacity` pushes.
    init(workspace: BenchWorkspace, phones: Int, logCapacity: Int, seed: UInt64, faults: [FaultRule] = []) throws {
        self.workspace = workspace
        let made = try SimulatorSetup.generated(in: workspace.directory.path + "/sim-\(UUID().uuidString.prefix(4))")
        var setup = made.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: Self.bundle, teamID: made.teamID)]
        setup.configuration.logCapacity = logCapacity
        setup.configuration.seed = seed
        setup.faults = faults
        simulator = try setup.makeSimulator()
        let flight = FlightAttributes.example(departure: Date().addingTimeInterval(7200))
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: Date().addingTimeInterval(4800))
        var tokens: [String] = []
        tokens.reserveCapacity(phones)
        for i in 0..<phones {
            let id = simulator.addDevice(name: "p\(i)", osVersion: "17.5", id: "p\(i)")
            _ = try simulator.install(Self.bundle, on: id, activityTypes: [.type(FlightAttributes.self)])
            tokens.append(try simulator.startActivity(on: id, bundleID: Self.bundle, attributes: flight, contentState: state).pushToken!)
        }
        self.tokens = tokens
        server = try SimulatorServer.start(simulator: simulator, certificates: workspace.certificates)
        keyPEM = String(decoding: FileManager.default.contents(atPath: made.keyFile) ?? Data(), as: UTF8.self)
        keyID = made.keyID
        teamID = made.teamID
    }

    func stop() async { await server.stop() }

    /// Writes the app, an admin key, the phones and activity `activityID` with every phone's update
    /// token into `database`; returns the admin key.
    func seed(database: String, activityIDs: [String]) throws -> String {
        let store = try openStore(database: database)
        defer { store.close() }
        let key = KeyAuthority.make(scope: .admin, name: "bench", now: Date())
        let now = Date()
        try store.write { tx in
            try tx.insertKey(key.record)
            try tx.upsertApp(AppRecord(bundleID: Self.bundle, teamID: teamID, keyID: keyID, keyPEM: keyPEM, environment: "sandbox", createdAt: now))
            for i in tokens.indices {
                try tx.upsertDevice(DeviceRecord(deviceID: "p\(i)", bundleID: Self.bundle, iosVersion: "17.5", userID: nil, frequentUpdates: false, updatedAt: now))
            }
        }
        for activityID in activityIDs {
            try store.write { tx in
                try tx.upsertActivity(ActivityRecord(activityID: activityID, bundleID: Self.bundle, attributesType: "FlightAttributes", channelID: nil, startedAt: now))
                for (i, t) in tokens.enumerated() {
                    try tx.setActivityToken(TokenRecord(scope: activityID, deviceID: "p\(i)", token: t, registeredAt: now))
                }
            }
        }
        return key.secret
    }

    /// The service's environment: this simulator, `database`, a free port; `extra` on top.
    func environment(database: String, _ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging([
            "LIVELINE_DATABASE": database, "LIVELINE_APNS_HOST": "127.0.0.1:\(server.port)", "LIVELINE_CA_FILE": server.caFile,
            "LIVELINE_PORT": "0", "LIVELINE_RATE_LIMIT": "1000000", "LIVELINE_RATE_BURST": "1000000",
        ]) { $1 }.merging(extra) { $1 }
    }

    /// A `liveline serve` process (the `liveline` beside this one), once it printed `Ready.`.
    static func serve(_ environment: [String: String]) async throws -> Instance {
        let executable = try BenchWorkspace.liveline()
        let process = try RunningProcess.start(executable, ["serve"], environment: environment, keepStandardError: true)
        let out = try await process.output(containing: "Ready.")
        guard let url = out.line(after: "listening on ") else {
            process.send(SIGKILL)
            throw CLIError(message: "serve did not print where it listens:\n\(out)")
        }
        return Instance(process: process, url: url)
    }

    struct Instance {
        let process: RunningProcess
        let url: String
        /// SIGTERM, and the exit status.
        func stop() async -> Int32 {
            process.send(SIGTERM)
            return await process.exitStatus()
        }
    }

    /// An update's body (a new gate), with dates as the API takes them.
    static func updateBody(gate: String) -> JSONValue {
        ["contentState": ["status": "scheduled", "gate": .string(gate), "boardingTime": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(4800))),
                          "delayMinutes": 0, "isBoarding": false]]
    }

    /// Waits on the service's own long poll until every row of `activityID` is final.
    static func waitFinal(_ api: CurlClient, _ activityID: String, timeout: TimeInterval = 600) throws -> JSONValue {
        let deadline = Date().addingTimeInterval(timeout)
        var snapshot: JSONValue = .null
        while snapshot["final"] != .bool(true) {
            guard Date() < deadline else { throw CLIError(message: "\(activityID) not final within \(Int(timeout)) s: \(snapshot["counts"]?.jsonString ?? "?")") }
            snapshot = try api.expect("GET", "/v1/activities/\(activityID)?wait=30&limit=1")
        }
        return snapshot
    }

    /// HTTP 200 answers the simulator gave to update pushes since log position `after`.
    func acceptedUpdates(after sequence: Int = 0) -> Int {
        simulator.log().reduce(0) { $0 + ($1.sequence > sequence && $1.event == "update" && $1.status == 200 ? 1 : 0) }
    }

    /// The outcome of a fan-out, row by row against the simulator's log.
    struct Outcome: CustomStringConvertible {
        var rows = 0
        var sent = 0
        var notFinal = 0
        var failed: [String] = []
        /// Phones with no row or more than one.
        var rowMismatch = 0
        /// Phones the simulator never answered 200 for the update: lost pushes.
        var lost = 0
        /// Rows whose apns-id is not among the simulator's 200 answers for that phone.
        var disagreeing = 0
        /// 200 answers beyond the first, per phone.
        var duplicates = 0
        /// Pushes of the event the simulator answered 200.
        var accepted = 0
        /// Attempts the service recorded.
        var attempts = 0

        var clean: Bool { notFinal == 0 && failed.isEmpty && rowMismatch == 0 && lost == 0 && disagreeing == 0 && sent == rows }
        var description: String {
            "\(rows) rows: \(sent) sent, \(notFinal) not final, \(failed.count) failed\(failed.isEmpty ? "" : " (\(failed.prefix(3).joined(separator: "; ")))"), "
                + "\(rowMismatch) phones without exactly one row, \(lost) lost, \(disagreeing) apns-ids the simulator never gave; "
                + "simulator: \(accepted) answered 200, \(duplicates) duplicates; service: \(attempts) attempts recorded"
        }
    }

    /// Reads every row of `activityID` for `event` from `database` and checks it against the simulator's
    /// log of those pushes after position `after`: one final row per phone, `sent` with an apns-id the
    /// simulator gave for that phone, every phone answered 200 at least once; duplicates counted.
    func check(database: String, activityID: String, event: String = "update", after sequence: Int = 0) throws -> Outcome {
        let store = try openStore(database: database)
        defer { store.close() }
        let rows = try store.write { try $0.deliveries(activityID: activityID, limit: tokens.count * 4 + 10) }.filter { $0.event == event }
        var answered: [String: [String]] = [:]
        var outcome = Outcome()
        for record in simulator.log() where record.sequence > sequence && record.event == event {
            guard record.status == 200 else { continue }
            outcome.accepted += 1
            let device = record.deliveries.first?.deviceID ?? record.path
            answered[device, default: []].append(record.apnsID)
        }
        var rowsPerPhone: [String: Int] = [:]
        outcome.rows = rows.count
        for row in rows {
            let phone = row.deviceID ?? "?"
            rowsPerPhone[phone, default: 0] += 1
            outcome.attempts += row.attempts
            if !row.state.isFinal { outcome.notFinal += 1 }
            if row.state == .sent { outcome.sent += 1 } else if row.state.isFinal { outcome.failed.append("\(phone) \(row.state.rawValue): \(row.reason ?? "")") }
            if row.state == .sent, !(answered[phone]?.contains { $0.lowercased() == row.apnsID?.lowercased() } ?? false) { outcome.disagreeing += 1 }
        }
        for i in tokens.indices {
            let phone = "p\(i)"
            if rowsPerPhone[phone] != 1 { outcome.rowMismatch += 1 }
            let n = answered[phone]?.count ?? 0
            if n == 0 { outcome.lost += 1 }
            outcome.duplicates += max(0, n - 1)
        }
        return outcome
    }
}

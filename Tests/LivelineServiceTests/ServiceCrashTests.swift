import Foundation
import LivelineCore
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Testing

@Suite("Service: kill -9 during a fan-out loses nothing")
struct ServiceCrashTests {
    @Test("every accepted push reaches a final state after SIGKILL and a restart; duplicates stay within the in-flight window")
    func killDuringFanOut() async throws {
        let phones = 400
        let window = 20
        let f = try await ServiceFixture(phones: (0..<phones).map { ("p\($0)", "18.2") })
        // The in-process service only sets up the registry; a real `liveline serve` process does the fan-out.
        for i in 0..<phones { try await f.register("p\(i)") }
        try await f.startAndRegister("flight-kill", phones: (0..<phones).map { "p\($0)" })
        await f.server.stop()

        let binary = BuiltProduct.path("liveline")
        let environment = ProcessInfo.processInfo.environment.merging([
            "LIVELINE_MAX_IN_FLIGHT": String(window), "LIVELINE_DATABASE": f.configuration.database,
            "LIVELINE_APNS_HOST": f.configuration.apnsHost!, "LIVELINE_CA_FILE": f.configuration.caFile!, "LIVELINE_PORT": "0", "LIVELINE_KEK": f.configuration.kek ?? "",
        ]) { _, new in new }
        // Each push waits 5 ms at the simulator, so the fan-out takes long enough to be interrupted.
        f.simulator.inject(FaultRule(.latency(0.005)))
        let first = try RunningProcess.start(binary, ["serve"], environment: environment, keepStandardError: true)
        let out = try await first.output(containing: "Ready.", within: .seconds(60))
        let url = try #require(out.split(separator: "\n").first { $0.contains("listening on") }.map { String($0.split(separator: " ").last!) })
        let admin = APIClient(baseURL: url, key: f.admin.key)
        let accepted = try await admin.call("POST", "/v1/activities/flight-kill/update", json: ["contentState": ServiceFixture.state(gate: "K9")])
        #expect(accepted.status == 202, "\(accepted.json)")
        #expect(accepted.json["queued"]?.numberValue == Double(phones))
        let before = f.simulator.counts.accepted
        // Kill once a quarter of the fan-out has reached the simulator (waiting on the simulator's own count).
        try await until("a quarter of the fan-out to reach the simulator", within: .seconds(60), poll: .milliseconds(1)) {
            f.simulator.counts.accepted >= before + phones / 4
        }
        first.send(SIGKILL)
        #expect(try await first.exitStatus(within: .seconds(30)) == 128 + SIGKILL)
        let atKill = f.simulator.counts.accepted - before
        #expect(atKill < phones, "the fan-out finished before the kill; the test proves nothing")

        let second = try RunningProcess.start(binary, ["serve"], environment: environment, keepStandardError: true)
        let out2 = try await second.output(containing: "Ready.", within: .seconds(60))
        #expect(out2.contains("were on the wire when the last run stopped"))
        let url2 = try #require(out2.split(separator: "\n").first { $0.contains("listening on") }.map { String($0.split(separator: " ").last!) })
        let after = try await APIClient(baseURL: url2, key: f.admin.key).call("GET", "/v1/activities/flight-kill?wait=30&limit=10000")
        #expect(after.json["final"] == true)
        let updates = after.json["deliveries"]?.arrayValue?.filter { $0["event"] == "update" } ?? []
        #expect(updates.count == phones)
        #expect(updates.allSatisfy { $0["state"] == "sent" })
        second.send(SIGTERM)
        #expect(try await second.exitStatus(within: .seconds(30)) == 0)

        // Against the simulator's log: every phone got the update at least once; repeats only for what was on the wire.
        var perToken: [String: Int] = [:]
        for record in f.simulator.log() where record.event == "update" && record.verdict == .accepted {
            perToken[record.path, default: 0] += 1
        }
        #expect(perToken.count == phones)
        let duplicates = perToken.values.reduce(0) { $0 + $1 - 1 }
        #expect(duplicates <= window, "\(duplicates) duplicates, in-flight window \(window)")
        for i in 0..<phones { #expect(f.deviceActivity("flight-kill", on: "p\(i)")?.contentState["gate"] == "K9") }
        await f.simulatorServer.stop()
        try? FileManager.default.removeItem(atPath: f.directory)
    }
}

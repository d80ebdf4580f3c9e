import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineHTTP2
import LivelineSimulator

/// `liveline-bench simulator --rss`: resident memory while the simulator takes in-process pushes
/// that start, update and end activities (by token and by channel), then while clients open and
/// close TLS connections to its server. Retained state is bounded, so RSS should level off.
extension BenchSimulatorCommand {
    static func runRSS(pushes: Int, connections: Int) async throws -> Int32 {
        let workspace = try BenchWorkspace()
        defer { workspace.remove() }
        let made: (setup: SimulatorSetup, keyFile: String, keyID: String, teamID: String)
        do { made = try SimulatorSetup.generated(in: workspace.directory.path) } catch { throw CLIError(message: error.message) }
        let clock = VirtualClock()
        var setup = made.setup
        // A push-to-start every few virtual seconds: the device's start budget would drop most of them.
        setup.configuration.deviceRules.pushToStartBudget = .max
        let simulator = try setup.makeSimulator(clock: clock)
        guard let device = simulator.devices().first, let app = device.apps.first, let pushToStart = app.pushToStartTokens["FlightAttributes"] else {
            throw CLIError(message: "the generated setup has no app with FlightAttributes")
        }
        let channel = try simulator.createChannel(bundleID: app.bundleID)
        let topic = app.bundleID + ".push-type.liveactivity"
        let attributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": 800_000_000]
        func state(_ gate: Int) -> JSONValue { ["status": "boarding", "gate": .string("B\(gate)"), "boardingTime": 800_000_000, "delayMinutes": 0, "isBoarding": true] }
        var connection = ConnectionState.trusted
        func send(_ path: String, _ aps: JSONObject, channel: String? = nil) {
            var aps = aps
            aps["timestamp"] = .number(clock.now.timeIntervalSince1970)
            var headers: [SimulatorRequest.Header] = [.init("apns-push-type", "liveactivity")]
            if let channel { headers.append(.init("apns-channel-id", channel)) } else { headers.append(.init("apns-topic", topic)) }
            _ = simulator.handle(SimulatorRequest(path: path, headers: headers, body: JSONValue.object(["aps": .object(aps)]).serialized()), connection: &connection)
            clock.advance(by: 1)
        }
        func report(_ label: String) {
            let (rss, peak) = residentMemory()
            Console.out(label.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: " RSS %7.1f MB, peak %7.1f MB; kept %d events, %d activities, %d log records",
                               rss, peak, simulator.events().count, simulator.activities().count, simulator.log().count))
        }
        report("start")
        var sent = 0
        var cycle = 0
        var nextReport = min(100_000, pushes)
        let broadcastPath = "/4/broadcasts/apps/" + app.bundleID
        while sent < pushes {
            cycle += 1
            let byChannel = cycle % 2 == 0
            let update: JSONObject = ["event": "update", "content-state": state(cycle % 50 + 1)]
            if byChannel {
                // Push-to-start into the channel, then a broadcast update and end.
                send("/3/device/" + pushToStart, ["event": "start", "attributes-type": "FlightAttributes", "attributes": attributes,
                                                  "content-state": state(cycle % 50), "alert": ["title": "Boarding", "body": "Gate B12"],
                                                  "input-push-channel": .string(channel)])
                send(broadcastPath, update, channel: channel)
                send(broadcastPath, ["event": "end", "dismissal-date": .number(clock.now.timeIntervalSince1970)], channel: channel)
                sent += 3
            } else {
                // Started by the app (which hands back the update token), then an update and end by token.
                let started = try simulator.startActivity(on: device.id, bundleID: app.bundleID, attributesType: "FlightAttributes",
                                                          attributes: attributes, contentState: state(cycle % 50))
                guard let token = started.pushToken else { throw CLIError(message: "an app-started activity got no update token") }
                send("/3/device/" + token, update)
                send("/3/device/" + token, ["event": "end", "dismissal-date": .number(clock.now.timeIntervalSince1970)])
                sent += 2
            }
            if sent >= nextReport {
                report("after \(sent) pushes")
                nextReport = nextReport >= 1_000_000 ? nextReport + 1_000_000 : nextReport * 10
                nextReport = min(max(nextReport, sent + 1), pushes)
            }
        }
        let counts = simulator.counts
        Console.out("pushes: \(counts.accepted) accepted, \(counts.rejected) rejected, \(counts.dropped) dropped")
        if connections > 0 {
            let server = try SimulatorServer.start(simulator: simulator, certificates: workspace.certificates)
            let caFile = workspace.caFile
            let port = server.port
            let workers = 8
            var failures = 0
            var opened = 0
            var nextConnectionReport = min(10_000, connections)
            while opened < connections {
                let batch = min(nextConnectionReport - opened, connections - opened)
                failures += await withTaskGroup(of: Int.self) { group in
                    for w in 0..<workers {
                        group.addTask {
                            var failed = 0
                            var i = w
                            while i < batch {
                                do {
                                    let c = try await HTTP2Connection.connect(host: "127.0.0.1", port: port, configuration: HTTP2ClientConfiguration(trust: .caFile(caFile), idlePingInterval: nil))
                                    await c.close()
                                } catch {
                                    failed += 1
                                }
                                i += workers
                            }
                            return failed
                        }
                    }
                    return await group.reduce(0, +)
                }
                opened += batch
                // Closes are seen by the server's loop shortly after the client's.
                try await Task.sleep(for: .milliseconds(200))
                let (rss, peak) = residentMemory()
                Console.out("after \(opened) connections opened and closed".padding(toLength: 44, withPad: " ", startingAt: 0)
                    + String(format: " RSS %7.1f MB, peak %7.1f MB; %d still open on the server", rss, peak, server.connectionStates.count))
                nextConnectionReport = min(nextConnectionReport + 10_000, connections)
            }
            if failures > 0 { Console.out("\(failures) connections failed") }
            await server.stop()
        }
        return 0
    }

    /// Current and peak resident set size in MB (`VmRSS`, `VmHWM` in /proc/self/status).
    static func residentMemory() -> (current: Double, peak: Double) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func kB(_ field: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
            return Double(line.dropFirst(field.count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
        }
        return (kB("VmRSS:") / 1024, kB("VmHWM:") / 1024)
    }
}

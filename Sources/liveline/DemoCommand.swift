import Foundation
import LivelineAPNS
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelinePreview
import LivelineSimulator
import LivelineUI

/// `liveline demo`: the flight tracker end to end. A local APNs simulator and a simulated iPhone
/// run in this process; Liveline's client sends each push over HTTP/2 and TLS on loopback.
enum DemoCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline demo", abstract: "Run the flight-tracker story end to end against a local APNs simulator.",
        usage: "[--in-process | --offline] [--bundle-id ID] [--state-dir DIR]",
        options: [
            .init(name: "bundle-id", valueName: "ID", help: "The app's bundle id (default com.example.flights; --in-process and --offline)."),
            .init(name: "in-process", valueName: nil, help: "Without the service: the client talks to an in-process simulator on a virtual clock."),
            .init(name: "offline", valueName: nil, help: "Only build, validate and print each push; start no simulator."),
            .init(name: "state-dir", valueName: "DIR", help: "Where the simulator's key and certificates go (default: a temporary directory)."),
        ],
        discussion: """
        By default the story runs through the service: 'liveline simulator' and 'liveline serve' (SQLite)
        start as processes on loopback, two simulated iPhones (iOS 18.2 and 17.5) register with the service
        over HTTP, and the backend sends by logical activity id: the iOS 18 phone follows a broadcast
        channel, the iOS 17 phone gets per-token pushes.

        With --in-process, the story: push-to-start (LL 1234, LIS→ZRH, gate B12), gate change, a 25-minute delay, boarding,
        landing. Then the failure that APNs answers with 200: an update whose keys do not match the
        ContentState, which the device drops. A virtual clock moves the story through 4 hours in a second.
        """)

    struct Step {
        var title: String
        var request: PushRequest
        /// Seconds after the story's start.
        var at: TimeInterval
    }

    /// The story: start, gate change, delay, boarding, landing. Times step forward from `now`.
    static func story(bundleID: String, now: Date) throws -> [Step] {
        let departure = Date(timeIntervalSinceReferenceDate: (now.addingTimeInterval(2 * 3600).timeIntervalSinceReferenceDate / 300).rounded(.down) * 300)
        let flight = FlightAttributes.example(departure: departure)
        var state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: departure.addingTimeInterval(-40 * 60))
        var steps: [Step] = []
        func add(_ title: String, _ offset: TimeInterval, _ push: LiveActivityPush, priority: Priority = .immediate) {
            steps.append(Step(title: title, request: .liveActivity(push, bundleID: bundleID, priority: priority), at: offset))
        }
        add("1. Start (to the push-to-start token): LL 1234 LIS→ZRH, gate B12", 0, try .start(
            attributes: flight, state: state,
            alert: Alert(title: .localized(key: "Flight %@ is tracked", arguments: [flight.flightNumber]), body: "Gate B12, boarding 40 min before departure", sound: "default"),
            timestamp: now, staleDate: departure.addingTimeInterval(3600), input: .pushToken))
        state.gate = "C7"
        add("2. Gate change B12 → C7", 600, try .update(
            state: state, timestamp: now.addingTimeInterval(600),
            alert: Alert(title: "Gate change", body: "LL 1234 now departs from gate C7", sound: "default")))
        state.status = .delayed
        state.delayMinutes = 25
        state.boardingTime.addTimeInterval(25 * 60)
        add("3. Delay of 25 minutes (priority 5: does not spend the update budget)", 1200, try .update(
            state: state, timestamp: now.addingTimeInterval(1200), staleDate: departure.addingTimeInterval(25 * 60 + 3600)), priority: .considerate)
        state.status = .boarding
        state.isBoarding = true
        add("4. Boarding", 5400, try .update(
            state: state, timestamp: now.addingTimeInterval(5400),
            alert: Alert(title: "Boarding", body: "LL 1234 is boarding at gate C7", sound: "default"), relevanceScore: 100))
        state.status = .landed
        state.isBoarding = false
        let landing = departure.addingTimeInterval(25 * 60 + 2.5 * 3600)
        add("5. Landed: end, dismissed 1 hour later", landing.timeIntervalSince(now), try .end(
            state: state, timestamp: landing, dismissal: .at(landing.addingTimeInterval(3600))))
        return steps
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let bundleID = arguments.value("bundle-id") ?? "com.example.flights"
        if arguments.flag("offline") && arguments.flag("in-process") { throw arguments.usageError("give '--offline' or '--in-process', not both") }
        if arguments.flag("offline") { return try offline(bundleID: bundleID) }
        if arguments.flag("in-process") { return try await endToEnd(bundleID: bundleID, stateDirectory: arguments.value("state-dir")) }
        if arguments.value("bundle-id") != nil { throw arguments.usageError("'--bundle-id' goes with '--in-process' or '--offline'") }
        return try await throughService(stateDirectory: arguments.value("state-dir"))
    }

    /// Prints each push, validated, with its size against the 4 KB limit.
    static func offline(bundleID: String) throws -> Int32 {
        Console.out("Liveline demo (offline): the flight tracker, \(bundleID)\n")
        for step in try story(bundleID: bundleID, now: Date()) {
            let bytes: [UInt8]
            do { bytes = try step.request.validate() } catch { throw CLIError(message: "\(step.title): \(error.message)") }
            Console.out("== \(step.title)")
            Console.out(step.request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            Console.out(step.request.body.prettyPrinted())
            Console.out("size: \(sizeLine(bytes.count)) \(lintLine(step.request.body))\n")
        }
        return 0
    }

    static func sizeLine(_ count: Int) -> String {
        let bar = String(repeating: "#", count: max(1, count * 40 / 4096)).padding(toLength: 40, withPad: ".", startingAt: 0)
        return "\(count) of 4096 bytes [\(bar)]"
    }

    static func lintLine(_ body: JSONValue) -> String {
        let findings = Linter(now: Date.distantPast).lint(body: body)
        return findings.isEmpty ? "lint: clean" : "lint: " + findings.map(\.description).joined(separator: "; ")
    }

    static func prefix(_ token: String) -> String { String(token.prefix(8)) + "…" }

    /// The story against the simulator, through the real client, with the device's view after each push.
    static func endToEnd(bundleID: String, stateDirectory: String?) async throws -> Int32 {
        let directory = stateDirectory ?? NSTemporaryDirectory() + "liveline-demo-\(getpid())"
        defer { if stateDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60)
        let clock = VirtualClock(start: start)

        // APNs: one team, one key, the app; an iPhone on iOS 18.2 with the app installed.
        let generated: (setup: SimulatorSetup, keyFile: String, keyID: String, teamID: String)
        let simulator: Simulator
        let server: SimulatorServer
        let deviceID: String
        let pushToStart: String
        do {
            generated = try SimulatorSetup.generated(in: directory)
            var setup = generated.setup
            setup.devices = []
            setup.configuration.apps = [AppRegistration(bundleID: bundleID, teamID: generated.teamID)]
            simulator = try setup.makeSimulator(clock: clock)
            deviceID = simulator.addDevice(name: "iPhone 16", osVersion: "18.2")
            let app = try simulator.install(bundleID, on: deviceID, activityTypes: [.type(FlightAttributes.self)])
            guard let token = app.pushToStartTokens[FlightAttributes.attributesType] else {
                throw CLIError(message: "the simulated device issued no push-to-start token for FlightAttributes")
            }
            pushToStart = token
            server = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: directory))
        } catch let error as SimulatorError {
            throw CLIError(message: "cannot start the simulator: \(error.message)")
        }
        let key: P256PrivateKey
        do { key = try P256PrivateKey(contentsOfFile: generated.keyFile) } catch { throw CLIError(message: "cannot read the simulator's key: \(error.message)") }
        let provider = APNSTokenProvider(
            key: key, keyID: generated.keyID, teamID: generated.teamID, clock: { clock.now })
        let client = APNSClient(configuration: APNSConfiguration(
            authentication: .token(provider), environment: .custom(host: server.host, port: server.port, caFile: server.caFile)))

        Console.out("""
        Liveline demo: the flight tracker end to end, over HTTP/2 and TLS on loopback
        APNs simulator  \(server.url)  (sandbox; clients trust \(server.caFile))
        provider key    \(generated.keyFile)  (key id \(generated.keyID), team \(generated.teamID))
        device          iPhone 16, iOS 18.2, \(bundleID); push-to-start token \(prefix(pushToStart))

        """)

        var updateToken: String?
        var activityID: String?
        var failures = 0
        for step in try story(bundleID: bundleID, now: start) {
            clock.set(start.addingTimeInterval(step.at))
            Console.out("== \(step.title)   [virtual clock \(time(clock.now))]")
            let bytes: [UInt8]
            do { bytes = try step.request.validate() } catch { throw CLIError(message: "\(step.title): \(error.message)") }
            Console.out("push     \(step.request.pushType), priority \(step.request.priority?.rawValue ?? 10), \(sizeLine(bytes.count)) \(lintLine(step.request.body))")
            let token = step.request.body["aps"]?["event"] == "start" ? pushToStart : (updateToken ?? pushToStart)
            let result = await client.send(step.request, to: token)
            Console.out("APNs     \(result)")
            if !result.isAccepted { failures += 1 }
            let record = simulator.log().last
            if let delivery = record?.deliveries.first {
                Console.out("device   \(delivery.dropReason.map { "DROPPED (\($0)): " } ?? "")\(delivery.detail)")
                activityID = activityID ?? delivery.activityID
            }
            for event in simulator.events() {
                if case .activityPushToken(let id, let t, _) = event.kind, id == activityID, updateToken != t {
                    updateToken = t
                    Console.out("device   issued update token \(prefix(t)) for activity \(id)")
                }
            }
            if let id = activityID { showActivity(simulator.activity(id), now: clock.now) }
            Console.out("")
        }

        // The failure APNs cannot see: keys that do not match the ContentState.
        Console.out("== 6. What APNs cannot see: an update whose keys do not match the ContentState")
        let other = try await silentFailure(simulator: simulator, client: client, bundleID: bundleID, deviceID: deviceID, clock: clock, start: start)
        failures += other

        await client.shutdown()
        await server.stop()
        let counts = simulator.counts
        Console.out("simulator log: \(counts.accepted) applied, \(counts.dropped) accepted by APNs but dropped on the device, \(counts.rejected) rejected")
        for record in simulator.log() {
            if case .rejected(let reason) = record.verdict {
                let note = reason.rawValue == "IdleTimeout" ? " (the virtual clock jumped past the idle limit; the client reconnected and resent)" : ""
                Console.out("  rejected #\(record.sequence): \(record.status) \(reason)\(note)")
            }
        }
        Console.out("Inspect a running simulator with: liveline simulator, then liveline simulator activities|log")
        return failures == 0 ? 0 : 1
    }

    /// Starts a second flight and sends it a snake_case update: APNs says 200, the device drops it,
    /// and lint says why before sending.
    static func silentFailure(simulator: Simulator, client: APNSClient, bundleID: String, deviceID: String, clock: VirtualClock, start: Date) async throws -> Int {
        let flight = FlightAttributes(flightNumber: "LL 88", origin: "ZRH", destination: "JFK", airline: "Liveline Air", departure: clock.now.addingTimeInterval(7200))
        let state = FlightAttributes.ContentState(status: .scheduled, gate: "E31", boardingTime: flight.departure.addingTimeInterval(-2400))
        let activity: ActivitySnapshot
        do {
            activity = try simulator.startActivity(on: deviceID, bundleID: bundleID, attributes: flight, contentState: state)
        } catch {
            throw CLIError(message: "cannot start the second activity: \(error.message)")
        }
        guard let token = activity.pushToken else { throw CLIError(message: "the second activity has no update token") }
        Console.out("device   the app started LL 88 ZRH→JFK itself; update token \(prefix(token))")
        // What a hand-written script sends: snake_case keys and Unix seconds.
        let body: JSONValue = ["aps": [
            "timestamp": .number(Double(ReferenceDate.unixSeconds(clock.now))), "event": "update",
            "content-state": ["status": "delayed", "gate": "E31", "boarding_time": .number(flight.departure.timeIntervalSince1970), "delay_minutes": 40, "is_boarding": false],
        ]]
        let request = PushRequest(pushType: .liveActivity, topic: PushType.liveActivity.topic(forBundleID: bundleID), priority: .immediate, body: body)
        let result = await client.send(request, to: token)
        Console.out("APNs     \(result)")
        if let delivery = simulator.log().last?.deliveries.first {
            Console.out("device   \(delivery.dropReason.map { "DROPPED (\($0)): " } ?? "applied: ")\(delivery.detail)")
        }
        showActivity(simulator.activity(activity.id), now: clock.now)
        Console.out("lint     what `liveline lint --schema FlightAttributes` says before sending:")
        for finding in Linter(schema: FlightAttributes.schema, now: clock.now).lint(body: body) { Console.out("         \(finding)") }
        Console.out("")
        return result.isAccepted ? 0 : 1
    }

    static func showActivity(_ activity: ActivitySnapshot?, now: Date) {
        guard let activity else { return }
        Console.out("activity \(activity.id): \(activity.state.rawValue)\(activity.staleDate.map { $0 <= now ? ", stale" : "" } ?? "")")
        guard let attributes = try? activity.attributes.decode(FlightAttributes.self),
              let state = try? activity.contentState.decode(FlightAttributes.ContentState.self) else { return }
        let template = FlightTemplate()
        let preview = UIPreview.text(template.layout(attributes: attributes, state: state), surface: .lockScreen, now: now, timeZone: template.timeZone)
        let lines = preview.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }
        Console.out(lines.map { "         " + $0 }.joined(separator: "\n"))
    }

    static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return formatter.string(from: date) + " UTC"
    }
}

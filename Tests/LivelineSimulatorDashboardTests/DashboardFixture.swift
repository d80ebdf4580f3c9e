import Foundation
import LivelineCore
import LivelineSimulatorDashboard
import LivelineHTTPServer
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Synchronization

/// A simulator on a `LiveClock` with one iOS 18.2 iPhone (Flight and Voltra types), its dashboard on
/// a free loopback port, and curl to talk to it.
struct DashboardFixture: Sendable {
    static let bundleID = "com.example.liveline"
    let simulator: Simulator
    let clock: LiveClock
    let dashboard: Dashboard
    let deviceID: String

    static func with<R: Sendable>(forwarding: InteractionForwarding? = nil, devices: Int = 1, heartbeat: Duration = .seconds(10),
                                  _ body: (DashboardFixture) async throws -> R) async throws -> R {
        let clock = LiveClock()
        let simulator = Simulator(configuration: SimulatorConfiguration(apps: [AppRegistration(bundleID: bundleID, teamID: "TEAM123456")]), clock: clock)
        var first = ""
        for n in 1...devices {
            let id = simulator.addDevice(name: "iPhone \(n)", osVersion: "18.2")
            try simulator.install(bundleID, on: id, activityTypes: [.type(FlightAttributes.self), .voltra])
            if n == 1 { first = id }
        }
        let dashboard = try Dashboard.start(control: SimulatorControl(simulator: simulator, forwarding: forwarding), heartbeat: heartbeat)
        let fixture = DashboardFixture(simulator: simulator, clock: clock, dashboard: dashboard, deviceID: first)
        do {
            let result = try await body(fixture)
            await dashboard.stop()
            return result
        } catch {
            await dashboard.stop()
            throw error
        }
    }

    struct Reply: Sendable {
        var status: Int
        var json: JSONValue
        var message: String { json["error"]?["message"]?.stringValue ?? "" }
    }

    /// `POST path` with a JSON body (or `GET` when `body` is nil).
    func call(_ path: String, _ body: String? = nil, contentType: String = "application/json") async throws -> Reply {
        var arguments: [String] = ["-s", "--max-time", "60", "-w", "\n%{http_code}", "-H", "\(Dashboard.tokenHeader): \(dashboard.token)", String(dashboard.url.dropLast()) + path]
        if let body { arguments += ["-X", "POST", "-H", "content-type: \(contentType)", "--data-binary", body] }
        let output = try await ProcessRunner.run("/usr/bin/curl", arguments)
        let text = output.stdoutText
        let split = text.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(split.last ?? "") ?? 0
        let json = (try? JSONValue.parse(split.dropLast().joined(separator: "\n"))) ?? .null
        return Reply(status: status, json: json)
    }

    /// A flight activity started by the app, with the service's logical id in its attributes.
    func startFlight(logicalID: String = "flight-LL1234", gate: String = "B12", staleIn: TimeInterval? = nil) throws -> ActivitySnapshot {
        let attributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air",
                                     "departure": .number(clock.now.timeIntervalSinceReferenceDate + 7200), "livelineActivityID": .string(logicalID)]
        return try simulator.startActivity(on: deviceID, bundleID: Self.bundleID, attributesType: "FlightAttributes", attributes: attributes,
                                           contentState: Self.flightState(gate: gate, clock: clock), staleDate: staleIn.map { clock.now.addingTimeInterval($0) })
    }

    /// A Live Activity update push for the flight (timestamp: now).
    static func update(gate: String, clock: any SimulatorClock, boardingTime: Double? = nil) throws -> PushRequest {
        let body: JSONValue = ["aps": ["timestamp": .number(clock.now.timeIntervalSince1970.rounded(.up) + 1), "event": "update",
                                       "content-state": flightState(gate: gate, clock: clock, boardingTime: boardingTime)]]
        return PushRequest.liveActivity(try LiveActivityPush(body: body), bundleID: bundleID)
    }

    static func flightState(gate: String, clock: any SimulatorClock, boardingTime: Double? = nil) -> JSONValue {
        ["status": "boarding", "gate": .string(gate), "boardingTime": .number(boardingTime ?? clock.now.timeIntervalSinceReferenceDate + 3600),
         "delayMinutes": 0, "isBoarding": true]
    }
}

/// An HTTP server recording every request it gets and answering 201.
final class RecordingServer: Sendable {
    let server: HTTPServer
    private let recorded: Recorded

    init() throws {
        let recorded = Recorded()
        server = try HTTPServer.start(HTTPServerConfiguration()) { request in
            recorded.add(request)
            return .json(201, Array(#"{"id":1}"#.utf8))
        }
        self.recorded = recorded
    }

    var all: [HTTPRequest] { recorded.all }

    private final class Recorded: Sendable {
        private let list = Mutex<[HTTPRequest]>([])
        func add(_ r: HTTPRequest) { list.withLock { $0.append(r) } }
        var all: [HTTPRequest] { list.withLock { $0 } }
    }
}

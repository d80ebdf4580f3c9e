import Foundation
import LivelineCore
import LivelineServiceDashboard
import LivelineService
import LivelineSimulator
import LivelineProcess
import LivelineTesting

/// A real service on loopback that sends to an in-process simulator over HTTP/2 (one iOS 18.2
/// iPhone, "phone-1", with the flight type), the app registered with the simulator's key, and the
/// service's dashboard on a free port. curl talks to both.
struct ServiceDashboardFixture: Sendable {
    static let bundleID = "com.example.flights"
    let simulator: Simulator
    let server: ServiceServer
    let dashboard: ServiceDashboard
    let admin: String
    let keyPEM: String

    /// - Parameter retryBase: the service's first retry delay.
    static func with<R: Sendable>(retryBase: Duration = .seconds(1), _ body: (ServiceDashboardFixture) async throws -> R) async throws -> R {
        let directory = NSTemporaryDirectory() + "liveline-service-dashboard-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let generated = try SimulatorSetup.generated(in: directory)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: bundleID, teamID: generated.teamID)]
        let simulator = try setup.makeSimulator()
        _ = simulator.addDevice(name: "iPhone 16", osVersion: "18.2", id: "phone-1")
        try simulator.install(bundleID, on: "phone-1", activityTypes: [.type(FlightAttributes.self)])
        let apns = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: directory))
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.database = directory + "/liveline.db"
        configuration.apnsHost = "127.0.0.1:\(apns.port)"
        configuration.caFile = apns.caFile
        configuration.retryBase = retryBase
        let server = try ServiceServer.start(configuration) { _ in }
        let dashboard: ServiceDashboard
        do {
            dashboard = try ServiceDashboard.start(service: server.service, simulatorDashboard: URL(string: "http://127.0.0.1:2198/"))
        } catch {
            await server.stop()
            await apns.stop()
            throw error
        }
        let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile) ?? Data(), as: UTF8.self)
        let fixture = ServiceDashboardFixture(simulator: simulator, server: server, dashboard: dashboard, admin: server.firstAdminKey ?? "", keyPEM: pem)
        func stop() async {
            await dashboard.stop()
            await server.stop()
            await apns.stop()
        }
        do {
            let app = try await fixture.api("POST", "/v1/apps", [
                "bundleID": .string(bundleID), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID), "key": .string(pem), "environment": "sandbox"])
            guard app.status == 201 else { throw TestingError("POST /v1/apps answered \(app.status): \(app.json)") }
            let result = try await body(fixture)
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    struct Reply: Sendable {
        var status: Int
        var text: String
        var json: JSONValue { (try? JSONValue.parse(text)) ?? .null }
    }

    /// A request to the service's API with the admin key.
    func api(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> Reply {
        try await Self.curl(server.url + path, ["-X", method, "-H", "authorization: Bearer \(admin)"], body: body)
    }

    /// A request to the dashboard (`extra`: more curl arguments).
    func page(_ path: String, _ extra: [String] = []) async throws -> Reply {
        try await Self.curl(String(dashboard.url.dropLast()) + path, ["-H", "\(ServiceDashboard.tokenHeader): \(dashboard.token)"] + extra, body: nil)
    }

    private static func curl(_ url: String, _ extra: [String], body: JSONValue?) async throws -> Reply {
        var arguments = ["-s", "--max-time", "60", "-w", "\n%{http_code}"] + extra
        if let body { arguments += ["-H", "content-type: application/json", "--data-binary", body.jsonString] }
        let output = try await ProcessRunner.run("/usr/bin/curl", arguments + [url])
        let lines = output.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        return Reply(status: Int(lines.last ?? "") ?? 0, text: lines.dropLast().joined(separator: "\n"))
    }

    /// A flight the app started on phone-1 itself (the service learns of it from its token).
    func startFlight() throws -> ActivitySnapshot {
        let now = simulator.clock.now.timeIntervalSinceReferenceDate
        let attributes: JSONValue = ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": .number(now + 7200)]
        let state: JSONValue = ["status": "scheduled", "gate": "B12", "boardingTime": .number(now + 3600), "delayMinutes": 0, "isBoarding": false]
        return try simulator.startActivity(on: "phone-1", bundleID: Self.bundleID, attributesType: "FlightAttributes", attributes: attributes, contentState: state)
    }

    /// Registers a device and its update token for `activityID` with the service.
    func register(device: String, token: String, activityID: String) async throws {
        let d = try await api("PUT", "/v1/devices/\(device)", ["bundleID": .string(Self.bundleID), "iosVersion": "18.2"])
        guard d.status == 201 || d.status == 200 else { throw TestingError("PUT /v1/devices/\(device) answered \(d.status): \(d.text)") }
        let t = try await api("PUT", "/v1/activities/\(activityID)/tokens/\(device)", ["token": .string(token), "attributesType": "FlightAttributes"])
        guard t.status == 201 || t.status == 200 else { throw TestingError("PUT token answered \(t.status): \(t.text)") }
    }

    /// `POST /v1/activities/{id}/update` with a new gate, then waits (the service's `?wait`) until every push is final.
    func update(_ activityID: String, gate: String) async throws {
        let state: JSONValue = ["status": "boarding", "gate": .string(gate), "boardingTime": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))),
                                "delayMinutes": 0, "isBoarding": true]
        let sent = try await api("POST", "/v1/activities/\(activityID)/update", ["contentState": state])
        guard sent.status == 202 else { throw TestingError("update answered \(sent.status): \(sent.text)") }
    }

    /// Waits until every push of the activity is final (the service's own `?wait`, not a sleep).
    func waitFinal(_ activityID: String) async throws {
        let answer = try await api("GET", "/v1/activities/\(activityID)?wait=30")
        guard answer.json["final"] == true else { throw TestingError("the pushes of \(activityID) are not final after 30 s: \(answer.text)") }
    }
}

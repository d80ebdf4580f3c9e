import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelineService
import LivelineSimulator
import LivelineToolSupport

/// Scene 8: a 20-hour flight renewed past ActivityKit's 8 hours. Hours cannot pass in a demo, so
/// this scene runs a simulator and a service in this process on one virtual clock (as RenewalTests
/// does) and moves it; everything else is the same code over HTTP/2 and HTTP on loopback.
extension DemoCommand {
    static func renewalScene(directory: String) async throws -> Int {
        Console.out("\n== 8. Renewal past 8 hours: a 20-hour flight started with \"renew\": true (in this process, on a virtual clock)")
        let dir = directory + "/renewal"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let clock = VirtualClock(start: Date())
        let generated = try SimulatorSetup.generated(in: dir)
        var setup = generated.setup
        setup.devices = []
        setup.configuration.apps = [AppRegistration(bundleID: bundle, teamID: generated.teamID)]
        setup.configuration.idleTimeout = 30 * 86_400  // the virtual clock jumps hours between a connection's pushes
        let simulator = try setup.makeSimulator(clock: clock)
        let phone = "iphone-15"
        _ = simulator.addDevice(name: "iPhone 15", osVersion: "17.5", id: phone)
        _ = try simulator.install(bundle, on: phone, activityTypes: [.type(FlightAttributes.self)])
        let simulatorServer = try SimulatorServer.start(simulator: simulator, certificates: try SimulatorCertificates.prepare(in: dir))
        var config = ServiceConfiguration()
        config.port = 0
        config.database = dir + "/liveline.db"
        config.apnsHost = "127.0.0.1:\(simulatorServer.port)"
        config.caFile = simulatorServer.caFile
        config.kek = SecretBox.generateKeyText()
        config.clock = { clock.now }
        let server = try ServiceServer.start(config) { _ in }
        defer { Task { await server.stop(); await simulatorServer.stop() } }
        let backend = ServiceHTTPClient(baseURL: server.url, key: server.firstAdminKey)
        let pem = String(decoding: FileManager.default.contents(atPath: generated.keyFile) ?? Data(), as: UTF8.self)
        _ = try await backend.expect("POST", "/v1/apps", ["bundleID": .string(bundle), "teamID": .string(generated.teamID), "keyID": .string(generated.keyID), "key": .string(pem), "environment": "sandbox"])
        _ = try await backend.expect("PUT", "/v1/devices/\(phone)", ["bundleID": .string(bundle), "iosVersion": "17.5"])
        let p2s = simulator.app(bundle, on: phone)?.pushToStartTokens["FlightAttributes"] ?? ""
        _ = try await backend.expect("PUT", "/v1/devices/\(phone)/push-to-start/FlightAttributes", ["token": .string(p2s)])

        let id = "flight-LL9000-renewed"
        let t0 = clock.now
        func state(_ status: String) -> JSONValue {
            ["status": .string(status), "gate": "C4", "boardingTime": .string(iso(t0.addingTimeInterval(3600))), "delayMinutes": 0, "isBoarding": false]
        }
        func shown() -> [ActivitySnapshot] {
            simulator.activities().filter { $0.deviceID == phone && $0.attributes[ActivitySchema.activityIDKey]?.stringValue == id && $0.state != .dismissed }
        }
        func at(_ hours: Double) -> String {
            clock.set(t0.addingTimeInterval(hours * 3600))
            return "+\(Int(hours))h\(String(format: "%02d", Int((hours * 60).truncatingRemainder(dividingBy: 60))))"
        }
        func settle() async throws { _ = try await backend.call("GET", "/v1/activities/\(id)?wait=20") }
        /// What LivelineKit does when ActivityKit hands the app an update token.
        func appRegistersToken() async throws {
            guard let token = shown().last?.pushToken else { throw CLIError(message: "renewal: the newest activity on \(phone) has no update token") }
            _ = try await backend.expect("PUT", "/v1/activities/\(id)/tokens/\(phone)", ["token": .string(token)])
        }
        var failures = 0
        func check(_ ok: Bool, _ what: String) { if !ok { Console.out("FAILED   \(what)"); failures += 1 } }

        _ = try await backend.expect("POST", "/v1/activities/\(id)/start", [
            "attributesType": "FlightAttributes", "renew": true, "channel": "none", "audience": ["deviceIDs": [.string(phone)]],
            "attributes": ["flightNumber": "LL 9000", "origin": "LIS", "destination": "SYD", "airline": "Liveline Air", "departure": .string(iso(t0.addingTimeInterval(3600)))],
            "contentState": state("scheduled"), "alert": ["title": "LL 9000 is tracked", "body": "Gate C4"]])
        try await settle()
        try await appRegistersToken()
        Console.out("backend  +0h00 POST /v1/activities/\(id)/start with \"renew\": true → iPhone 15 (iOS 17.5) shows it; ActivityKit would end it at +8h00")
        let times: [(Double, String)] = [(1, "boarding"), (2, "departed")]
        for (hours, status) in times {
            let when = at(hours)
            _ = try await backend.expect("POST", "/v1/activities/\(id)/update", ["contentState": state(status)])
            try await settle()
            Console.out("backend  \(when) update: \(status)")
        }
        for round in 1...2 {
            let when = at(7.76 * Double(round))
            let pass = await server.service.renewActivities()
            try await settle()
            let two = shown()
            Console.out("service  \(when) renewal \(round): \(pass.started) successor push-started with the current content (\(two.last?.contentState["status"]?.stringValue ?? "?")); the phone shows \(two.count) (the predecessor is not ended yet)")
            check(pass.started == 1 && two.count == 2 && two.last?.contentState["status"] == "departed", "renewal \(round) started a successor with the current content")
            try await appRegistersToken()
            let confirmed = await server.service.renewActivities()
            try await settle()
            let status = try await backend.expect("GET", "/v1/activities/\(id)")
            let generation = status["renewal"]?["generation"]?.jsonString ?? "?"
            Console.out("app      \(when) registers the successor's update token → confirmed: generation \(generation); the predecessor ended with the same content; the phone shows \(shown().count)")
            check(confirmed.confirmed == 1 && shown().count == 1 && generation == "\(round + 1)", "renewal \(round) confirmed and the predecessor ended")
        }
        let landing = at(20)
        _ = try await backend.expect("POST", "/v1/activities/\(id)/end", ["contentState": state("landed")])
        try await settle()
        let last = shown()
        Console.out("backend  \(landing) end: landed → the phone shows \(last.count) activity, \(last.first?.state.rawValue ?? "none"), \(last.first?.contentState["status"]?.stringValue ?? "?") (three activities in all over 20 hours, one at a time)")
        check(last.count == 1 && last.first?.contentState["status"] == "landed", "the landing shown at 20 hours")
        return failures
    }
}

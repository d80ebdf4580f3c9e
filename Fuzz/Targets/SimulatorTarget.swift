import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSimulator

/// One simulator for the whole run (state carries over between inputs, as on a long-lived APNs):
/// one team key made at start, the flights app on one iPhone with FlightAttributes and Voltra.
struct SimulatorFuzzFixture: Sendable {
    static let bundle = "com.example.flights"
    static let shared = SimulatorFuzzFixture()

    let simulator: Simulator
    let placeholders: [(String, String)]

    init() {
        let key = try! P256PrivateKey.generate()
        let clock = VirtualClock()
        simulator = Simulator(
            configuration: SimulatorConfiguration(
                keys: [ProviderKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: key.publicKey)],
                apps: [AppRegistration(bundleID: Self.bundle, teamID: "TEAM000001")], logCapacity: 200),
            clock: clock)
        let device = simulator.addDevice(name: "iPhone 16", osVersion: "18.2")
        let app = try! simulator.install(Self.bundle, on: device, activityTypes: [.type(FlightAttributes.self), .voltra])
        let jwt = try! JWT.sign(keyID: "KEY0000001", teamID: "TEAM000001", issuedAt: clock.now, key: key)
        placeholders = [
            ("$JWT", jwt), ("$TOKEN", app.deviceToken), ("$PTS", app.pushToStartTokens["FlightAttributes"] ?? "-"),
            ("$NOW", String(Int(clock.now.timeIntervalSince1970))),
        ]
    }

    /// The simulator's answer to one input in the corpus's request form, on a fresh token connection.
    func answer(_ bytes: [UInt8]) -> SimulatorResponse {
        let parsed = FuzzRequest(bytes, replacing: placeholders)
        let request = SimulatorRequest(method: parsed.method, path: parsed.path, headers: parsed.headers.map { .init($0.name, $0.value) }, body: parsed.body)
        var connection = simulator.newConnection()
        return simulator.handle(request, connection: &connection)
    }
}

extension FuzzTarget {
    /// `Simulator.handle(_:connection:)` with an arbitrary method, path, headers and body, each
    /// input on a fresh token connection. An error answer must carry a reason.
    public static let simulator = FuzzTarget(name: "simulator") { bytes in
        let response = SimulatorFuzzFixture.shared.answer(bytes)
        guard (200..<600).contains(response.status) else { return "Simulator.handle answered status \(response.status)" }
        if response.status >= 400, (response.reason ?? "").isEmpty {
            return "Simulator.handle answered \(response.status) without a reason: \(String(decoding: response.body.prefix(200), as: UTF8.self))"
        }
        return nil
    }
}

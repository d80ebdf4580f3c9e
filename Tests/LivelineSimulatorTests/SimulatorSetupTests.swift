import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSimulator
import Testing

@Suite("Simulator config files")
struct SimulatorSetupTests {
    static func tempDir() -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-setup-\(UUID().uuidString.prefix(8))").path
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("a config file declares keys (.p8 and public PEM), apps, devices with schema types, rules and faults")
    func fullFile() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let key = try P256PrivateKey.generate()
        try key.pkcs8PEM().write(toFile: dir + "/AuthKey_KEY0000001.p8", atomically: true, encoding: .utf8)
        let other = try P256PrivateKey.generate()
        try other.publicKey.pemRepresentation.write(toFile: dir + "/other.pem", atomically: true, encoding: .utf8)
        try #"{"name": "ScoreAttributes", "attributes": {"home": "string"}, "contentState": {"score": "int"}}"#.write(toFile: dir + "/score.json", atomically: true, encoding: .utf8)
        let config = #"""
        {"environment": "production", "seed": 9,
         "keys": [{"keyID": "KEY0000001", "teamID": "TEAM000001", "p8": "AuthKey_KEY0000001.p8"},
                  {"keyID": "KEY0000002", "teamID": "TEAM000001", "publicKey": "other.pem", "scope": "production"}],
         "apps": [{"bundleID": "com.example.score", "broadcast": false}],
         "devices": [{"id": "phone", "name": "Test iPhone", "iOS": "17.4",
                      "apps": [{"bundleID": "com.example.score", "activityTypes": ["score.json", "VoltraAttributes"], "frequentUpdates": true}]}],
         "rules": {"maxActivitiesPerApp": 2, "updateBudgetPerHour": 4},
         "faults": [{"respond": "ServiceUnavailable", "probability": 0.5}]}
        """#
        try config.write(toFile: dir + "/sim.json", atomically: true, encoding: .utf8)
        let setup = try SimulatorSetup(contentsOfFile: dir + "/sim.json")
        #expect(setup.configuration.environment == .production)
        #expect(setup.configuration.keys.map(\.keyID) == ["KEY0000001", "KEY0000002"])
        #expect(setup.configuration.keys[0].publicKey == key.publicKey)
        #expect(setup.configuration.apps == [AppRegistration(bundleID: "com.example.score", teamID: "TEAM000001", broadcastEnabled: false)])
        #expect(setup.configuration.deviceRules.maxActivitiesPerApp == 2)
        #expect(setup.faults.count == 1)
        let sim = try setup.makeSimulator()
        let device = try #require(sim.devices().first)
        #expect(device.id == "phone" && device.osVersion == OSVersion(17, 4) && device.environment == .production)
        #expect(device.apps.first?.activityTypes == ["ScoreAttributes", "VoltraAttributes"])
        #expect(device.apps.first?.pushToStartTokens.count == 2)
    }

    @Test("mistakes name the place and the value", arguments: [
        (#"{"environment": "staging"}"#, "environment: must be \"sandbox\" or \"production\", got \"staging\""),
        (#"{"devices": [{"iOS": "eighteen"}]}"#, "devices[0].iOS: must be a version such as \"17.2\", got \"eighteen\""),
        (#"{"keys": [{"keyID": "K", "teamID": "T", "p8": "missing.p8"}]}"#, "keys[0]:"),
        (#"{"faults": [{"respond": "Nope"}]}"#, "faults[0].respond: unknown APNs reason \"Nope\""),
        (#"{"color": 1}"#, "color: unknown key"),
        (#"{"devices": [{"apps": [{"bundleID": "a", "activityTypes": ["Nope"]}]}]}"#, "devices[0].apps[0].activityTypes[0]: \"Nope\" is neither a built-in type"),
    ])
    func errors(_ json: String, _ expected: String) throws {
        let error = #expect(throws: SimulatorError.self) {
            try SimulatorSetup(json: try JSONValue.parse(json), baseDirectory: "/nonexistent", source: "sim.json")
        }
        #expect(error?.message.contains("sim.json: " + expected) == true, "\(error?.message ?? "")")
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("with no config a key is generated and written, and its tokens are accepted")
    func generated() throws {
        let dir = Self.tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let made = try SimulatorSetup.generated(in: dir)
        let key = try P256PrivateKey(contentsOfFile: made.keyFile)
        let sim = try made.setup.makeSimulator()
        let app = try #require(sim.devices().first?.apps.first)
        let jwt = try JWT.sign(keyID: made.keyID, teamID: made.teamID, issuedAt: Date(), key: key)
        var c = sim.newConnection()
        let r = sim.handle(SimulatorRequest(path: "/3/device/" + app.deviceToken, headers: [
            .init("authorization", "bearer " + jwt), .init("apns-topic", app.bundleID), .init("apns-push-type", "alert"),
        ], body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)), connection: &c)
        #expect(r.status == 200)
    }
}

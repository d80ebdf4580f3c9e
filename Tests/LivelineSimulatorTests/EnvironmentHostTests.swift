import Foundation
import LivelineCore
import LivelineSimulator
import Testing

/// APNs' two hosts on one simulator: a connection that reached the production host answers a
/// sandbox token with 400 BadDeviceToken and accepts a production one, and the reverse on the
/// sandbox host (apns-protocol.md §4.2: "malformed token or wrong environment").
@Suite("Simulator: the sandbox and production hosts each know only their own tokens")
struct EnvironmentHostTests {
    @Test("each host accepts its environment's tokens and answers the other's with BadDeviceToken")
    func eachHostItsOwnTokens() throws {
        let f = Fixture()  // a sandbox simulator; its first device's tokens are sandbox tokens
        let prod = f.sim.addDevice(name: "Prod", environment: .production)
        let prodToken = try f.sim.install(Fixture.bundle, on: prod).deviceToken
        func send(_ token: String, host: APNSEnvironment?) -> SimulatorResponse {
            var connection = f.sim.newConnection()
            connection.environment = host
            return f.sim.handle(f.alertRequest { $0.path = "/3/device/" + token }, connection: &connection)
        }
        #expect(send(f.app.deviceToken, host: nil).status == 200)
        #expect(send(f.app.deviceToken, host: .sandbox).status == 200)
        let wrongHost = send(f.app.deviceToken, host: .production)
        #expect(wrongHost.status == 400 && wrongHost.reason == "BadDeviceToken")
        #expect(send(prodToken, host: .production).status == 200)
        let onSandbox = send(prodToken, host: .sandbox)
        #expect(onSandbox.status == 400 && onSandbox.reason == "BadDeviceToken")
        // The production host answers without apns-unique-id (only the sandbox adds it).
        #expect(!send(prodToken, host: .production).headers.contains { $0.name == "apns-unique-id" })
        #expect(send(f.app.deviceToken, host: .sandbox).headers.contains { $0.name == "apns-unique-id" })
    }
}

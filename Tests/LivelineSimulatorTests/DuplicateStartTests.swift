import Foundation
import LivelineCore
import LivelineSimulator
import Testing

/// iOS does not merge push-to-starts: every one it accepts makes a Live Activity of its own, even
/// with the same attributes. The simulated iPhone does the same, so a service test sees a duplicate.
@Suite("Simulated devices: a second push-to-start makes a second activity")
struct DuplicateStartTests {
    @Test("the same push-to-start twice: two active activities of the type on the device, each with its own id and update token")
    func secondStartDuplicates() throws {
        let f = Fixture()
        let first = f.startByPush()
        f.clock.advance(by: 1)
        let second = f.startByPush()
        let running = f.sim.activities().filter { $0.deviceID == f.device && $0.attributesType == "FlightAttributes" && $0.state == .active }
        #expect(running.count == 2)
        #expect(first.id != second.id)
        #expect(first.attributes["flightNumber"] == second.attributes["flightNumber"])
        #expect(first.pushToken != nil && second.pushToken != nil && first.pushToken != second.pushToken)
    }
}

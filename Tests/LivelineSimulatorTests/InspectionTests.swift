import Foundation
import LivelineCore
import LivelineSimulator
import Testing

@Suite("Inspection and the virtual clock")
struct InspectionTests {
    @Test("the log shows accepted, rejected and dropped pushes with tokens cut to 8 characters")
    func log() throws {
        let f = Fixture()
        let a = f.startByPush()
        _ = f.send(f.alertRequest { $0.body = [] })
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: a.pushToken!, body: f.updateBody(state: ["gate": 1])))
        let json = f.sim.logJSON()
        let entries = try #require(json.arrayValue)
        #expect(entries.map { $0["verdict"] } == ["accepted", "rejected", "dropped"])
        #expect(entries[1]["reason"] == "PayloadEmpty")
        #expect(entries[2]["dropReason"] == "decoding-failed")
        #expect(entries[0]["event"] == "start")
        let text = json.jsonString
        #expect(!text.contains(a.pushToken!))
        #expect(!text.contains(f.app.deviceToken))
        #expect(text.contains(String(a.pushToken!.prefix(8))))
        #expect(f.sim.counts == (accepted: 1, rejected: 1, dropped: 1))
    }

    @Test("status, devices and activities answer as JSON; unknown paths are nil")
    func routes() throws {
        let f = Fixture()
        let a = f.startByPush()
        let status = try #require(f.sim.inspection(path: "/simulator/v1/status"))
        #expect(status["environment"] == "sandbox")
        #expect(status["pushes"]?["accepted"] == 1)
        let devices = try #require(f.sim.inspection(path: "/simulator/v1/devices")?.arrayValue)
        #expect(devices.first?["apps"]?.arrayValue?.first?["deviceToken"] == .string(f.app.deviceToken))
        let activities = try #require(f.sim.inspection(path: "/simulator/v1/activities")?.arrayValue)
        #expect(activities.first?["id"] == .string(a.id))
        #expect(activities.first?["state"] == "active")
        #expect(activities.first?["contentState"] == Fixture.gateState)
        #expect(f.sim.inspection(path: "/simulator/v1/log?limit=0")?.arrayValue?.isEmpty == true)
        #expect(f.sim.inspection(path: "/simulator/v1/nope") == nil)
    }

    @Test("the log keeps at most logCapacity records, newest last")
    func capacity() {
        let f = Fixture { $0.logCapacity = 3 }
        for _ in 0..<5 { _ = f.send(f.alertRequest { $0.body = [] }) }
        #expect(f.sim.log().map(\.sequence) == [3, 4, 5])
    }

    @Test("the virtual clock moves only when told")
    func clock() {
        let clock = VirtualClock(start: Date(timeIntervalSince1970: 100))
        #expect(clock.now == Date(timeIntervalSince1970: 100))
        clock.advance(by: 50)
        clock.advance(by: -10)
        #expect(clock.now == Date(timeIntervalSince1970: 150))
        clock.set(Date(timeIntervalSince1970: 10))
        #expect(clock.now == Date(timeIntervalSince1970: 10))
    }

    @Test("iOS versions parse and compare; bad ones are nil", arguments: [("17.2", true), ("18", true), ("18.0.1", true), ("x", false), ("1.2.3.4", false), ("", false)])
    func versions(_ text: String, _ valid: Bool) {
        #expect((OSVersion(parsing: text) != nil) == valid)
        #expect(OSVersion(17, 2) < OSVersion(18) && OSVersion(17, 10) > OSVersion(17, 2))
    }
}

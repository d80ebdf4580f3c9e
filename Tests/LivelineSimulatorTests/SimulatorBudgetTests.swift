import Foundation
import LivelineCore
import LivelineSimulator
import Testing

@Suite("Simulated devices: the push-to-start budget")
struct SimulatorBudgetTests {
    @Test("push-to-starts beyond the app's budget in the window are dropped (APNs says 200); the window frees them again")
    func pushToStartBudget() throws {
        var rules = DeviceRules()
        rules.pushToStartBudget = 2
        rules.pushToStartWindow = 600
        rules.maxActivitiesPerApp = 10
        let f = Fixture(rules: rules)
        let p2s = try #require(f.app.pushToStartTokens["FlightAttributes"])
        for _ in 0..<3 {
            f.clock.advance(by: 1)
            #expect(f.send(f.laRequest(token: p2s, body: f.startBody(input: 1))).status == 200)
        }
        #expect(f.sim.activities().count == 2)
        guard case .dropped(.pushToStartBudget, let detail) = f.sim.log().last!.verdict else { Issue.record("not over the start budget: \(f.sim.log().last!.verdict)"); return }
        #expect(detail.contains("2 push-to-starts"), "\(detail)")
        // Updates are not starts: they do not spend it.
        let a = try #require(f.sim.activities().first?.pushToken)
        f.clock.advance(by: 1)
        _ = f.send(f.laRequest(token: a, body: f.updateBody(state: Fixture.state(gate: "U1")), priority: 10))
        #expect(f.sim.activities().first?.contentState["gate"] == "U1")
        // Ten minutes after the first start, one start is allowed again.
        f.clock.advance(by: 600 - 3)
        _ = f.send(f.laRequest(token: p2s, body: f.startBody(input: 1)))
        #expect(f.sim.activities().count == 3)
        _ = f.send(f.laRequest(token: p2s, body: f.startBody(input: 1)))
        #expect(f.sim.activities().count == 3)
    }

    @Test("the budget is a rule of the setup file")
    func setupRule() throws {
        let setup = try SimulatorSetup(json: ["rules": ["pushToStartBudget": 3, "pushToStartWindowMinutes": 30]], baseDirectory: "/tmp")
        #expect(setup.configuration.deviceRules.pushToStartBudget == 3)
        #expect(setup.configuration.deviceRules.pushToStartWindow == 1800)
    }
}

import Foundation
import LivelineCore
import LivelineTesting
import Testing

@Suite("The service's dashboard: each device's budget for an activity")
struct ServiceDashboardBudgetTests {
    @Test("each device's status on the page carries its ledger for the activity: priority-10 spent, the budget, lowered and coalesced; the script renders them")
    func budgetsOnThePage() async throws {
        try await ServiceDashboardFixture.with { f in
            let flight = try f.startFlight()
            try await f.register(device: "phone-1", token: try #require(flight.pushToken), activityID: "flight-1")
            let state: JSONValue = ["status": "boarding", "gate": "D2", "boardingTime": .string(ISO8601DateFormatter().string(from: Date().addingTimeInterval(3600))),
                                    "delayMinutes": 0, "isBoarding": true]
            let sent = try await f.api("POST", "/v1/activities/flight-1/update", ["contentState": state, "priority": 10])
            #expect(sent.status == 202, "\(sent.text)")
            try await f.waitFinal("flight-1")
            let one = try await f.page("/api/activities/flight-1")
            let budget = try #require(one.json["devices"]?.arrayValue?.first { $0["deviceID"] == "phone-1" }?["budget"], "\(one.text)")
            #expect(budget["activityID"] == "flight-1")
            #expect(budget["immediate"]?["activities"]?.arrayValue?.first?["spent"] == 1)
            #expect(budget["immediate"]?["budgetPerHour"] == 12)
            #expect(budget["lowered"]?["count"] == 0)
            #expect(budget["coalesced"]?["count"] == 0)
            let script = try await f.page("/dashboard.js")
            #expect(script.text.contains("Budgets this hour"))
        }
    }
}

import Foundation
import LivelineCore
import LivelineUI

/// The flight tracker's attributes and states the preview tests draw.
enum Fixtures {
    static let departure = Date(timeIntervalSince1970: 1_767_258_000)  // 2026-01-01 09:00 UTC
    static let attributes = FlightAttributes.example(departure: departure)

    static let states: [FlightAttributes.ContentState] = [
        .init(status: .scheduled, gate: nil, boardingTime: departure.addingTimeInterval(-1800)),
        .init(status: .delayed, gate: "B12", boardingTime: departure.addingTimeInterval(900), delayMinutes: 45),
        .init(status: .boarding, gate: "B12", boardingTime: departure.addingTimeInterval(-1800), isBoarding: true),
    ]
}

extension Fixtures {
    /// One step of the demo's story (`liveline demo`): the APNs body and what the Lock Screen says.
    struct Step: Sendable {
        var title: String
        var body: JSONValue
        var state: FlightAttributes.ContentState
        var status: String
        var at: Date
    }

    /// The demo's five steps for LL 1234 LIS→ZRH: start at gate B12, gate change to C7, a 25-minute
    /// delay, boarding, landed.
    static func story() throws -> [Step] {
        let now = departure.addingTimeInterval(-2 * 3600)
        var state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: departure.addingTimeInterval(-40 * 60))
        var steps: [Step] = []
        let start = try LiveActivityPush.start(attributes: attributes, state: state, alert: Alert(title: "Flight LL 1234 is tracked", body: "Gate B12"),
                                               timestamp: now, staleDate: departure.addingTimeInterval(3600), input: .pushToken)
        steps.append(Step(title: "start", body: start.body, state: state, status: "Scheduled", at: now))
        state.gate = "C7"
        steps.append(Step(title: "gate change", body: try LiveActivityPush.update(state: state, timestamp: now.addingTimeInterval(600)).body,
                          state: state, status: "Scheduled", at: now.addingTimeInterval(600)))
        state.status = .delayed
        state.delayMinutes = 25
        state.boardingTime.addTimeInterval(25 * 60)
        steps.append(Step(title: "delay", body: try LiveActivityPush.update(state: state, timestamp: now.addingTimeInterval(1200)).body,
                          state: state, status: "Delayed 25 min", at: now.addingTimeInterval(1200)))
        state.status = .boarding
        state.isBoarding = true
        steps.append(Step(title: "boarding", body: try LiveActivityPush.update(state: state, timestamp: now.addingTimeInterval(5400)).body,
                          state: state, status: "Boarding", at: now.addingTimeInterval(5400)))
        state.status = .landed
        state.isBoarding = false
        let landing = departure.addingTimeInterval(25 * 60 + 2.5 * 3600)
        steps.append(Step(title: "landed", body: try LiveActivityPush.end(state: state, timestamp: landing, dismissal: .at(landing.addingTimeInterval(3600))).body,
                          state: state, status: "Landed", at: landing))
        return steps
    }

    /// The repository's docs/ folder.
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs")

    /// Occurrences of `needle` in `text`.
    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }
}

import Foundation
import LivelineCore

/// `liveline demo`: the flight tracker's story, each push built, validated and printed.
enum DemoCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline demo", abstract: "Walk the flight-tracker story and print each validated push.",
        usage: "[--bundle-id ID]",
        options: [.init(name: "bundle-id", valueName: "ID", help: "The app's bundle id (default com.example.flights).")])

    struct Step {
        var title: String
        var request: PushRequest
    }

    /// The story: start, gate change, delay, boarding, landing. Times step forward from `now`.
    static func story(bundleID: String, now: Date) throws -> [Step] {
        let departure = Date(timeIntervalSinceReferenceDate: (now.addingTimeInterval(2 * 3600).timeIntervalSinceReferenceDate / 300).rounded(.down) * 300)
        let flight = FlightAttributes.example(departure: departure)
        var state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: departure.addingTimeInterval(-40 * 60))
        var steps: [Step] = []
        func add(_ title: String, _ push: LiveActivityPush, priority: Priority = .immediate) {
            steps.append(Step(title: title, request: .liveActivity(push, bundleID: bundleID, priority: priority)))
        }
        add("1. Start (push-to-start token): LL 1234 LIS→ZRH, gate B12", try .start(
            attributes: flight, state: state,
            alert: Alert(title: .localized(key: "Flight %@ is tracked", arguments: [flight.flightNumber]), body: "Gate B12, boarding 40 min before departure", sound: "default"),
            timestamp: now, staleDate: departure.addingTimeInterval(3600), input: .pushToken))
        state.gate = "C7"
        add("2. Gate change B12 → C7", try .update(
            state: state, timestamp: now.addingTimeInterval(600),
            alert: Alert(title: "Gate change", body: "LL 1234 now departs from gate C7", sound: "default")))
        state.status = .delayed
        state.delayMinutes = 25
        state.boardingTime.addTimeInterval(25 * 60)
        add("3. Delay of 25 minutes (priority 5: does not spend the update budget)", try .update(
            state: state, timestamp: now.addingTimeInterval(1200), staleDate: departure.addingTimeInterval(25 * 60 + 3600)), priority: .considerate)
        state.status = .boarding
        state.isBoarding = true
        add("4. Boarding", try .update(
            state: state, timestamp: now.addingTimeInterval(5400),
            alert: Alert(title: "Boarding", body: "LL 1234 is boarding at gate C7", sound: "default"), relevanceScore: 100))
        state.status = .landed
        state.isBoarding = false
        let landing = departure.addingTimeInterval(25 * 60 + 2.5 * 3600)
        add("5. Landed: end, dismissed 1 hour later", try .end(
            state: state, timestamp: landing, dismissal: .at(landing.addingTimeInterval(3600))))
        return steps
    }

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let bundleID = arguments.value("bundle-id") ?? "com.example.flights"
        Console.out("Liveline demo: the flight tracker, \(bundleID)\n")
        for step in try story(bundleID: bundleID, now: Date()) {
            let bytes: [UInt8]
            do { bytes = try step.request.validate() } catch { throw CLIError(message: "\(step.title): \(error.message)") }
            let findings = Linter(now: Date.distantPast).lint(body: step.request.body)
            Console.out("== \(step.title)")
            Console.out(step.request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
            Console.out(step.request.body.prettyPrinted())
            let bar = String(repeating: "#", count: max(1, bytes.count * 40 / 4096)).padding(toLength: 40, withPad: ".", startingAt: 0)
            Console.out("size: \(bytes.count) of 4096 bytes [\(bar)] \(findings.isEmpty ? "lint: clean" : findings.map(\.description).joined(separator: "; "))\n")
        }
        return 0
    }
}

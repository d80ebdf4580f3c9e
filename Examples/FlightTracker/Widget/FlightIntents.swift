#if canImport(ActivityKit) && canImport(SwiftUI) && canImport(WidgetKit)
import AppIntents
import Foundation
import LivelineKit

/// Where the intents send a tap. Set by the app at launch; a `LiveActivityIntent` runs in the
/// app's process, so this file belongs to both the app and the widget extension targets.
enum FlightIntents {
    @MainActor static var record: (@Sendable (Interaction) async -> Void)?

    static func send(_ activityID: String, _ action: String) async {
        guard let record = await MainActor.run(body: { record }) else { return }
        await record(Interaction(activityID: activityID, action: action))
    }
}

/// The check-in button: delivered once to the backend's webhook as `check-in`.
struct CheckInIntent: LiveActivityIntent {
    static let title: LocalizedStringResource = "Check in"
    @Parameter(title: "Activity") var activityID: String

    init() {}
    init(activityID: String) { self.activityID = activityID }

    func perform() async throws -> some IntentResult {
        await FlightIntents.send(activityID, "check-in")
        return .result()
    }
}

/// The boarding-pass button: opens the app on the pass and tells the backend it was shown.
struct BoardingPassIntent: LiveActivityIntent {
    static let title: LocalizedStringResource = "Boarding pass"
    static let openAppWhenRun = true
    @Parameter(title: "Activity") var activityID: String

    init() {}
    init(activityID: String) { self.activityID = activityID }

    func perform() async throws -> some IntentResult {
        await FlightIntents.send(activityID, "boarding-pass")
        return .result()
    }
}
#endif

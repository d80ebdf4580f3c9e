// Deployment target: iOS 17.2 (LiveActivityIntent needs 17.0); built with the iOS 26 SDK.
#if canImport(ActivityKit) && os(iOS)
import AppIntents
import Foundation
import LivelineKit

/// Where the intents send a tap. Set by the app at launch; a `LiveActivityIntent` runs in the
/// app's process, so this file belongs to both the app and the widget extension targets.
enum FlightIntents {
    private static let recorder = Recorder()

    /// Called once by the app at launch.
    static func setRecorder(_ record: @escaping @Sendable (Interaction) async -> Void) {
        Task { await recorder.set(record) }
    }

    static func send(_ activityID: String, _ action: String) async {
        await recorder.record(Interaction(activityID: activityID, action: action))
    }

    private actor Recorder {
        private var record: (@Sendable (Interaction) async -> Void)?
        func set(_ record: @escaping @Sendable (Interaction) async -> Void) { self.record = record }
        func record(_ interaction: Interaction) async { await record?(interaction) }
    }
}

/// The guide's boarding-pass button: tells the backend it was shown (`boarding-pass`).
struct ViewBoardingPassIntent: LiveActivityIntent {
    static let title: LocalizedStringResource = "View Boarding Pass"
    static let isDiscoverable: Bool = false

    @Parameter(title: "Activity ID")
    var activityId: String

    init() {}

    init(activityId: String) {
        self.activityId = activityId
    }

    func perform() async throws -> some IntentResult {
        await FlightIntents.send(activityId, "boarding-pass")
        return .result()
    }
}

/// The guide's check-in button: delivered once to the backend's webhook as `check-in`.
struct CheckInIntent: LiveActivityIntent {
    static let title: LocalizedStringResource = "Check In"
    static let isDiscoverable: Bool = false

    @Parameter(title: "Flight Number")
    var flightNumber: String

    @Parameter(title: "Activity ID")
    var activityId: String

    init() {}

    init(flightNumber: String, activityId: String) {
        self.flightNumber = flightNumber
        self.activityId = activityId
    }

    func perform() async throws -> some IntentResult {
        await FlightIntents.send(activityId, "check-in")
        return .result()
    }
}
#endif

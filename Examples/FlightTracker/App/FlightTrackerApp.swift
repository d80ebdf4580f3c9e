// Deployment target: iOS 17.2 (push-to-start tokens, Button(intent:)); built with the iOS 26 SDK.
#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import FlightTrackerShared
import Foundation
import LivelineKit
import SwiftUI

/// The app's Liveline wiring: one uploader and one coordinator, started first thing on every
/// launch, including the headless ones the system makes for a push-to-start or a token rotation.
@available(iOS 17.2, *)
enum FlightLiveline {
    static let appGroup = "group.com.example.flights"
    /// From Info.plist (`LivelineURL`, `LivelineAppKey`): the `liveline serve` the app talks to.
    static let serviceURL = URL(string: Bundle.main.object(forInfoDictionaryKey: "LivelineURL") as? String ?? "http://127.0.0.1:8080")!
    static let appKey = Bundle.main.object(forInfoDictionaryKey: "LivelineAppKey") as? String ?? ""

    static let coordinator: LiveActivityCoordinator? = {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else { return nil }
        let directory = container.appendingPathComponent("Liveline")
        let client = LivelineAppClient(baseURL: serviceURL, appKey: appKey)
        let installID = installationID(in: container)
        // iosVersion as UIDevice.current.systemVersion has it ("18.2", "17.4.1").
        let device = DeviceRegistration(deviceID: installID, bundleID: Bundle.main.bundleIdentifier ?? "com.example.flights",
                                        iosVersion: LivelineDevice.systemVersion, userID: UserDefaults.standard.string(forKey: "userID"))
        guard let uploader = try? TokenUploader(directory: directory, client: client, deviceID: installID) else { return nil }
        var configuration = LiveActivityCoordinator.Configuration(device: device)
        // The guide's type has no livelineActivityID: the logical id comes from the flight itself.
        configuration.logicalID = { FlightActivityAttributes.logicalID(attributes: $0.attributes) }
        return try? LiveActivityCoordinator(
            uploader: uploader, kinds: [ActivityKitKind<FlightActivityAttributes>()],
            authorization: ActivityKitAuthorization(), configuration: configuration, directory: directory)
    }()

    /// Our own id for this installation (a real app keeps it in the keychain).
    static func installationID(in container: URL) -> String {
        let file = container.appendingPathComponent("install-id")
        if let id = try? String(contentsOf: file, encoding: .utf8), !id.isEmpty { return id }
        let id = UUID().uuidString
        try? id.write(to: file, atomically: true, encoding: .utf8)
        return id
    }
}

@available(iOS 17.2, *)
@main
struct FlightTrackerApp: App {
    init() {
        // Before anything else: the UI may never appear on a background launch.
        if let coordinator = FlightLiveline.coordinator {
            Task { await coordinator.start() }
            FlightIntents.setRecorder { interaction in await coordinator.recordInteraction(interaction) }
        }
    }

    var body: some Scene {
        WindowGroup { FlightTrackerView() }
    }
}

/// The guide's screen: start tracking GA 2025, simulate a gate change and boarding, end. The
/// coordinator sees each new activity and uploads its update token; the backend's pushes do the same
/// to a running activity from the server.
@available(iOS 17.2, *)
struct FlightTrackerView: View {
    @State private var activityID: String?
    @State private var problem: String?

    var body: some View {
        VStack(spacing: 12) {
            Text("Flight Tracker").font(.title).bold()
            if let activityID {
                Text("Activity ID: \(activityID.prefix(8))...")
                Button("Simulate Gate Change") { update(activityID, status: "Gate Changed", gate: "B7", delay: 15, boarding: false) }
                Button("Start Boarding") { update(activityID, status: "Boarding Now", gate: nil, delay: nil, boarding: true) }
                Button("End Tracking") { end(activityID) }
            } else {
                Button("Start Tracking") { start() }
            }
            if let problem { Text(problem).foregroundStyle(.red) }
        }
        .padding()
    }

    private func start() {
        guard ActivityAuthorizationInfo().areActivitiesEnabled else { problem = "Live Activities are not enabled"; return }
        let departure = Date().addingTimeInterval(3600)
        let attributes = FlightActivityAttributes.example(scheduledDeparture: departure)
        let state = FlightActivityAttributes.story(departure: departure)[0].state
        do {
            let activity = try Activity.request(attributes: attributes, content: ActivityContent(state: state, staleDate: departure), pushType: .token)
            activityID = activity.id
        } catch {
            problem = "Failed to start Live Activity: \(error.localizedDescription)"
        }
    }

    private func update(_ id: String, status: String, gate: String?, delay: Int?, boarding: Bool) {
        guard let activity = Activity<FlightActivityAttributes>.activities.first(where: { $0.id == id }) else { return }
        var state = activity.content.state
        state.flightStatus = status
        if let gate { state.gateNumber = gate }
        if let delay { state.delayMinutes = delay }
        state.isBoarding = boarding
        let content = ActivityContent(state: state, staleDate: nil)
        Task { await Self.apply(content, to: id) }
    }

    private func end(_ id: String) {
        activityID = nil
        Task { await Self.end(id) }
    }

    /// Looks the activity up where it is used: `Activity` is not Sendable, so it never crosses into the task.
    private static func apply(_ content: ActivityContent<FlightActivityAttributes.ContentState>, to id: String) async {
        guard let activity = Activity<FlightActivityAttributes>.activities.first(where: { $0.id == id }) else { return }
        await activity.update(content)
    }

    private static func end(_ id: String) async {
        guard let activity = Activity<FlightActivityAttributes>.activities.first(where: { $0.id == id }) else { return }
        await activity.end(nil, dismissalPolicy: .immediate)
    }
}
#endif

#if canImport(ActivityKit) && canImport(SwiftUI) && canImport(WidgetKit)
import ActivityKit
import FlightTrackerShared
import LivelineKit
import SwiftUI
import UIKit

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
        let device = DeviceRegistration(deviceID: installID, bundleID: Bundle.main.bundleIdentifier ?? "com.example.flights",
                                        iosVersion: ProcessInfo.processInfo.operatingSystemVersionString, userID: UserDefaults.standard.string(forKey: "userID"))
        guard let uploader = try? TokenUploader(directory: directory, client: client, deviceID: installID) else { return nil }
        return try? LiveActivityCoordinator(
            uploader: uploader, kinds: [ActivityKitKind<FlightActivityAttributes>()],
            authorization: ActivityKitAuthorization(), configuration: .init(device: device), directory: directory)
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
final class AppDelegate: NSObject, UIApplicationDelegate {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil) -> Bool {
        // Before anything else: the UI may never appear on a background launch.
        if let coordinator = FlightLiveline.coordinator {
            Task { await coordinator.start() }
            FlightIntents.record = { interaction in await coordinator.recordInteraction(interaction) }
        }
        return true
    }
}

@available(iOS 17.2, *)
@main
struct FlightTrackerApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var delegate

    var body: some Scene {
        WindowGroup { FlightListView() }
    }
}

/// Starts an activity from the app (the server can also start one by push-to-start) and shows
/// the running ones. The coordinator sees each new activity and uploads its update token.
@available(iOS 17.2, *)
struct FlightListView: View {
    @State private var activities: [Activity<FlightActivityAttributes>] = Activity<FlightActivityAttributes>.activities
    @State private var problem: String?

    var body: some View {
        NavigationStack {
            List {
                Section("Tracked") {
                    ForEach(activities, id: \.id) { activity in
                        VStack(alignment: .leading) {
                            Text("\(activity.attributes.flightNumber) \(activity.attributes.origin) → \(activity.attributes.destination)").font(.headline)
                            Text("\(activity.content.state.status.rawValue), gate \(activity.content.state.gate ?? "–")").foregroundStyle(.secondary)
                        }
                    }
                }
                Button("Track LL 1234") { track() }
                if let problem { Text(problem).foregroundStyle(.red) }
            }
            .navigationTitle("Flights")
            .task {
                for await _ in Activity<FlightActivityAttributes>.activityUpdates {
                    activities = Activity<FlightActivityAttributes>.activities
                }
            }
        }
    }

    private func track() {
        let departure = Date().addingTimeInterval(2 * 3600)
        var attributes = FlightActivityAttributes.example(departure: departure)
        // The same logical id the backend uses, so its updates reach this activity.
        attributes.livelineActivityID = "flight-LL1234-\(departure.formatted(.iso8601.year().month().day()))"
        let state = FlightActivityAttributes.story(departure: departure)[0].state
        do {
            _ = try Activity.request(attributes: attributes, content: .init(state: state, staleDate: departure), pushType: .token)
            activities = Activity<FlightActivityAttributes>.activities
        } catch {
            problem = error.localizedDescription
        }
    }
}
#endif

// Deployment target: iOS 17.2 (push-to-start tokens); built with the iOS 26 SDK and react-native 0.74+.
// Type-checked on Linux against Tests/AppleSDKSurface by scripts/check-ios-sources.sh.
#if canImport(ActivityKit) && os(iOS)
import ActivityKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineKit
import React

/// The flight-tracker guide's native module, on LivelineKit: the same name and calls
/// (`startFlightActivity`, `updateFlightActivity`, `endFlightActivity`), the same
/// `onPushTokenUpdate` event with `{activityId, pushToken}`, so the guide's
/// `FlightActivityService.ts` and App run unchanged. What the guide left to the app is done here:
///
/// - **Liveline registration, by itself.** A `LiveActivityCoordinator` registers the device, each
///   activity's update token (under its logical id: `livelineActivityID` when the type declares it,
///   else the device's activity id, which is the guide's `activityId`), the push-to-start token, and
///   deletes tokens of activities that ended; it retries and survives relaunches.
/// - **Push-to-start.** `onPushToStartTokenUpdate` `{pushToStartToken, attributesType}`, and
///   `onPushTokenUpdate` (with `startedByPush: true`) for the update token of an activity the server
///   started.
///
/// Settings, in the app's Info.plist: `LivelineURL`, `LivelineAppKey` (an app key: all the app holds;
/// LivelineKit uses it once, to create this install's installation, whose credential it keeps in the
/// Keychain), optionally `LivelineAppGroup` (where LivelineKit keeps its queue; Application Support
/// otherwise) and `LivelineGrantURL` (the app's backend route that signs an activity grant for an
/// activity the app started itself: `POST {installationID, activityID}` answering `{grant}`; without
/// it only activities the server push-started get their update tokens registered).
///
/// Concurrency: React Native calls the methods on `methodQueue`, the main queue here, so they are
/// main-actor isolated. `Activity` is not Sendable: it is looked up by id where it is used.
@objc(LiveActivityModule)
final class LiveActivityModule: RCTEventEmitter {
    static let tokenEvent = "onPushTokenUpdate"
    static let pushToStartEvent = "onPushToStartTokenUpdate"

    private let coordinator: LiveActivityCoordinator?
    @MainActor private var listening = false
    @MainActor private var watching = false
    /// The activities this app requested; any other one was started by a push.
    @MainActor private var requested = Set<String>()

    override init() {
        coordinator = Self.makeCoordinator()
        super.init()
        if let coordinator { Task { await coordinator.start() } }
    }

    override class func requiresMainQueueSetup() -> Bool { true }
    override var methodQueue: DispatchQueue! { DispatchQueue.main }
    override func supportedEvents() -> [String]! { [Self.tokenEvent, Self.pushToStartEvent] }

    override func startObserving() {
        MainActor.assumeIsolated {
            listening = true
            watch()
        }
    }

    override func stopObserving() {
        MainActor.assumeIsolated { listening = false }
    }

    // MARK: The guide's calls

    @objc(startFlightActivity:resolver:rejecter:)
    @MainActor func startFlightActivity(_ flightData: NSDictionary, resolver resolve: @escaping RCTPromiseResolveBlock,
                                        rejecter reject: @escaping RCTPromiseRejectBlock) {
        guard ActivityAuthorizationInfo().areActivitiesEnabled else {
            reject("ACTIVITIES_DISABLED", "Live Activities are not enabled", nil)
            return
        }
        let attributes = FlightActivityAttributes(
            flightNumber: flightData["flightNumber"] as? String ?? "",
            origin: flightData["origin"] as? String ?? "",
            destination: flightData["destination"] as? String ?? "",
            scheduledDeparture: Date(timeIntervalSince1970: flightData["scheduledDeparture"] as? Double ?? 0),
            airline: flightData["airline"] as? String ?? "")
        let state = FlightActivityAttributes.ContentState(
            flightStatus: flightData["status"] as? String ?? "On Time",
            gateNumber: flightData["gate"] as? String ?? "TBD",
            boardingTime: Date(timeIntervalSince1970: flightData["boardingTime"] as? Double ?? 0),
            delayMinutes: flightData["delayMinutes"] as? Int ?? 0,
            isBoarding: false)
        do {
            let activity = try Activity.request(attributes: attributes, content: ActivityContent(state: state, staleDate: nil), pushType: .token)
            let id = activity.id
            requested.insert(id)
            watch()
            resolve(["activityId": id, "success": true])
        } catch {
            reject("START_FAILED", "Failed to start Live Activity: \(error.localizedDescription)", error)
        }
    }

    @objc(updateFlightActivity:updateData:resolver:rejecter:)
    @MainActor func updateFlightActivity(_ activityId: String, updateData: NSDictionary, resolver resolve: @escaping RCTPromiseResolveBlock,
                                         rejecter reject: @escaping RCTPromiseRejectBlock) {
        guard let current = Self.activity(activityId)?.content.state else {
            reject("NOT_FOUND", "Activity not found: \(activityId)", nil)
            return
        }
        var state = current
        if let status = updateData["status"] as? String { state.flightStatus = status }
        if let gate = updateData["gate"] as? String { state.gateNumber = gate }
        if let boarding = updateData["boardingTime"] as? Double { state.boardingTime = Date(timeIntervalSince1970: boarding) }
        if let delay = updateData["delayMinutes"] as? Int { state.delayMinutes = delay }
        if let isBoarding = updateData["isBoarding"] as? Bool { state.isBoarding = isBoarding }
        let content = ActivityContent(state: state, staleDate: nil)
        Task { @MainActor in
            await Self.update(activityId, to: content)
            resolve(["success": true])
        }
    }

    @objc(endFlightActivity:resolver:rejecter:)
    @MainActor func endFlightActivity(_ activityId: String, resolver resolve: @escaping RCTPromiseResolveBlock,
                                      rejecter reject: @escaping RCTPromiseRejectBlock) {
        guard Self.activity(activityId) != nil else {
            reject("NOT_FOUND", "Activity not found", nil)
            return
        }
        Task { @MainActor in
            await Self.end(activityId)
            resolve(["success": true])
        }
    }

    // MARK: Tokens for JavaScript (Liveline has them already, from the coordinator)

    /// Starts forwarding ActivityKit's tokens to JavaScript, once.
    @MainActor private func watch() {
        guard !watching else { return }
        watching = true
        Task { @MainActor in
            if let token = Activity<FlightActivityAttributes>.pushToStartToken { self.emitPushToStart(token) }
            for await token in Activity<FlightActivityAttributes>.pushToStartTokenUpdates { self.emitPushToStart(token) }
        }
        Task { @MainActor in
            for activity in Activity<FlightActivityAttributes>.activities { self.forwardTokens(of: activity.id) }
            for await activity in Activity<FlightActivityAttributes>.activityUpdates { self.forwardTokens(of: activity.id) }
        }
    }

    @MainActor private func forwardTokens(of id: String) {
        Task { @MainActor in
            guard let activity = Self.activity(id) else { return }
            let byPush = !self.requested.contains(id)
            if let token = activity.pushToken { self.emitToken(token, activityId: id, startedByPush: byPush) }
            for await token in activity.pushTokenUpdates { self.emitToken(token, activityId: id, startedByPush: byPush) }
        }
    }

    @MainActor private func emitToken(_ token: Data, activityId: String, startedByPush: Bool) {
        guard listening else { return }
        var body: [String: Any] = ["activityId": activityId, "pushToken": token.hexString]
        if startedByPush { body["startedByPush"] = true }
        sendEvent(withName: Self.tokenEvent, body: body)
    }

    @MainActor private func emitPushToStart(_ token: Data) {
        guard listening else { return }
        sendEvent(withName: Self.pushToStartEvent, body: ["pushToStartToken": token.hexString, "attributesType": FlightActivityAttributes.attributesType])
    }

    // MARK: Token environment (the build's aps-environment, sent with every token)

    /// Info.plist's `LivelineAPSEnvironment` (`development`, `sandbox` or `production`) when the app
    /// says it, else LivelineKit's reading of the embedded provisioning profile.
    private static var apsEnvironment: APSEnvironment? {
        if let stated = Bundle.main.object(forInfoDictionaryKey: "LivelineAPSEnvironment") as? String { return APSEnvironment(entitlement: stated) }
        return APSEnvironment.current
    }

    /// `getApsEnvironment()`: `"sandbox"`, `"production"` or null, for the JavaScript client's
    /// `apsEnvironment` option (Voltra apps register through it).
    @objc(getApsEnvironment:rejecter:)
    @MainActor func getApsEnvironment(_ resolve: @escaping RCTPromiseResolveBlock, rejecter reject: @escaping RCTPromiseRejectBlock) {
        resolve(Self.apsEnvironment?.rawValue)
    }

    // MARK: ActivityKit, looked up where used

    private static func activity(_ id: String) -> Activity<FlightActivityAttributes>? {
        Activity<FlightActivityAttributes>.activities.first { $0.id == id }
    }

    private static func update(_ id: String, to content: ActivityContent<FlightActivityAttributes.ContentState>) async {
        await activity(id)?.update(content)
    }

    private static func end(_ id: String) async {
        await activity(id)?.end(nil, dismissalPolicy: .immediate)
    }

    // MARK: LivelineKit

    private static func makeCoordinator() -> LiveActivityCoordinator? {
        let info = Bundle.main
        guard let url = (info.object(forInfoDictionaryKey: "LivelineURL") as? String).flatMap(URL.init(string:)),
              let appKey = info.object(forInfoDictionaryKey: "LivelineAppKey") as? String, !appKey.isEmpty else { return nil }
        let base: URL?
        if let group = info.object(forInfoDictionaryKey: "LivelineAppGroup") as? String {
            base = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
        } else {
            base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        }
        guard let directory = base?.appendingPathComponent("Liveline") else { return nil }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let installID = installationID(in: directory)
        var device = DeviceRegistration(deviceID: installID, bundleID: info.bundleIdentifier ?? "", iosVersion: LivelineDevice.systemVersion)
        // The build and version come from Info.plist by default; the schema version of each type from LivelineSchemaVersions.
        device.schemaVersions = info.object(forInfoDictionaryKey: "LivelineSchemaVersions") as? [String: String]
        // The installation credential lives in the Keychain; the app key only creates the installation.
        var client = LivelineAppClient(baseURL: url, appKey: appKey, secretStore: KeychainSecretStore(account: url.absoluteString))
        if let grantURL = (info.object(forInfoDictionaryKey: "LivelineGrantURL") as? String).flatMap(URL.init(string:)) {
            // An activity the app started is the installation's only once the backend grants it.
            client.activityGrantProvider = { installationID, activityID in
                await Self.grant(from: grantURL, installationID: installationID, activityID: activityID)
            }
        }
        client.apsEnvironment = apsEnvironment
        guard let uploader = try? TokenUploader(directory: directory, client: client, deviceID: installID) else { return nil }
        var configuration = LiveActivityCoordinator.Configuration(device: device)
        // The guide's type has no livelineActivityID: an activity's logical id is then its device id,
        // which is the guide's activityId, the id its backend sends updates to.
        configuration.logicalID = { $0.attributes[ActivitySchema.activityIDKey]?.stringValue ?? $0.id }
        return try? LiveActivityCoordinator(uploader: uploader, kinds: [ActivityKitKind<FlightActivityAttributes>()],
                                            authorization: ActivityKitAuthorization(), configuration: configuration, directory: directory)
    }

    /// The app's backend's grant for `activityID` (an HS256 token it signs with the app's token
    /// secret, docs/security.md), or nil when it refuses or does not answer.
    private static func grant(from url: URL, installationID: String, activityID: String) async -> String? {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["installationID": installationID, "activityID": activityID])
        guard let (data, response) = try? await URLSession.shared.data(for: request),
              (response as? HTTPURLResponse)?.statusCode == 200,
              let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return body["grant"] as? String
    }

    /// The local name of this install's queue (the service's device id is the installation's).
    private static func installationID(in directory: URL) -> String {
        let file = directory.appendingPathComponent("install-id")
        if let id = try? String(contentsOf: file, encoding: .utf8), !id.isEmpty { return id }
        let id = UUID().uuidString
        try? id.write(to: file, atomically: true, encoding: .utf8)
        return id
    }
}

extension Data {
    fileprivate var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
#endif

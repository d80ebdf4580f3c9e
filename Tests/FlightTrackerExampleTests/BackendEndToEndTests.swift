import FlightTrackerShared
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineService
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import SimulatedPhoneFixture
import Testing

/// The example's backend script, run as a real process against a real `liveline serve` (SQLite,
/// HTTP on loopback) that pushes over HTTP/2 to the simulator, where a simulated iPhone's app runs
/// LivelineKit and registers its device, its push-to-start token and the update token it is given.
@Suite("Examples/FlightTracker: flight-tracker-backend runs the flight's day against a real service and a phone")
struct BackendEndToEndTests {
    static let bundle = "com.example.flights"
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("start by push-to-start to user ana, gate change, boarding, end: the service records each, the phone shows the last")
    func flightDay() async throws {
        try await SimulatedPhoneFixture.run(phones: [.init("ana-iphone", name: "iPhone 16", activityTypes: [.type(FlightActivityAttributes.self)])],
                                            configure: { $0.schemaFiles = [Self.package.appendingPathComponent("Examples/FlightTracker/FlightActivityAttributes.schema.json").path] }) { f in
            let simulator = f.simulator, server = f.server, admin = f.adminKey
            // Ana signed in: the app's backend signs a user token for her phone's installation (docs/security.md): the fixture's client.

            // Ana's phone launches the app: LivelineKit registers the device under her user id and its push-to-start token.
            // As the example app does: iosVersion as UIDevice writes it, the logical id from the flight
            // (the guide's type has no livelineActivityID, and the device drops the key).
            let app = try f.app(
                DeviceRegistration(deviceID: "ana-iphone", bundleID: Self.bundle,
                                   iosVersion: LivelineDevice.systemVersion(OperatingSystemVersion(majorVersion: 18, minorVersion: 2, patchVersion: 0)), userID: "ana"),
                attributesTypes: [FlightActivityAttributes.attributesType],
                configure: { $0.logicalID = { FlightActivityAttributes.logicalID(attributes: $0.attributes) } })
            let launched = await app.launch(simulator)
            #expect(launched.remaining == 0 && launched.dropped.isEmpty, "\(launched)")

            // The backend script, a real process; while it runs, the phone's app looks at what ActivityKit gives it.
            let departureDate = Date(timeIntervalSince1970: ((Date().timeIntervalSince1970 + 2 * 3600) / 60).rounded(.down) * 60)
            let departure = ISO8601DateFormatter().string(from: departureDate)
            let id = "flight-GA2025-" + ISO8601DateFormatter.string(from: departureDate, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
            let backend = try RunningProcess.start(BuiltProduct.path("flight-tracker-backend"), ["--user", "ana", "--departure", departure],
                                                   environment: ["LIVELINE_URL": server.url, "LIVELINE_ADMIN_KEY": admin, "PATH": "/usr/bin:/bin"],
                                                   keepStandardError: true)
            var registered = false
            // The phone looks at its activity while the backend runs (the backend waits for its token).
            try await until("the backend to finish its flight", within: .seconds(120), poll: .milliseconds(20)) {
                if !registered, simulator.activities().contains(where: { $0.deviceID == "ana-iphone" }) {
                    let looked = await app.look(simulator)
                    registered = looked.sent.contains { $0.hasPrefix("token of ana-iphone") }
                }
                return !backend.isRunning
            }
            let status = try await backend.exitStatus(within: .seconds(10))
            let output = backend.standardOutput
            #expect(status == 0, "\(output)")
            #expect(registered, "the app registered the update token it was given")
            #expect(output.contains("1 update token(s) registered"), "\(output)")

            // The service: every push of the day reached a final state, sent, to the token the app registered.
            let settled = try await f.settled(id).json
            let deliveries = settled["deliveries"]?.arrayValue ?? []
            #expect(deliveries.map { $0["event"]?.stringValue ?? "?" }.sorted() == ["end", "start", "update", "update"], "\(deliveries)")
            // The start and the end are sent. Of the updates, the newest is sent; an older one still
            // queued when a newer one came is superseded (only the newest content matters on a Lock
            // Screen), which happens when the machine is slow and the script is not.
            func states(_ event: String) -> [String] { deliveries.filter { $0["event"]?.stringValue == event }.map { $0["state"]?.stringValue ?? "?" } }
            #expect(states("start") == ["sent"] && states("end") == ["sent"], "\(deliveries)")
            let updates = states("update")  // newest first
            #expect(updates.first == "sent", "\(deliveries)")
            #expect(updates.allSatisfy { $0 == "sent" || $0 == "superseded" }, "\(deliveries)")

            // The phone: one activity for the logical id, ended, showing the departed state the script sent last.
            let activities = simulator.activities().filter { $0.deviceID == "ana-iphone" }
            #expect(activities.count == 1)
            let activity = try #require(activities.first)
            let attributes = try activity.attributes.decode(FlightActivityAttributes.self)
            #expect(activity.attributes[ActivitySchema.activityIDKey] == nil, "the device dropped the key the type does not declare")
            #expect(FlightActivityAttributes.logicalID(attributes: activity.attributes) == id)
            #expect(attributes.flightNumber == "GA 2025")
            let shown = try activity.contentState.decode(FlightActivityAttributes.ContentState.self)
            #expect(shown.flightStatus == "Departed")
            #expect(shown.gateNumber == FlightActivityAttributes.story(departure: departureDate).last?.state.gateNumber)
            #expect(activity.state == .ended, "\(activity.state)")
            #expect(activity.updateCount == updates.filter { $0 == "sent" }.count, "each update sent reached the phone; the end is not an update")

            // The app sees the activity ended and takes its token off the service.
            let afterEnd = await app.look(simulator)
            #expect(afterEnd.sent.contains { $0.hasPrefix("deletion of ana-iphone's token for \(id)") }, "\(afterEnd.sent)")
        }
    }
}

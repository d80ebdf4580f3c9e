import Foundation
import LivelineCore
import Synchronization

/// What a person does to the simulated iPhones, beyond what APNs does to them: add a device, tap a
/// button or toggle in a Live Activity, open a link, move the clock, rotate a token, switch frequent
/// updates, end or dismiss an activity. The dashboard's buttons and the control routes
/// (`POST /simulator/v1/...`, see `respond(method:path:body:)` and docs/dashboard.md) call these.
///
/// Every call checks its input first: a call that throws changed nothing.
public final class SimulatorControl: Sendable {
    /// The simulator controlled.
    public let simulator: Simulator
    /// Where taps are forwarded (nil: only recorded).
    public let forwarding: InteractionForwarding?

    private struct Journal {
        var sequence = 0
        var interactions: [String: [SimulatorInteraction]] = [:]
        var links: [String: [SimulatorLinkOpen]] = [:]
    }

    private let journal = Mutex(Journal())
    /// Interactions and links kept per device (oldest dropped first).
    public static let keptPerDevice = 200

    /// Controls `simulator`, forwarding taps to `forwarding` when set.
    public init(simulator: Simulator, forwarding: InteractionForwarding? = nil) {
        self.simulator = simulator
        self.forwarding = forwarding
    }

    // MARK: - Devices

    /// The activity types the control API installs by name.
    public static let knownActivityTypes: [String: ActivityType] = [
        FlightAttributes.attributesType: .type(FlightAttributes.self),
        ActivityType.voltra.name: .voltra,
    ]

    /// Adds an iPhone running `osVersion` with `bundleID` installed (default: the first app the
    /// simulator knows) and `activityTypes` registered (names from `knownActivityTypes`).
    /// - Throws: `SimulatorError` (`.invalidConfiguration`) for an empty name, an unknown type or no app.
    @discardableResult
    public func addDevice(name: String, osVersion: OSVersion, bundleID: String? = nil,
                          activityTypes: [String] = [FlightAttributes.attributesType, ActivityType.voltra.name],
                          supportsFrequentUpdates: Bool = false) throws(SimulatorError) -> DeviceSnapshot {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            throw SimulatorError(.invalidConfiguration, "a device needs a name of 1 to 100 characters")
        }
        var types: [ActivityType] = []
        for typeName in activityTypes {
            guard let type = Self.knownActivityTypes[typeName] else {
                throw SimulatorError(.invalidConfiguration, "unknown activity type \"\(typeName)\" (known: \(Self.knownActivityTypes.keys.sorted().joined(separator: ", ")))")
            }
            types.append(type)
        }
        let known = simulator.state.withLock { s in s.config.apps.map(\.bundleID) + s.appsByBundle.keys.sorted() }
        guard let app = bundleID ?? known.first else {
            throw SimulatorError(.invalidConfiguration, "the simulator knows no app to install; give \"bundleID\"")
        }
        let id = simulator.addDevice(name: trimmed, osVersion: osVersion)
        try simulator.install(app, on: id, activityTypes: types, supportsFrequentUpdates: supportsFrequentUpdates)
        simulator.publish(.device(id))
        return simulator.devices().first { $0.id == id }!
    }

    // MARK: - Interactions

    /// Taps a button (`value` nil) or flips a toggle (`value` its new state) in a running or stale
    /// activity: recorded in the device's journal, then forwarded when a URL is configured.
    /// - Throws: `SimulatorError` for an unknown or dismissed activity, an empty action, or a toggle without value.
    public func tap(activityID: String, kind: SimulatorInteraction.Kind, action: String, value: Bool? = nil,
                    payload: JSONValue? = nil) async throws(SimulatorError) -> SimulatorInteraction {
        guard let activity = simulator.activity(activityID), activity.state != .dismissed else {
            throw SimulatorError(.unknownActivity, "no activity \"\(activityID)\" on the Lock Screen")
        }
        guard !action.isEmpty, action.count <= 200 else {
            throw SimulatorError(.invalidConfiguration, "\"action\" must be 1 to 200 characters (the intent's identifier)")
        }
        switch (kind, value) {
        case (.toggle, nil): throw SimulatorError(.invalidConfiguration, "a toggle tap needs \"value\": true or false (its new state)")
        case (.button, .some): throw SimulatorError(.invalidConfiguration, "a button has no \"value\"; use kind \"toggle\"")
        default: break
        }
        var carried = payload
        if let value {
            if case .object(var object)? = payload {
                object["value"] = .bool(value)
                carried = .object(object)
            } else if payload == nil {
                carried = ["value": .bool(value)]
            }
        }
        // What the app reports the tap under: the logical id its attributes declare, Voltra's activity
        // name (its app knows activities by name), else the device's activity id.
        let voltraName = activity.attributesType == ActivityType.voltra.name ? activity.attributes["name"]?.stringValue : nil
        let logical = activity.attributes[ActivitySchema.activityIDKey]?.stringValue ?? voltraName ?? activityID
        var interaction = SimulatorInteraction(
            sequence: 0, time: simulator.clock.now, deviceID: activity.deviceID, activityID: activityID, logicalActivityID: logical,
            kind: kind, action: action, value: value, payload: carried, idempotencyKey: UUID().uuidString, forwarding: .notConfigured)
        if let forwarding { interaction.forwarding = await forwarding.send(interaction) }
        let recorded = journal.withLock { [interaction] j -> SimulatorInteraction in
            var entry = interaction
            j.sequence += 1
            entry.sequence = j.sequence
            j.interactions[entry.deviceID, default: []].append(entry)
            if j.interactions[entry.deviceID]!.count > Self.keptPerDevice { j.interactions[entry.deviceID]!.removeFirst() }
            return entry
        }
        simulator.publish(.interaction(recorded))
        return recorded
    }

    /// Opens `url`, a link of the activity, on its device: recorded in the device's journal.
    /// - Throws: `SimulatorError` for an unknown activity or a URL without a scheme.
    public func openLink(activityID: String, url: String) throws(SimulatorError) -> SimulatorLinkOpen {
        guard let activity = simulator.activity(activityID), activity.state != .dismissed else {
            throw SimulatorError(.unknownActivity, "no activity \"\(activityID)\" on the Lock Screen")
        }
        guard url.count <= 2048, let parsed = URLComponents(string: url), let scheme = parsed.scheme, !scheme.isEmpty else {
            throw SimulatorError(.invalidConfiguration, "\"url\" must be an absolute URL with a scheme (like myapp://flight/LL1234), got \"\(url.prefix(80))\"")
        }
        let open = journal.withLock { j -> SimulatorLinkOpen in
            j.sequence += 1
            let open = SimulatorLinkOpen(sequence: j.sequence, time: simulator.clock.now, deviceID: activity.deviceID, activityID: activityID, url: url)
            j.links[activity.deviceID, default: []].append(open)
            if j.links[activity.deviceID]!.count > Self.keptPerDevice { j.links[activity.deviceID]!.removeFirst() }
            return open
        }
        simulator.publish(.link(open))
        return open
    }

    /// The device's interactions, oldest first.
    public func interactions(deviceID: String) -> [SimulatorInteraction] {
        journal.withLock { $0.interactions[deviceID] ?? [] }
    }

    /// The links opened on the device, oldest first.
    public func links(deviceID: String) -> [SimulatorLinkOpen] {
        journal.withLock { $0.links[deviceID] ?? [] }
    }

    // MARK: - Time

    /// Moves the clock forward by `seconds` and applies what falls due (stale, 8-hour end, removal).
    /// - Throws: `SimulatorError` (`.unsupported`) when the clock is the system clock, (`.invalidConfiguration`) for a negative or huge value.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) throws(SimulatorError) -> Date {
        guard seconds.isFinite, seconds >= 0, seconds <= 366 * 86400 else {
            throw SimulatorError(.invalidConfiguration, "\"seconds\" must be between 0 and 31622400 (a year), got \(JSONValue.javaScriptNumber(seconds))")
        }
        switch simulator.clock {
        case let clock as LiveClock: clock.advance(by: seconds)
        case let clock as VirtualClock: clock.advance(by: seconds)
        default: throw SimulatorError(.unsupported, "this simulator runs on the system clock, which cannot be advanced; start it with a LiveClock (liveline simulator --dashboard does)")
        }
        _ = simulator.activities()  // applies the transitions now due, which publishes their events
        let now = simulator.clock.now
        simulator.publish(.clock(now))
        return now
    }
}

import Foundation
import LivelineCore
import LivelineSimulator

/// The JSON the page draws one device from: its apps and tokens, its activities drawn in every
/// presentation, its delivery log and its journal of taps and links.
struct DashboardCards: Sendable {
    let control: SimulatorControl
    let log: DashboardLog

    var simulator: Simulator { control.simulator }

    /// Every device's card, in the order added.
    func all() -> [JSONValue] {
        let now = simulator.clock.now
        let activities = simulator.activities()
        return simulator.devices().map { d in card(d, activities: activities.filter { $0.deviceID == d.id }, now: now) }
    }

    /// One device's card; nil for an unknown device.
    func card(_ deviceID: String) -> JSONValue? {
        guard let device = simulator.devices().first(where: { $0.id == deviceID }) else { return nil }
        return card(device, activities: simulator.activities().filter { $0.deviceID == deviceID }, now: simulator.clock.now)
    }

    private func card(_ d: DeviceSnapshot, activities: [ActivitySnapshot], now: Date) -> JSONValue {
        let apps: [JSONValue] = d.apps.map { a in
            var starts = JSONObject()
            for t in a.activityTypes { if let token = a.pushToStartTokens[t] { starts[t] = .string(token) } }
            return [
                "bundleID": .string(a.bundleID), "deviceToken": .string(a.deviceToken), "installed": .bool(a.installed),
                "activityTypes": .array(a.activityTypes.map(JSONValue.string)), "pushToStartTokens": .object(starts),
                "supportsFrequentUpdates": .bool(a.supportsFrequentUpdates), "frequentUpdatesEnabled": .bool(a.frequentUpdatesEnabled),
            ]
        }
        let shown = activities.filter { $0.state != .dismissed }
        let journal = control.interactions(deviceID: d.id).map { ($0.sequence, $0.json) } + control.links(deviceID: d.id).map { ($0.sequence, $0.json) }
        return [
            "id": .string(d.id), "name": .string(d.name), "iOS": .string(d.osVersion.description), "environment": .string(d.environment.rawValue),
            "apps": .array(apps), "modes": d.modes.json,
            "activities": .array(shown.map { activity($0, now: now) }),
            "log": .array(log.entries(deviceID: d.id).reversed()),
            "journal": .array(journal.sorted { $0.0 > $1.0 }.prefix(20).map(\.1)),
        ]
    }

    private func activity(_ a: ActivitySnapshot, now: Date) -> JSONValue {
        let drawn = DeviceRendering.render(a, at: now)
        var fragments = JSONObject()
        for p in DeviceRendering.presentations { if let html = drawn.fragments[p] { fragments[p] = .string(html) } }
        var o: JSONObject = [
            "id": .string(a.id), "state": .string(a.state.rawValue), "attributesType": .string(a.attributesType),
            "bundleID": .string(a.bundleID), "startedBy": .string(a.startedBy), "updates": .number(Double(a.updateCount)),
            "dropped": .number(Double(a.droppedCount)), "fragments": .object(fragments),
            "warnings": .array(drawn.warnings.map(JSONValue.string)), "findings": .array(log.findings(for: a)),
            "contentState": a.contentState,
        ]
        if let t = a.pushToken { o["pushToken"] = .string(t) }
        if let s = a.staleDate { o["staleDate"] = .string(s.formatted(.iso8601)) }
        if let e = a.endedAt { o["endedAt"] = .string(e.formatted(.iso8601)) }
        if let url = a.attributes["deepLinkUrl"]?.stringValue { o["link"] = .string(url) }
        return .object(o)
    }
}

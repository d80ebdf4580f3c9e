import Foundation
import LivelineCore

/// The control routes as JSON in and JSON out, for any HTTP server to mount (the dashboard does):
/// `POST /simulator/v1/devices`, `POST /simulator/v1/clock/advance`,
/// `POST /simulator/v1/activities/{id}/tap|open-link|rotate-token|end|dismiss`,
/// `POST /simulator/v1/devices/{id}/rotate-push-to-start|frequent-updates|modes`,
/// `POST /simulator/v1/devices/{id}/activities` (the app starts an activity, as `Activity.request` does),
/// `GET /simulator/v1/devices/{id}/journal`. Errors are `{"error": {"code", "message"}}`.
extension SimulatorControl {
    /// A status and its JSON body.
    public struct Answer: Sendable {
        public var status: Int
        public var json: JSONValue
    }

    /// Answers a control route; `nil` when `path` is none of them (so the caller can try others).
    public func respond(method: String, path: String, body: [UInt8]) async -> Answer? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "", parts[1] == "simulator", parts[2] == "v1" else { return nil }
        let route = Array(parts.dropFirst(3))
        let expected: String
        switch (route.count, route.first, route.count > 2 ? route[2] : "") {
        case (1, "devices", _) where method == "POST", (2, "clock", _), (3, "activities", _), (3, "devices", "rotate-push-to-start"), (3, "devices", "frequent-updates"), (3, "devices", "activities"), (3, "devices", "modes"):
            expected = "POST"
        case (3, "devices", "journal"):
            expected = "GET"
        default:
            return nil
        }
        guard method == expected else {
            return Self.error(405, "method-not-allowed", "\(path) takes \(expected), not \(method)")
        }
        do throws(SimulatorError) {
            let input = try Self.object(body, allowEmpty: expected == "GET" || route.last == "dismiss" || route.last == "rotate-token")
            return try await dispatch(route, input)
        } catch {
            return Self.answer(for: error)
        }
    }

    private func dispatch(_ route: [String], _ input: Input) async throws(SimulatorError) -> Answer {
        switch (route[0], route.count > 1 ? route[1] : "", route.count > 2 ? route[2] : "") {
        case ("devices", "", _):
            let name = try input.string("name") ?? "iPhone"
            let iOS = try input.string("iOS") ?? "18.2"
            guard let version = OSVersion(parsing: iOS) else {
                throw SimulatorError(.invalidConfiguration, "\"iOS\" must be a version such as 17.2 or 18.0.1, got \"\(iOS)\"")
            }
            let types = try input.strings("activityTypes") ?? [FlightAttributes.attributesType, ActivityType.voltra.name]
            let bundleID = try input.string("bundleID")
            let frequent = try input.bool("supportsFrequentUpdates") ?? false
            try input.finish()
            let device = try addDevice(name: name, osVersion: version, bundleID: bundleID, activityTypes: types, supportsFrequentUpdates: frequent)
            return Answer(status: 201, json: simulator.devicesJSON().arrayValue?.first { $0["id"]?.stringValue == device.id } ?? .null)
        case ("devices", let id, "activities"):
            // The app on the device calls Activity.request(attributes:content:pushType: .token): the
            // attributes and content state as ActivityKit encodes them (dates in seconds since 2001).
            guard let bundleID = try input.string("bundleID") else { throw SimulatorError(.invalidConfiguration, "\"bundleID\" is required") }
            guard let type = try input.string("attributesType") else { throw SimulatorError(.invalidConfiguration, "\"attributesType\" is required") }
            guard let attributes = input.value("attributes"), attributes.objectValue != nil else { throw SimulatorError(.invalidConfiguration, "\"attributes\" must be an object") }
            guard let state = input.value("contentState"), state.objectValue != nil else { throw SimulatorError(.invalidConfiguration, "\"contentState\" must be an object") }
            // `channelID`: pushType: .channel(channelID) instead (iOS 18): no update token, the channel's broadcasts only.
            let channel = try input.string("channelID")
            try input.finish()
            let started = try simulator.startActivity(on: id, bundleID: bundleID, attributesType: type, attributes: attributes, contentState: state,
                                                      pushMode: channel.map { .channel($0) } ?? .token)
            return Answer(status: 201, json: simulator.activitiesJSON().arrayValue?.first { $0["id"]?.stringValue == started.id } ?? .null)
        case ("clock", "advance", _):
            guard let seconds = try input.number("seconds") else { throw SimulatorError(.invalidConfiguration, "\"seconds\" is required (a number of seconds to move the clock forward)") }
            try input.finish()
            let now = try advanceClock(by: seconds)
            return Answer(status: 200, json: ["time": .string(SimulatorState.iso(now))])
        case ("activities", let id, "tap"):
            let kindText = try input.string("kind") ?? "button"
            guard let kind = SimulatorInteraction.Kind(rawValue: kindText) else {
                throw SimulatorError(.invalidConfiguration, "\"kind\" must be button or toggle, got \"\(kindText)\"")
            }
            guard let action = try input.string("action") else { throw SimulatorError(.invalidConfiguration, "\"action\" is required (the intent's identifier)") }
            let value = try input.bool("value")
            let payload = input.value("payload")
            try input.finish()
            return Answer(status: 200, json: try await tap(activityID: id, kind: kind, action: action, value: value, payload: payload).json)
        case ("activities", let id, "open-link"):
            guard let url = try input.string("url") else { throw SimulatorError(.invalidConfiguration, "\"url\" is required") }
            try input.finish()
            return Answer(status: 200, json: try openLink(activityID: id, url: url).json)
        case ("activities", let id, "rotate-token"):
            try input.finish()
            let token = try simulator.rotatePushToken(id)
            return Answer(status: 200, json: ["activityID": .string(id), "pushToken": .string(token)])
        case ("activities", let id, "end"):
            let policyText = try input.string("dismissal") ?? "default"
            guard let policy = Simulator.DismissalPolicy(rawValue: policyText) else {
                throw SimulatorError(.invalidConfiguration, "\"dismissal\" must be default or immediate, got \"\(policyText)\"")
            }
            try input.finish()
            try simulator.endActivity(id, dismissal: policy)
            return Answer(status: 200, json: simulator.activity(id).map(Simulator.json) ?? .null)
        case ("activities", let id, "dismiss"):
            try input.finish()
            guard simulator.activity(id) != nil else { throw SimulatorError(.unknownActivity, "no activity \"\(id)\"") }
            try simulator.dismissByUser(id)
            return Answer(status: 200, json: simulator.activity(id).map(Simulator.json) ?? ["id": .string(id), "state": "dismissed"])
        case ("devices", let id, "rotate-push-to-start"):
            var bundleID = try input.string("bundleID") ?? ""
            if bundleID.isEmpty { bundleID = try defaultApp(on: id) }
            guard let type = try input.string("attributesType") else { throw SimulatorError(.invalidConfiguration, "\"attributesType\" is required") }
            try input.finish()
            let token = try simulator.rotatePushToStartToken(bundleID: bundleID, attributesType: type, on: id)
            return Answer(status: 200, json: ["deviceID": .string(id), "bundleID": .string(bundleID), "attributesType": .string(type), "pushToStartToken": .string(token)])
        case ("devices", let id, "frequent-updates"):
            var bundleID = try input.string("bundleID") ?? ""
            if bundleID.isEmpty { bundleID = try defaultApp(on: id) }
            guard let enabled = try input.bool("enabled") else { throw SimulatorError(.invalidConfiguration, "\"enabled\" is required (true or false)") }
            try input.finish()
            try simulator.setFrequentUpdatesEnabled(enabled, bundleID: bundleID, on: id)
            simulator.publish(.device(id))
            return Answer(status: 200, json: ["deviceID": .string(id), "bundleID": .string(bundleID), "frequentUpdatesEnabled": .bool(enabled)])
        case ("devices", let id, "modes"):
            // Only the modes given change (DeviceModes.swift).
            guard var modes = simulator.modes(of: id) else { throw SimulatorError(.unknownDevice, "no device \"\(id)\"") }
            if let v = try input.bool("forceQuit") { modes.forceQuit = v }
            if let v = try input.bool("withholdsUpdateTokens") { modes.withholdsUpdateTokens = v }
            try input.finish()
            try simulator.setModes(modes, on: id)
            return Answer(status: 200, json: ["deviceID": .string(id), "modes": modes.json])
        case ("devices", let id, "journal"):
            _ = try defaultApp(on: id)
            let entries = interactions(deviceID: id).map { ($0.sequence, $0.json) } + links(deviceID: id).map { ($0.sequence, $0.json) }
            return Answer(status: 200, json: .array(entries.sorted { $0.0 < $1.0 }.map(\.1)))
        default:
            throw SimulatorError(.invalidConfiguration, "no control route \(route.joined(separator: "/"))")
        }
    }

    /// The first installed app of a device.
    private func defaultApp(on deviceID: String) throws(SimulatorError) -> String {
        guard let device = simulator.devices().first(where: { $0.id == deviceID }) else {
            throw SimulatorError(.unknownDevice, "no device \"\(deviceID)\"")
        }
        guard let app = device.apps.first(where: \.installed) else {
            throw SimulatorError(.unknownApp, "device \"\(deviceID)\" has no app installed")
        }
        return app.bundleID
    }

    static func answer(for error: SimulatorError) -> Answer {
        let status: Int
        switch error.code {
        case .unknownDevice, .unknownActivity, .unknownApp: status = 404
        case .unsupported, .targetMaximumExceeded: status = 409
        default: status = 400
        }
        return self.error(status, error.code.rawValue, error.message)
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> Answer {
        Answer(status: status, json: ["error": ["code": .string(code), "message": .string(message)]])
    }

    // MARK: - Request bodies

    /// A JSON object body, read field by field; `finish()` refuses fields nobody read.
    final class Input {
        private var fields: JSONObject
        private var read: Set<String> = []

        init(_ fields: JSONObject) { self.fields = fields }

        func value(_ name: String) -> JSONValue? {
            read.insert(name)
            guard let v = fields[name], v != .null else { return nil }
            return v
        }

        func string(_ name: String) throws(SimulatorError) -> String? {
            guard let v = value(name) else { return nil }
            guard let s = v.stringValue else { throw Self.wrongType(name, "a string", v) }
            return s
        }

        func number(_ name: String) throws(SimulatorError) -> Double? {
            guard let v = value(name) else { return nil }
            guard let n = v.numberValue else { throw Self.wrongType(name, "a number", v) }
            return n
        }

        func bool(_ name: String) throws(SimulatorError) -> Bool? {
            guard let v = value(name) else { return nil }
            guard let b = v.boolValue else { throw Self.wrongType(name, "true or false", v) }
            return b
        }

        func strings(_ name: String) throws(SimulatorError) -> [String]? {
            guard let v = value(name) else { return nil }
            guard let list = v.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else { throw Self.wrongType(name, "an array of strings", v) }
            return list.compactMap(\.stringValue)
        }

        func finish() throws(SimulatorError) {
            if let extra = fields.keys.first(where: { !read.contains($0) }) {
                throw SimulatorError(.invalidConfiguration, "unknown field \"\(extra)\" (accepted here: \(read.sorted().joined(separator: ", ")))")
            }
        }

        private static func wrongType(_ name: String, _ expected: String, _ got: JSONValue) -> SimulatorError {
            SimulatorError(.invalidConfiguration, "\"\(name)\" must be \(expected), got \(got.typeName)")
        }
    }

    static func object(_ body: [UInt8], allowEmpty: Bool) throws(SimulatorError) -> Input {
        if body.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 13 || $0 == 9 }) {
            if allowEmpty { return Input([:]) }
            throw SimulatorError(.invalidConfiguration, "the body must be a JSON object")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(body) } catch { throw SimulatorError(.invalidConfiguration, "the body is not JSON: \(error)") }
        guard let object = json.objectValue else { throw SimulatorError(.invalidConfiguration, "the body must be a JSON object, got \(json.typeName)") }
        return Input(object)
    }
}

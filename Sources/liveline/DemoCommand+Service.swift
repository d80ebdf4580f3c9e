import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineCrypto
import LivelineKit
import LivelineKitSimulator
import LivelinePreview
import LivelineService
import LivelineSimulator
import LivelineProcess
import LivelineToolSupport
import LivelineUI
import Synchronization

/// The flight tracker through the service: `liveline simulator` and `liveline serve` run as real
/// processes on loopback; two simulated iPhones' apps run LivelineKit (a coordinator over the
/// phone's activities, an uploader with its queue on disk) and register with the service over HTTP;
/// the backend starts LL 1234 by push-to-start and sends every change by logical activity id.
extension DemoCommand {
    static let bundle = "com.example.flights"

    struct Phone {
        var id: String
        var name: String
        var ios: String
        var user: String
    }

    static let phones = [
        Phone(id: "iphone-16", name: "iPhone 16", ios: "18.2", user: "ana"),
        Phone(id: "iphone-12", name: "iPhone 12", ios: "17.5", user: "ben"),
    ]

    /// A third phone whose user force-quit the app (the simulator's `forceQuit` mode): APNs accepts
    /// its push-to-start and the activity never shows, which the service's status infers.
    static let forceQuitPhone = Phone(id: "iphone-13", name: "iPhone 13", ios: "17.5", user: "cy")
    /// The service reports a push-to-start as never shown after this long (`--start-shown-within`).
    static let startShownWithinSeconds = 2

    static func throughService(stateDirectory: String?) async throws -> Int32 {
        let directory = stateDirectory ?? NSTemporaryDirectory() + "liveline-demo-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if stateDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

        // The provider key, made now, and the simulator's world: one team, the app, two phones.
        let keyID = "DEMOKEY001", teamID = "DEMOTEAM01"
        let keyPEM: String
        do { keyPEM = try P256PrivateKey.generate().pkcs8PEM() } catch { throw CLIError(message: "cannot make a key: \(error.message)") }
        let keyFile = directory + "/AuthKey_\(keyID).p8"
        guard FileManager.default.createFile(atPath: keyFile, contents: Data(keyPEM.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CLIError(message: "cannot write \(keyFile)")
        }
        let config: JSONValue = [
            "environment": "sandbox", "seed": 7,
            "keys": [["keyID": .string(keyID), "teamID": .string(teamID), "p8": .string(keyFile)]],
            "apps": [["bundleID": .string(bundle), "teamID": .string(teamID), "broadcast": true]],
            "devices": .array((phones + [forceQuitPhone]).map { p in
                var d: JSONObject = ["id": .string(p.id), "name": .string(p.name), "iOS": .string(p.ios),
                                     "apps": [["bundleID": .string(bundle), "activityTypes": ["FlightAttributes"]]]]
                if p.id == forceQuitPhone.id { d["modes"] = ["forceQuit": true] }
                return .object(d)
            }),
        ]
        let configFile = directory + "/simulator.config.json"
        _ = FileManager.default.createFile(atPath: configFile, contents: Data(config.prettyPrinted().utf8))

        let simulator = try RunningProcess.start(executable, ["simulator", "--config", configFile, "--port", "0", "--state-dir", directory + "/simulator"], keepStandardError: true)
        defer { simulator.send(SIGTERM) }
        let simOut = try await simulator.output(containing: "Ready.")
        guard let simURL = simOut.line(after: "listening on "), let ca = simOut.line(after: "CA file: "),
              let simPort = URLComponents(string: simURL)?.port else { throw CLIError(message: "the simulator did not say where it listens:\n\(simOut)") }

        // A throw-away key-encryption key (the demo's database goes with its directory), and the
        // first admin key in a file of mode 0600, as an operator would run it.
        let adminKeyFile = directory + "/admin.key"
        let service = try RunningProcess.start(executable, ["serve", "--port", "0", "--database", directory + "/liveline.db",
                                                            "--apns-host", "127.0.0.1:\(simPort)", "--ca-file", ca, "--admin-key-file", adminKeyFile,
                                                            "--start-shown-within", "\(startShownWithinSeconds)"],
                                               environment: ProcessInfo.processInfo.environment.merging(["LIVELINE_KEK": SecretBox.generateKeyText(), "LIVELINE_CHECK_ANSWERS": "true"]) { $1 },
                                               keepStandardError: true)
        defer { service.send(SIGTERM) }
        let serveOut = try await service.output(containing: "Ready.")
        let adminKey = (try? String(contentsOfFile: adminKeyFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let serviceURL = serveOut.line(after: "listening on "), let adminKey, !adminKey.isEmpty else {
            throw CLIError(message: "the service did not say where it listens:\n\(serveOut)")
        }
        let inspection = SimulatorInspectionClient.Endpoint(host: "127.0.0.1", port: simPort, caFile: ca)
        let backend = ServiceHTTPClient(baseURL: serviceURL, key: adminKey)

        Console.out("""
        Liveline demo: the flight tracker through the service
        APNs simulator  \(simURL)  (process \(simulator.processIdentifier); clients trust \(ca))
        service         \(serviceURL)  (process \(service.processIdentifier); SQLite \(directory)/liveline.db)

        == 0. The backend registers the app; each phone's app registers itself and its push-to-start token
        """)
        _ = try await backend.expect("POST", "/v1/apps", ["bundleID": .string(bundle), "teamID": .string(teamID), "keyID": .string(keyID), "key": .string(keyPEM), "environment": "sandbox"])
        Console.out("backend  POST /v1/apps \(bundle) (team \(teamID), key \(keyID); the .p8 is stored, never returned)")
        let appKeyJSON = try await backend.expect("POST", "/v1/keys", ["scope": "app", "name": "flight tracker app"])
        Console.out("backend  POST /v1/keys → app key \(appKeyJSON["id"]?.stringValue ?? "?") (public: it ships in the app and can only create installations)")
        let secretJSON = try await backend.expect("PUT", "/v1/apps/\(bundle)/token-secret", [:])
        let tokenSecret = secretJSON["secret"]?.stringValue ?? ""
        Console.out("backend  PUT /v1/apps/\(bundle)/token-secret → the secret it signs user tokens with (shown once, kept by the backend)")
        var appClient = LivelineAppClient(baseURL: URL(string: serviceURL)!, appKey: appKeyJSON["key"]?.stringValue ?? "")
        // The app asks its backend (where the user signed in) for a user token naming its installation.
        appClient.userTokenProvider = { installationID, userID in
            BackendTokens.userToken(userID: userID, installationID: installationID, bundleID: bundle, secret: tokenSecret)
        }
        var apps: [String: SimulatedPhoneApp] = [:]
        let devices = try await fetchJSON("devices", inspection)
        let noActivities = try await fetchJSON("activities", inspection)
        for phone in phones {
            guard let d = devices.arrayValue?.first(where: { $0["id"]?.stringValue == phone.id }),
                  let token = d["apps"]?.arrayValue?.first?["pushToStartTokens"]?["FlightAttributes"]?.stringValue else {
                throw CLIError(message: "the simulator has no push-to-start token on \(phone.id)")
            }
            // The phone's app at launch: LivelineKit registers the device, then its push-to-start token.
            let phoneApp = try SimulatedPhoneApp(
                device: DeviceRegistration(deviceID: phone.id, bundleID: bundle, iosVersion: phone.ios, userID: phone.user),
                attributesTypes: ["FlightAttributes"], client: appClient, directory: URL(fileURLWithPath: directory + "/apps/" + phone.id))
            apps[phone.id] = phoneApp
            let launched = await phoneApp.launch(devices: devices, activities: noActivities, within: .seconds(10))
            guard launched.remaining == 0, launched.dropped.isEmpty, launched.sent.count == 2 else {
                throw CLIError(message: "\(phone.id)'s app could not register: sent \(launched.sent), dropped \(launched.dropped), \(launched.remaining) left")
            }
            let installation = await phoneApp.uploader.installationID ?? "?"
            installationNames.withLock { $0[installation] = phone.id }
            Console.out("app      \(phone.name) (iOS \(phone.ios), user \(phone.user)): LivelineKit POST /v1/installations → \(installation), PUT /v1/devices/\(installation) with \(phone.user)'s user token, push-to-start token \(prefix(token))")
        }
        let channel = try await backend.expect("POST", "/v1/channels", ["bundleID": .string(bundle)])
        let channelID = channel["channelID"]?.stringValue ?? ""
        Console.out("backend  POST /v1/channels → \(channelID) (iOS 18 phones follow the flight on this broadcast channel)\n")

        let start = Date()
        let departure = Date(timeIntervalSince1970: ((start.timeIntervalSince1970 + 2 * 3600) / 300).rounded(.down) * 300)
        let activityID = "flight-LL1234-" + dayString(departure)
        var boarding = departure.addingTimeInterval(-40 * 60)
        var state: JSONObject = ["status": "scheduled", "gate": "B12", "boardingTime": .string(iso(boarding)), "delayMinutes": 0, "isBoarding": false]
        var failures = 0

        Console.out("== 1. Start \(activityID) by push-to-start for users ana and ben")
        let startBody: JSONValue = [
            "attributesType": "FlightAttributes",
            "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air", "departure": .string(iso(departure))],
            "contentState": .object(state), "alert": ["title": "LL 1234 is tracked", "body": "Gate B12, boarding 40 min before departure"],
            "staleDate": .string(iso(departure.addingTimeInterval(3600))), "channelID": .string(channelID),
            "audience": ["userIDs": ["ana", "ben"]],
        ]
        let started = try await backend.expect("POST", "/v1/activities/\(activityID)/start", startBody)
        Console.out("backend  POST /v1/activities/\(activityID)/start → 202, \(started["queued"]?.jsonString ?? "?") push-to-start pushes queued")
        for sendID in started["sendIDs"]?.arrayValue ?? [] { failures += try await report(backend, activityID, sendID: sendID) }
        // Each phone's app sees the new activity, reads the logical id from its attributes, and registers its update token.
        let activities = try await fetchJSON("activities", inspection)
        for phone in phones {
            let looked = await apps[phone.id]!.look(devices: devices, activities: activities, within: .seconds(10))
            guard let a = activity(activities, phone: phone.id, id: activityID) else { Console.out("device   \(phone.id): no activity started"); failures += 1; continue }
            if let token = a["pushToken"]?.stringValue {
                if looked.sent.contains(where: { $0.hasPrefix("token of \(phone.id) for \(activityID)") }) {
                    Console.out("app      \(phone.id): activity started; PUT /v1/activities/\(activityID)/tokens/{its installation} update token \(prefix(token)) (LivelineKit)")
                } else {
                    Console.out("app      \(phone.id): the update token \(prefix(token)) was not registered: \(looked.dropped)"); failures += 1
                }
            } else if let ch = a["channelID"]?.stringValue {
                Console.out("app      \(phone.id): activity started, subscribed to channel \(ch) (no update token needed)")
            }
        }
        failures += try await startPaths(backend, inspection, activityID)
        try await lockScreens(inspection, activityID)
        failures += try await repeatStart(backend, inspection, activityID, startBody)

        let steps: [(String, @Sendable (inout JSONObject, inout Date) -> JSONValue)] = [
            ("2. Gate change B12 → C7", { s, _ in s["gate"] = "C7"; return ["title": "Gate change", "body": "LL 1234 now departs from gate C7"] }),
            ("3. Delay of 25 minutes", { s, b in
                s["status"] = "delayed"; s["delayMinutes"] = 25; b.addTimeInterval(25 * 60); s["boardingTime"] = .string(iso(b)); return .null }),
            ("4. Boarding", { s, _ in s["status"] = "boarding"; s["isBoarding"] = true; return ["title": "Boarding", "body": "LL 1234 is boarding at gate C7"] }),
            ("5. Landed", { s, _ in s["status"] = "landed"; s["isBoarding"] = false; return .null }),
        ]
        for (title, change) in steps {
            let alert = change(&state, &boarding)
            Console.out("\n== \(title)")
            var body: JSONObject = ["contentState": .object(state)]
            if alert != .null { body["alert"] = alert }
            let sent = try await backend.expect("POST", "/v1/activities/\(activityID)/update", .object(body))
            let queued = Int(sent["queued"]?.numberValue ?? 0)
            Console.out("backend  POST …/update → 202: \(queued) queued: one broadcast on the channel (iOS 18) and \(queued - 1) per-token push (iOS 17)")
            failures += try await report(backend, activityID, sendID: sent["sendID"])
            try await lockScreens(inspection, activityID)
        }
        Console.out("\n== 6. End: dismissed 1 hour after landing")
        let ended = try await backend.expect("POST", "/v1/activities/\(activityID)/end", [
            "contentState": .object(state), "dismissalDate": .string(iso(Date().addingTimeInterval(3600)))])
        failures += try await report(backend, activityID, sendID: ended["sendID"])
        try await lockScreens(inspection, activityID)
        // The apps see the activity ended: the update token leaves the service.
        let endedActivities = try await fetchJSON("activities", inspection)
        for phone in phones {
            let looked = await apps[phone.id]!.look(devices: devices, activities: endedActivities, within: .seconds(10))
            if looked.sent.contains(where: { $0.hasPrefix("deletion of \(phone.id)'s token for \(activityID)") }) {
                Console.out("app      \(phone.id): activity ended; DELETE /v1/activities/\(activityID)/tokens/{its installation} (LivelineKit)")
            }
            if !looked.dropped.isEmpty || looked.remaining > 0 { Console.out("app      \(phone.id): \(looked.dropped), \(looked.remaining) left"); failures += 1 }
            await apps[phone.id]!.stop()
        }

        failures += try await neverShown(backend, inspection, appClient: appClient, directory: directory, departure: departure)
        failures += try await renewalScene(directory: directory)  // DemoCommand+Renewal.swift

        let summary = try await backend.expect("GET", "/v1/activities/\(activityID)")
        let counts = summary["counts"]?.objectValue ?? [:]
        Console.out("\nservice  \(activityID): " + counts.filter { $0.value != 0 }.map { "\($0.value.jsonString) \($0.key)" }.joined(separator: ", "))
        let status = try await fetchJSON("status", inspection)
        Console.out("simulator \(status["pushes"]?["accepted"]?.jsonString ?? "?") pushes accepted, \(status["pushes"]?["rejected"]?.jsonString ?? "?") rejected, \(status["pushes"]?["dropped"]?.jsonString ?? "?") dropped on a device")
        Console.out("Try it yourself: liveline serve --help, then the API at \(serviceURL)/openapi.json")
        return failures == 0 ? 0 : 1
    }

    /// Waits until every push of the activity is final and prints the ones of this send.
    /// The phones by their installation ids, so the service's lines name the phone.
    static let installationNames = Mutex([String: String]())

    static func report(_ backend: ServiceHTTPClient, _ activityID: String, sendID: JSONValue?) async throws -> Int {
        let names = installationNames.withLock { $0 }
        let snapshot = try await backend.expect("GET", "/v1/activities/\(activityID)?wait=20")
        var failures = 0
        for d in (snapshot["deliveries"]?.arrayValue ?? []).reversed() where d["sendID"] == sendID {
            let state = d["state"]?.stringValue ?? "?"
            let device = d["deviceID"]?.stringValue ?? "?"
            let who = d["target"]?.stringValue == "channel" ? "channel \(d["token"]?.stringValue ?? "")" : "\(names[device] ?? device) \(d["target"]?.stringValue ?? "") \(d["token"]?.stringValue ?? "")"
            var line = "service  \(who): \(state)"
            if let id = d["apnsID"]?.stringValue { line += " apns-id \(id)" }
            if let r = d["reason"]?.stringValue { line += " (\(r))" }
            if let n = d["note"]?.stringValue { line += " [\(n)]" }
            Console.out(line)
            if state != "sent" { failures += 1 }
        }
        return failures
    }

    static func lockScreens(_ endpoint: SimulatorInspectionClient.Endpoint, _ activityID: String) async throws {
        let activities = try await fetchJSON("activities", endpoint)
        for phone in phones {
            guard let a = activity(activities, phone: phone.id, id: activityID) else { continue }
            var head = "device   \(phone.id) Lock Screen: \(a["state"]?.stringValue ?? "?"), \(a["updates"]?.jsonString ?? "0") updates"
            if let dropped = a["dropped"]?.numberValue, dropped > 0 { head += ", \(JSONValue.javaScriptNumber(dropped)) dropped" }
            Console.out(head)
            if phone.id == phones[0].id { await DemoPreviews.shared.capture(a) }
            guard let attributes = try? (a["attributes"] ?? .null).decode(FlightAttributes.self),
                  let state = try? (a["contentState"] ?? .null).decode(FlightAttributes.ContentState.self) else { continue }
            let template = FlightTemplate()
            let preview = UIPreview.text(template.layout(attributes: attributes, state: state), surface: .lockScreen, now: Date(), timeZone: template.timeZone)
            Console.out(preview.split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.map { "         " + $0 }.joined(separator: "\n"))
        }
    }

    /// The backend repeats the start (its own retry): the service answers that every phone holds the
    /// activity and sends nothing, and the phones still show one activity each. Returns the failures.
    static func repeatStart(_ backend: ServiceHTTPClient, _ inspection: SimulatorInspectionClient.Endpoint, _ activityID: String, _ body: JSONValue) async throws -> Int {
        let again = try await backend.call("POST", "/v1/activities/\(activityID)/start", body)
        let shown = try await fetchJSON("activities", inspection).arrayValue?.filter { $0["attributes"]?[ActivitySchema.activityIDKey]?.stringValue == activityID } ?? []
        let phones = Set(shown.compactMap { $0["deviceID"]?.stringValue })
        guard again.status == 409, again.json["error"]?["code"] == "already-started", shown.count == phones.count else {
            Console.out("backend  POST …/start again → \(again.status) \(again.json["error"]?["code"]?.jsonString ?? ""): \(shown.count) activities on \(phones.count) phones (a duplicate start was not refused)")
            return 1
        }
        Console.out("backend  POST …/start again (a retry) → 409 already-started: every phone holds it, nothing sent; still \(shown.count) activities on \(phones.count) phones")
        return 0
    }

    static func activity(_ list: JSONValue, phone: String, id: String) -> JSONValue? {
        list.arrayValue?.last { $0["deviceID"]?.stringValue == phone && $0["attributes"]?[ActivitySchema.activityIDKey]?.stringValue == id }
    }

    static func fetchJSON(_ route: String, _ endpoint: SimulatorInspectionClient.Endpoint) async throws -> JSONValue {
        do { return try await SimulatorInspectionClient.fetch(route, from: endpoint) } catch { throw CLIError(message: "simulator \(route): \(error.message)") }
    }

    static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    static func dayString(_ date: Date) -> String {
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        f.timeZone = TimeZone(secondsFromGMT: 0)
        return f.string(from: date)
    }
}

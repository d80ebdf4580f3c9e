import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineKit
import LivelineKitSimulator
import LivelineSimulator
import LivelineToolSupport

/// Two scenes of issue #25 in the demo: which path each phone was started on (iOS 18 on the
/// activity's channel with `input-push-channel`, iOS 17 with `input-push-token`), and the status of
/// a push-to-start APNs accepted that never showed (a force-quit app), with the service's reason.
extension DemoCommand {
    /// One line: each phone's start path, as the service holds it (`devices[]` of
    /// `GET /v1/activities/{id}`) and as the phone shows it (the simulator's activity). Returns the failures.
    static func startPaths(_ backend: ServiceHTTPClient, _ inspection: SimulatorInspectionClient.Endpoint, _ activityID: String) async throws -> Int {
        let overview = try await backend.expect("GET", "/v1/activities/\(activityID)")
        let channel = overview["channelID"]?.stringValue
        let shown = try await fetchJSON("activities", inspection)
        var parts: [String] = []
        var failures = 0
        let names = installationNames.withLock { $0 }
        for phone in phones {
            // The service knows a phone by its installation id.
            let status = overview["devices"]?.arrayValue?.first { names[$0["deviceID"]?.stringValue ?? ""] == phone.id }
            let onPhone = activity(shown, phone: phone.id, id: activityID)
            let version = status?["iosVersion"]?.stringValue ?? phone.ios
            let reachable = status?["reachable"]?.boolValue == true
            if let ch = onPhone?["channelID"]?.stringValue, ch == channel, reachable, (Int(version.split(separator: ".").first ?? "") ?? 0) >= 18 {
                parts.append("\(phone.id) (iOS \(version)) started on channel \(ch) with input-push-channel, reachable without an update token")
            } else if let token = onPhone?["pushToken"]?.stringValue, reachable, status?["token"]?.stringValue == prefix(token) {
                parts.append("\(phone.id) (iOS \(version)) started with input-push-token, reachable by its update token \(prefix(token))")
            } else {
                parts.append("\(phone.id) (iOS \(version)) NOT on its path: the service says \(status?.jsonString ?? "nothing"), the phone shows \(onPhone?.jsonString ?? "no activity")")
                failures += 1
            }
        }
        Console.out("service  " + parts.joined(separator: "; "))
        return failures
    }

    /// A third phone, whose user force-quit the app, is sent a push-to-start for another flight:
    /// APNs accepts it (200), the phone never shows it, and the service's status says so once
    /// `--start-shown-within` has passed with no update token and no receipt. Returns the failures.
    static func neverShown(_ backend: ServiceHTTPClient, _ inspection: SimulatorInspectionClient.Endpoint,
                           appClient: LivelineAppClient, directory: String, departure: Date) async throws -> Int {
        let phone = forceQuitPhone
        Console.out("\n== 7. A push APNs accepted that never showed: \(phone.user)'s \(phone.name) (iOS \(phone.ios)), whose app was force-quit")
        let devices = try await fetchJSON("devices", inspection)
        let app = try SimulatedPhoneApp(
            device: DeviceRegistration(deviceID: phone.id, bundleID: bundle, iosVersion: phone.ios, userID: phone.user),
            attributesTypes: ["FlightAttributes"], client: appClient, directory: URL(fileURLWithPath: directory + "/apps/" + phone.id))
        let launched = await app.launch(devices: devices, activities: try await fetchJSON("activities", inspection), within: .seconds(10))
        guard launched.remaining == 0, launched.dropped.isEmpty, launched.sent.count == 2 else {
            throw CLIError(message: "\(phone.id)'s app could not register: sent \(launched.sent), dropped \(launched.dropped), \(launched.remaining) left")
        }
        let installation = await app.uploader.installationID ?? "?"
        installationNames.withLock { $0[installation] = phone.id }
        // The user opened the app once (it registered), then swiped it away.
        Console.out("app      \(phone.name) (iOS \(phone.ios), user \(phone.user)): registered as \(installation) with its push-to-start token, then force-quit")
        await app.stop()

        let activityID = "flight-LL5678-" + dayString(departure)
        let body: JSONValue = [
            "attributesType": "FlightAttributes",
            "attributes": ["flightNumber": "LL 5678", "origin": "LIS", "destination": "OPO", "airline": "Liveline Air", "departure": .string(iso(departure))],
            "contentState": ["status": "scheduled", "gate": "A3", "boardingTime": .string(iso(departure.addingTimeInterval(-30 * 60))), "delayMinutes": 0, "isBoarding": false],
            "alert": ["title": "LL 5678 is tracked", "body": "Gate A3, boarding 30 min before departure"],
            "audience": ["userIDs": .array([.string(phone.user)])],
        ]
        let started = try await backend.expect("POST", "/v1/activities/\(activityID)/start", body)
        Console.out("backend  POST /v1/activities/\(activityID)/start → 202, \(started["queued"]?.jsonString ?? "?") queued for \(phone.user)")
        var failures = 0
        for sendID in started["sendIDs"]?.arrayValue ?? [] { failures += try await report(backend, activityID, sendID: sendID) }
        let delivery = try await backend.expect("GET", "/v1/activities/\(activityID)")["deliveries"]?.arrayValue?.first { $0["deviceID"]?.stringValue == installation }
        let shown = activity(try await fetchJSON("activities", inspection), phone: phone.id, id: activityID)
        guard delivery?["status"]?.numberValue == 200, shown == nil else {
            Console.out("device   \(phone.id): APNs answered \(delivery?["status"]?.jsonString ?? "nothing"); the phone shows \(shown?.jsonString ?? "nothing") (expected 200 and nothing shown)")
            return failures + 1
        }
        Console.out("device   \(phone.id): APNs accepted it (200), and the Lock Screen shows nothing: a force-quit app does not display a push-to-start")

        // The service cannot see the Lock Screen: it infers from no update token and no receipt
        // within --start-shown-within. Poll its status until it says so, with a deadline.
        let deadline = ContinuousClock.now + .seconds(startShownWithinSeconds + 15)
        var last: JSONValue?
        while ContinuousClock.now < deadline {
            last = try await backend.expect("GET", "/v1/activities/\(activityID)")["devices"]?.arrayValue?.first { $0["deviceID"]?.stringValue == installation }
            if last?["reason"]?["code"]?.stringValue == "start-never-shown" { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        guard let status = last, let reason = status["reason"], reason["code"]?.stringValue == "start-never-shown" else {
            Console.out("service  GET /v1/activities/\(activityID): \(phone.id) has no start-never-shown reason after \(startShownWithinSeconds + 15) s: \(last?.jsonString ?? "no status")")
            return failures + 1
        }
        Console.out("service  GET /v1/activities/\(activityID): \(phone.id) \(status["state"]?.stringValue ?? "?"), reachable \(status["reachable"]?.jsonString ?? "?"), reason start-never-shown: \(reason["message"]?.stringValue ?? "")")
        return failures
    }
}

import Foundation
import LivelineCore
import LivelineServiceDashboard
import LivelineHTTPServer
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Testing

@Suite("The service's dashboard: its JSON and its event stream, against a real service sending to a simulator")
struct ServiceDashboardTests {
    @Test("an update's delivery is sent with its apns-id, a token APNs refuses (BadDeviceToken) fails with the reason and is kept marked; tokens only as prefixes, no key")
    func activitiesJSON() async throws {
        try await ServiceDashboardFixture.with { f in
            let flight = try f.startFlight()
            let live = try #require(flight.pushToken)
            let dead = String(repeating: "ab", count: 32)
            try await f.register(device: "phone-1", token: live, activityID: "flight-1")
            try await f.register(device: "phone-2", token: dead, activityID: "flight-1")
            try await f.update("flight-1", gate: "C9")
            try await f.waitFinal("flight-1")

            let reply = try await f.page("/api/activities")
            #expect(reply.status == 200)
            #expect(reply.json["simulatorDashboard"] == "http://127.0.0.1:2198/")
            let activity = try #require(reply.json["activities"]?.arrayValue?.first)
            #expect(activity["activityID"] == "flight-1")
            #expect(activity["attributesType"] == "FlightAttributes")
            let deliveries = activity["deliveries"]?.arrayValue ?? []
            let sent = try #require(deliveries.first { $0["deviceID"] == "phone-1" })
            #expect(sent["state"] == "sent")
            #expect(sent["event"] == "update")
            #expect(sent["apnsID"]?.stringValue?.isEmpty == false)
            #expect(sent["token"]?.stringValue == String(live.prefix(8)) + "…")
            let refused = try #require(deliveries.first { $0["deviceID"] == "phone-2" })
            #expect(refused["state"] == "failed")
            #expect(refused["reason"]?.stringValue?.hasPrefix("BadDeviceToken: token-environment-refused") == true, "\(refused)")
            // BadDeviceToken does not delete the token: it stays, marked refused, with the reason.
            #expect(activity["tokens"]?.arrayValue?.map { $0["deviceID"] } == ["phone-1", "phone-2"])
            #expect(activity["tokens"]?.arrayValue?.last?["state"] == "refused")
            #expect(activity["counts"]?["sent"] == 1)
            #expect(activity["counts"]?["failed"] == 1)
            #expect(activity["final"] == true)
            for secret in [live, dead, f.admin, "PRIVATE KEY"] { #expect(!reply.text.contains(secret), "the page's JSON holds a secret") }

            let one = try await f.page("/api/activities/flight-1")
            #expect(one.status == 200)
            #expect(one.json["activityID"] == "flight-1")
            #expect((one.json["revision"]?.numberValue ?? 0) > (activity["revision"]?.numberValue ?? .infinity))
        }
    }

    @Test("a page started later lists the activities already in the database, newest first, before anything changes")
    func existingActivitiesListed() async throws {
        try await ServiceDashboardFixture.with { f in
            let flight = try f.startFlight()
            try await f.register(device: "phone-1", token: try #require(flight.pushToken), activityID: "flight-1")
            try await f.register(device: "phone-1", token: String(repeating: "cd", count: 32), activityID: "flight-2")
            let later = try ServiceDashboard.start(service: f.server.service)
            defer { Task { await later.stop() } }
            let output = try await ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "60", "-H", "\(ServiceDashboard.tokenHeader): \(later.token)", later.url + "api/activities"])
            let listed = (try JSONValue.parse(output.stdoutText))["activities"]?.arrayValue?.compactMap { $0["activityID"]?.stringValue }
            #expect(Set(listed ?? []) == ["flight-1", "flight-2"], "\(output.stdoutText)")
            await later.stop()
        }
    }

    @Test("read-only and loopback-only: unknown activity 404, POST 405, a foreign Host 421, a non-loopback address refused")
    func refusals() async throws {
        try await ServiceDashboardFixture.with { f in
            let unknown = try await f.page("/api/activities/nope")
            #expect(unknown.status == 404)
            #expect(unknown.json["error"]?["message"]?.stringValue?.contains("nope") == true)
            let post = try await f.page("/api/activities", ["-X", "POST", "-H", "content-type: application/json", "--data-binary", "{}"])
            #expect(post.status == 405)
            let rebound = try await f.page("/api/activities", ["-H", "host: evil.example:80"])
            #expect(rebound.status == 421)
            #expect(throws: HTTPServerError.self) { try ServiceDashboard.start(service: f.server.service, host: "0.0.0.0") }
            let page = try await f.page("/")
            #expect(page.text.contains("<title>Liveline service</title>"))
        }
    }

    @Test("the event stream sends the activity when its token is registered, then again with the update's delivery sent")
    func eventStream() async throws {
        try await ServiceDashboardFixture.with { f in
            let curl = try RunningProcess.start("/usr/bin/curl", ["-sN", "-H", "accept: text/event-stream", "-H", "\(ServiceDashboard.tokenHeader): \(f.dashboard.token)", f.dashboard.url + "api/events"])
            defer { curl.send(SIGTERM) }
            _ = try await curl.output(containing: "retry: 1000", within: .seconds(60))
            let flight = try f.startFlight()
            let token = try #require(flight.pushToken)
            try await f.register(device: "phone-1", token: token, activityID: "flight-2")
            let registered = try await curl.output(containing: #""kind":"activity"}"#, within: .seconds(60))
            #expect(registered.contains("event: activity"))
            #expect(registered.contains(#""activityID":"flight-2""#))
            #expect(registered.contains(#""deviceID":"phone-1""#))
            try await f.update("flight-2", gate: "D4")
            // The event with the verdict: no polling of the page, the stream brings it.
            let sent = try await curl.output(containing: #""state":"sent""#, within: .seconds(60))
            #expect(sent.contains(#""event":"update""#))
            #expect(!sent.contains(token), "the event stream holds a full token")
            #expect(f.dashboard.listeners == 1)
        }
    }

    @Test("a transient refusal shows as retrying with APNs' reason and the next attempt, then the retry is sent")
    func retrying() async throws {
        // The retry waits 2.4 s at least: time for the page's refresh that shows the retrying row on a loaded machine.
        try await ServiceDashboardFixture.with(retryBase: .seconds(3)) { f in
            let curl = try RunningProcess.start("/usr/bin/curl", ["-sN", "-H", "accept: text/event-stream", "-H", "\(ServiceDashboard.tokenHeader): \(f.dashboard.token)", f.dashboard.url + "api/events"])
            defer { curl.send(SIGTERM) }
            _ = try await curl.output(containing: "retry: 1000", within: .seconds(60))
            let token = try #require(try f.startFlight().pushToken)
            f.simulator.inject(FaultRule(.respond(.tooManyRequests), scope: .token(token), limit: 1))
            try await f.register(device: "phone-1", token: token, activityID: "flight-3")
            try await f.update("flight-3", gate: "E1")
            let text = try await curl.output(containing: #""state":"retrying""#, within: .seconds(60))
            let line = try #require(text.components(separatedBy: "\n").first { $0.hasPrefix("data: ") && $0.contains(#""state":"retrying""#) })
            let delivery = try #require(try JSONValue.parse(String(line.dropFirst(6)))["activity"]?["deliveries"]?.arrayValue?.first)
            #expect(delivery["reason"] == "TooManyRequests")
            #expect(delivery["status"] == 429)
            #expect(delivery["nextAttemptAt"]?.stringValue?.isEmpty == false)
            try await f.waitFinal("flight-3")
            let after = try await f.page("/api/activities/flight-3")
            #expect(after.json["deliveries"]?.arrayValue?.first?["state"] == "sent")
            #expect(after.json["deliveries"]?.arrayValue?.first?["attempts"] == 2)
        }
    }
}

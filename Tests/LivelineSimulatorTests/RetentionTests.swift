import Foundation
import LivelineCore
import LivelineHTTP2
import LivelineTesting
@testable import LivelineSimulator
import Testing

/// What the simulator keeps stays bounded however long it runs: events, dismissed activities (and
/// their tokens), the push log, the deadline index, and the server's per-connection entries.
@Suite("Simulator retention: bounded events, activities, log and connections")
struct RetentionTests {
    /// Retained sizes read under the simulator's lock.
    struct Sizes: Equatable {
        var events = 0
        var log = 0
        var activities = 0
        var tokens = 0
        var deadlineEntries = 0
    }

    static func sizes(_ sim: Simulator) -> Sizes {
        sim.state.withLock { s in
            Sizes(events: s.events.count, log: s.log.count, activities: s.activities.count, tokens: s.tokens.count, deadlineEntries: s.activities.deadlineEntries)
        }
    }

    static func lastRecord(_ sim: Simulator) -> PushRecord? {
        sim.state.withLock { s in s.log.isEmpty ? nil : s.log[(s.logStart + s.log.count - 1) % s.log.count] }
    }

    @Test("20,000 pushes starting, updating and ending activities (by token and by channel) keep events, activities, tokens and log at their bounds")
    func boundedUnderLoad() throws {
        let f = Fixture { config in
            config.logCapacity = 500
            config.eventCapacity = 800
            config.dismissedActivityCapacity = 50
            config.dismissedActivityRetention = 600
            // A start every few virtual seconds: far beyond the push-to-start budget this test is not about.
            config.deviceRules.pushToStartBudget = .max
        }
        let channel = try f.sim.createChannel(bundleID: Fixture.bundle)
        let pushToStart = f.app.pushToStartTokens["FlightAttributes"]!
        let baseTokens = Self.sizes(f.sim).tokens
        let acceptedBefore = f.sim.counts.accepted
        var connection = ConnectionState.trusted
        func send(_ path: String, _ body: JSONValue, channel: String? = nil) -> SimulatorResponse {
            var headers: [SimulatorRequest.Header] = [.init("apns-push-type", "liveactivity")]
            if let channel { headers.append(.init("apns-channel-id", channel)) } else { headers.append(.init("apns-topic", Fixture.laTopic)) }
            return f.sim.handle(SimulatorRequest(path: path, headers: headers, body: body.serialized()), connection: &connection)
        }
        let total = 20_001  // 25× the event bound and 40× the log bound: enough to show they hold (the 1M-push RSS run is `liveline bench simulator --rss`)
        var sent = 0
        var largest = Sizes()
        var cycle = 0
        while sent < total {
            let byChannel = cycle % 2 == 1
            cycle += 1
            f.clock.advance(by: 1)
            let start = send("/3/device/" + pushToStart, byChannel ? f.startBody(input: .string(channel), inputKey: "input-push-channel") : f.startBody(input: 1))
            #expect(start.status == 200)
            let started = try #require(Self.lastRecord(f.sim)?.deliveries.first)
            #expect(started.dropReason == nil, "\(started.detail)")
            f.clock.advance(by: 1)
            if byChannel {
                _ = send("/4/broadcasts/apps/" + Fixture.bundle, f.updateBody(state: Fixture.state(gate: "C\(cycle % 40)")), channel: channel)
                f.clock.advance(by: 1)
                _ = send("/4/broadcasts/apps/" + Fixture.bundle, f.updateBody(event: "end", dismissal: f.now.timeIntervalSince1970), channel: channel)
            } else {
                let token = try #require(f.sim.state.withLock { $0.activities[started.activityID ?? ""]?.snapshot.pushToken })
                _ = send("/3/device/" + token, f.updateBody(state: Fixture.state(gate: "C\(cycle % 40)")))
                f.clock.advance(by: 1)
                _ = send("/3/device/" + token, f.updateBody(event: "end", dismissal: f.now.timeIntervalSince1970))
            }
            sent += 3
            if cycle % 500 == 0 {
                let now = Self.sizes(f.sim)
                largest = Sizes(events: max(largest.events, now.events), log: max(largest.log, now.log), activities: max(largest.activities, now.activities),
                                tokens: max(largest.tokens, now.tokens), deadlineEntries: max(largest.deadlineEntries, now.deadlineEntries))
            }
        }
        let counts = f.sim.counts
        #expect(counts.accepted - acceptedBefore == sent && counts.rejected == 0 && counts.dropped == 0)
        let final = Self.sizes(f.sim)
        #expect(final.events == 800 && largest.events == 800)
        #expect(final.log == 500 && largest.log == 500)
        // 50 dismissed kept; the one just ended is dismissed too (dismissal-date now).
        #expect(final.activities == 50 && largest.activities <= 51)
        // Update tokens go with their activities (only token-started ones have one).
        #expect(largest.tokens <= baseTokens + 51)
        #expect(largest.deadlineEntries <= 2 * 51 + 64)
        #expect(f.sim.events().count == 800)
        #expect(f.sim.activities().allSatisfy { $0.state == .dismissed })
        #expect(f.sim.statusJSON()["activities"] == 50)
    }

    @Test("a dismissed activity is kept for dismissedActivityRetention, then dropped with its update token")
    func retentionByAge() throws {
        let f = Fixture { $0.dismissedActivityRetention = 3600 }
        let a = f.startByPush()
        let token = try #require(a.pushToken)
        f.clock.advance(by: 1)
        #expect(f.send(f.laRequest(token: token, body: f.updateBody(event: "end", dismissal: f.now.timeIntervalSince1970))).status == 200)
        #expect(f.sim.activity(a.id)?.state == .dismissed)
        #expect(f.send(f.laRequest(token: token, body: f.updateBody())).reason == "ExpiredToken")
        f.clock.advance(by: 3599)
        #expect(f.sim.activity(a.id)?.state == .dismissed)
        f.clock.advance(by: 1)
        #expect(f.sim.activity(a.id) == nil)
        #expect(f.sim.activities().isEmpty)
        #expect(f.sim.state.withLock { $0.tokens[token] } == nil)
        #expect(f.send(f.laRequest(token: token, body: f.updateBody())).reason == "BadDeviceToken")
        // Older events stay until eventCapacity pushes them out.
        #expect(f.sim.events().contains { $0.kind == .activityState(activityID: a.id, state: .dismissed) })
    }

    @Test("dismissedActivityCapacity keeps the latest dismissed activities; running ones are never dropped")
    func retentionByCount() throws {
        let f = Fixture(rules: { var r = DeviceRules(); r.maxActivitiesPerApp = 10; return r }()) { $0.dismissedActivityCapacity = 2 }
        var started: [ActivitySnapshot] = []
        for _ in 0..<5 {
            f.clock.advance(by: 1)
            started.append(f.startByPush())
        }
        for a in started.prefix(4) { try f.sim.dismissByUser(a.id) }
        #expect(f.sim.activities().map(\.id) == [started[2].id, started[3].id, started[4].id])
        #expect(f.sim.activity(started[4].id)?.state == .active)
    }

    @Test("eventCapacity keeps the newest events, oldest first; 0 keeps none")
    func eventRing() throws {
        let f = Fixture { $0.eventCapacity = 3 }
        let a = f.startByPush()
        try f.sim.dismissByUser(a.id)
        let kinds = f.sim.events().map(\.kind)
        #expect(kinds == [.activityState(activityID: a.id, state: .active), .activityPushToken(activityID: a.id, token: a.pushToken!, rotated: false),
                          .activityState(activityID: a.id, state: .dismissed)])
        let none = Fixture { $0.eventCapacity = 0 }
        _ = none.startByPush()
        #expect(none.sim.events().isEmpty)
    }

    @Test("stale, 8-hour end and removal still fire in time order with many activities indexed")
    func deadlinesInTimeOrder() throws {
        let f = Fixture(rules: { var r = DeviceRules(); r.maxActivitiesPerApp = 100; return r }())
        let t0 = f.now
        var ids: [String] = []
        for i in 0..<20 {
            // Stale dates in reverse start order: the index, not the start order, decides.
            let a = try f.sim.startActivity(on: f.device, bundleID: Fixture.bundle, attributesType: "FlightAttributes",
                                            attributes: Fixture.flightAttributes, contentState: Fixture.gateState,
                                            staleDate: t0.addingTimeInterval(Double(1000 - i * 10)))
            ids.append(a.id)
        }
        f.clock.advance(by: 905)
        let stale = f.sim.events().compactMap { e -> String? in
            if case .activityState(let id, .stale) = e.kind { return id } else { return nil }
        }
        #expect(stale == Array(ids[10...].reversed()))
        f.clock.advance(by: 8 * 3600)
        #expect(f.sim.activities().allSatisfy { $0.state == .ended })
        f.clock.advance(by: 4 * 3600)
        #expect(f.sim.activities().allSatisfy { $0.state == .dismissed })
    }

    @Test("the config file sets the retention fields; bad values name the key")
    func configKeys() throws {
        let setup = try SimulatorSetup(json: ["eventCapacity": 5, "dismissedActivityCapacity": 7, "dismissedActivityRetention": 90], baseDirectory: "/tmp")
        #expect(setup.configuration.eventCapacity == 5)
        #expect(setup.configuration.dismissedActivityCapacity == 7)
        #expect(setup.configuration.dismissedActivityRetention == 90)
        let defaults = SimulatorConfiguration()
        #expect(defaults.eventCapacity == 10_000 && defaults.dismissedActivityCapacity == 1000 && defaults.dismissedActivityRetention == 86_400)
        #expect(throws: SimulatorError(.invalidConfiguration, "config: eventCapacity: must be a non-negative integer, got -1")) {
            try SimulatorSetup(json: ["eventCapacity": -1], baseDirectory: "/tmp")
        }
        #expect(throws: SimulatorError(.invalidConfiguration, "config: dismissedActivityRetention: must be a non-negative number of seconds, got \"1h\"")) {
            try SimulatorSetup(json: ["dismissedActivityRetention": "1h"], baseDirectory: "/tmp")
        }
    }

    @Test("the server forgets a connection's state when it closes")
    func connectionsForgotten() async throws {
        let served = try await ServedSimulator.start()
        let jwt = try served.token()
        for _ in 0..<20 {
            let connection = try await served.connect()
            #expect(try await connection.send(served.alert(token: jwt)).status == 200)
            await connection.close()
        }
        try await until("the server to forget the 20 closed connections") { served.server.trackedConnections == 0 }
        #expect(served.simulator.counts.accepted == 20)
        await served.stop()
    }
}

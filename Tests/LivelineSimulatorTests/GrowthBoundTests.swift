import Foundation
import LivelineCore
@testable import LivelineSimulator
import Testing

/// State the simulator keeps per token, per provider token and per rate-limited key stays bounded
/// however many tokens are rotated, JWTs presented or channels pushed to (issue #14).
@Suite("Simulator growth bounds: retired tokens, the JWT cache, rate-limit windows")
struct GrowthBoundTests {
    static func tokenCount(_ f: Fixture) -> Int { f.sim.state.withLock { $0.tokens.count } }

    @Test("rotating an update token 10,100 times keeps at most retiredTokenCapacity (default 10,000) old tokens")
    func rotatedTokensAreBoundedByDefault() throws {
        let f = Fixture()
        let activity = f.startByPush()
        let before = Self.tokenCount(f)
        #expect(SimulatorConfiguration().retiredTokenCapacity == 10_000)
        for _ in 0..<10_100 { try f.sim.rotatePushToken(activity.id) }
        // Today's main kept every rotated token: before + 10,100.
        #expect(Self.tokenCount(f) == before + 10_000)
    }

    @Test("the newest retired tokens answer 410 ExpiredToken, older ones BadDeviceToken, the current one 200")
    func retiredTokensAnswerUntilPushedOut() throws {
        let f = Fixture { $0.retiredTokenCapacity = 3 }
        let activity = f.startByPush()
        var tokens = [try #require(activity.pushToken)]
        for _ in 0..<5 {
            f.clock.advance(by: 1)
            tokens.append(try f.sim.rotatePushToken(activity.id))
        }
        f.clock.advance(by: 1)
        let reasons = tokens.map { f.send(f.laRequest(token: $0, body: f.updateBody())).reason }
        #expect(reasons == ["BadDeviceToken", "BadDeviceToken", "ExpiredToken", "ExpiredToken", "ExpiredToken", nil])
        // Push-to-start rotations and uninstalls share the bound.
        let pushToStart = try #require(f.app.pushToStartTokens["FlightAttributes"])
        _ = try f.sim.rotatePushToStartToken(bundleID: Fixture.bundle, attributesType: "FlightAttributes", on: f.device)
        #expect(f.send(f.laRequest(token: pushToStart, body: f.startBody(input: 1))).reason == "ExpiredToken")
        try f.sim.uninstall(Fixture.bundle, from: f.device)
        #expect(f.sim.state.withLock { $0.retiredTokens.count } == 3)
        #expect(f.send(f.laRequest(token: pushToStart, body: f.startBody(input: 1))).reason == "BadDeviceToken")
        #expect(f.send(f.alertRequest()).reason == "Unregistered")
    }

    @Test("1,500 distinct provider tokens keep at most authorizationCacheCapacity (default 1,000) verified, oldest dropped")
    func jwtCacheIsBounded() throws {
        let f = Fixture()
        #expect(SimulatorConfiguration().authorizationCacheCapacity == 1000)
        let start = f.now
        var first: String?
        for i in 0..<1500 {
            let jwt = f.jwt(issuedAt: start.addingTimeInterval(-Double(i)))
            if first == nil { first = jwt }
            let response = f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + jwt) })
            #expect(response.status == 200, "\(response.reason ?? "")")
        }
        // Today's main kept up to 10,000 before clearing all of them.
        let cached = f.sim.state.withLock { s in (s.jwtCache.count, s.jwtCache[first!] != nil) }
        #expect(cached.0 == 1000)
        #expect(!cached.1, "the oldest token is the one dropped")
        // A dropped token is verified again when it returns.
        #expect(f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + first!) }).status == 200)
        #expect(f.sim.state.withLock { $0.jwtCache[first!] != nil })
    }

    @Test("a deleted channel's rate-limit window goes with it")
    func deletedChannelsDropTheirWindows() throws {
        let f = Fixture { $0.rateLimit = RateLimit(count: 5, seconds: 60) }
        for _ in 0..<200 {
            let id = f.newChannel()
            #expect(f.send(f.broadcastRequest(channelID: id)).status == 200)
            #expect(f.send(f.channelRequest(method: "DELETE", channelID: id, body: nil)).status == 204)
        }
        // Today's main kept one window per channel ever pushed to: 200.
        #expect(f.sim.state.withLock { $0.rateWindows.count } == 0)
    }

    @Test("rateWindowCapacity bounds the windows: idle ones go first, then the least recently used; a busy key stays limited")
    func rateWindowsAreBounded() throws {
        let f = Fixture {
            $0.rateLimit = RateLimit(count: 1, seconds: 60)
            $0.rateWindowCapacity = 8
        }
        let channels = (0..<40).map { _ in f.newChannel() }
        var largest = 0
        for (i, id) in channels.enumerated() {
            f.clock.advance(by: 1)
            #expect(f.send(f.broadcastRequest(channelID: id)).status == 200, "channel \(i)")
            largest = max(largest, f.sim.state.withLock { $0.rateWindows.count })
        }
        #expect(largest <= 8)
        // The channel pushed to last is still inside its window.
        #expect(f.send(f.broadcastRequest(channelID: channels[39])).reason == "TooManyRequests")
        // After the window's length every kept window is idle: new keys sweep those away first, so
        // eight keys pushed to now all keep their windows and stay limited.
        f.clock.advance(by: 61)
        for id in channels[0..<8] { #expect(f.send(f.broadcastRequest(channelID: id)).status == 200) }
        #expect(f.sim.state.withLock { $0.rateWindows.count } == 8)
        for id in channels[0..<8] { #expect(f.send(f.broadcastRequest(channelID: id)).reason == "TooManyRequests") }
    }

    @Test("the new bounds are read from the JSON config, and a capacity that is not a count is refused by name")
    func configurationKeys() throws {
        let setup = try SimulatorSetup(json: ["retiredTokenCapacity": 5, "authorizationCacheCapacity": 0, "rateWindowCapacity": 7], baseDirectory: "/tmp")
        #expect(setup.configuration.retiredTokenCapacity == 5)
        #expect(setup.configuration.authorizationCacheCapacity == 0)
        #expect(setup.configuration.rateWindowCapacity == 7)
        #expect { _ = try SimulatorSetup(json: ["rateWindowCapacity": 0], baseDirectory: "/tmp") } throws: { error in
            "\(error)".contains("rateWindowCapacity: must be a positive integer, got 0")
        }
        #expect { _ = try SimulatorSetup(json: ["retiredTokenCapacity": -1], baseDirectory: "/tmp") } throws: { error in
            "\(error)".contains("retiredTokenCapacity: must be a non-negative integer, got -1")
        }
    }
}

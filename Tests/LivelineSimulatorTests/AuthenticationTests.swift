import Foundation
import LivelineCore
import LivelineCrypto
import LivelineSimulator
import Testing

@Suite("Provider tokens and connection rules (§5, §6)")
struct AuthenticationTests {
    /// Re-encodes a token's raw signature as DER, as `openssl dgst -sign` would write it.
    static func derVersion(of token: String) -> String {
        let parts = token.split(separator: ".")
        let raw = Base64URL.decode(parts[2])!
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(ECDSASignature.der(fromRaw: raw)!)
    }

    @Test("raw and DER signatures are both accepted", arguments: [false, true])
    func signatureEncodings(_ der: Bool) {
        let f = Fixture()
        let token = der ? Self.derVersion(of: f.jwt()) : f.jwt()
        #expect(token.split(separator: ".")[2].hasPrefix("ME") == der)
        let r = f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + token) })
        #expect(r.status == 200)
    }

    @Test("a tampered claim fails verification even with a valid signature shape")
    func tampered() {
        let f = Fixture()
        let parts = f.jwt().split(separator: ".")
        let claims = Base64URL.encode(Array(#"{"iss":"TEAM000001","iat":1767225601}"#.utf8))
        let token = parts[0] + "." + claims + "." + parts[2]
        #expect(f.send(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + token) }).reason == "InvalidProviderToken")
    }

    @Test("a token is good for an hour on a connection; after 20 minutes a new one may replace it")
    func renewal() {
        let f = Fixture()
        var c = f.sim.newConnection()
        let first = f.jwt()
        #expect(f.sim.handle(f.alertRequest(), connection: &c).status == 200)
        f.clock.advance(by: 19 * 60)
        #expect(f.sim.handle(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + first) }, connection: &c).status == 200)
        #expect(f.sim.handle(f.alertRequest(), connection: &c).reason == "TooManyProviderTokenUpdates")
        f.clock.advance(by: 60)
        #expect(f.sim.handle(f.alertRequest(), connection: &c).status == 200)
        f.clock.advance(by: 41 * 60 + 1)
        let second = c
        _ = second
        #expect(f.sim.handle(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + first) }, connection: &c).reason == "ExpiredProviderToken")
    }

    @Test("a connection is bound to its first team: another team's valid token is refused")
    func teamBinding() {
        let f = Fixture()
        var c = f.sim.newConnection()
        #expect(f.sim.handle(f.alertRequest(), connection: &c).status == 200)
        #expect(c.boundTeamID == Fixture.team && c.boundKeyID == Fixture.kid && c.boundEnvironment == .sandbox)
        f.clock.advance(by: 21 * 60)
        let other = f.jwt(kid: "TEAM2KEY01", team: "TEAM000002", key: TestKeys.otherTeam)
        #expect(f.sim.handle(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + other) }, connection: &c).reason == "InvalidProviderToken")
        var fresh = f.sim.newConnection()
        let r = f.sim.handle(f.alertRequest { $0.headers[0] = .init("authorization", "bearer " + other) }, connection: &fresh)
        #expect(r.reason == "TopicDisallowed")
    }

    @Test("token connections start at one stream, open up after the first valid push, and drop to one after a rejection")
    func streamLimit() {
        let f = Fixture()
        var c = f.sim.newConnection()
        #expect(c.maxConcurrentStreams == 1)
        let ok = f.sim.handle(f.alertRequest(), connection: &c)
        #expect(ok.actions == [.setMaxConcurrentStreams(1000)])
        #expect(c.maxConcurrentStreams == 1000)
        let bad = f.sim.handle(f.alertRequest { $0.body = [] }, connection: &c)
        #expect(bad.actions == [.setMaxConcurrentStreams(1)])
        let again = f.sim.handle(f.alertRequest(), connection: &c)
        #expect(again.actions == [.setMaxConcurrentStreams(1000)])
        #expect(f.sim.handle(f.alertRequest(), connection: &c).actions.isEmpty)
        var cert = f.sim.newConnection(authentication: .certificate(bundleID: Fixture.bundle, environment: .sandbox, valid: true))
        #expect(cert.maxConcurrentStreams == 1000)
        #expect(f.sim.handle(f.alertRequest(), connection: &cert).status == 200)
    }
}

@Suite("Fault injection")
struct FaultTests {
    /// The statuses of 200 pushes under a 30 % 503 fault with `seed`.
    static func run(seed: UInt64) -> [Int] {
        let f = Fixture { $0.seed = seed }
        f.sim.inject(FaultRule(.respond(.serviceUnavailable), probability: 0.3))
        var c = f.sim.newConnection()
        return (0..<200).map { _ in f.sim.handle(f.alertRequest(), connection: &c).status }
    }

    @Test("seeded faults repeat exactly for the same seed and differ for another")
    func reproducible() {
        let a = Self.run(seed: 7)
        #expect(a == Self.run(seed: 7))
        #expect(a != Self.run(seed: 8))
        let failures = a.filter { $0 == 503 }.count
        #expect((30...90).contains(failures))
    }

    @Test("per-token faults hit only that token; skip and limit bound them")
    func perToken() throws {
        let f = Fixture()
        let other = try f.sim.install("com.example.other", on: f.device)
        f.sim.inject(FaultRule(.respond(.tooManyRequests), scope: .token(f.app.deviceToken), skipFirst: 1, limit: 2))
        var c = f.sim.newConnection()
        let mine = (0..<5).map { _ in f.sim.handle(f.alertRequest(), connection: &c).status }
        #expect(mine == [200, 429, 429, 200, 200])
        let theirs = f.sim.handle(f.alertRequest { $0.path = "/3/device/" + other.deviceToken; $0.headers[2] = .init("apns-topic", "com.example.other") }, connection: &c)
        #expect(theirs.status == 200)
        #expect(f.sim.faultCounts == [2])
    }

    @Test("periodic faults fire on every n-th matching request after the skipped ones")
    func periodic() {
        let f = Fixture()
        f.sim.inject(FaultRule(.respond(.serviceUnavailable), skipFirst: 2, every: 3))
        var c = f.sim.newConnection()
        let statuses = (0..<12).map { _ in f.sim.handle(f.alertRequest(), connection: &c).status }
        #expect(statuses == [200, 200, 200, 200, 503, 200, 200, 503, 200, 200, 503, 200])
        #expect(f.sim.faultCounts == [3])
    }

    @Test("connection faults: GOAWAY with a JSON reason, dropped connection, reset stream, latency, lowered stream limit", arguments: [
        (FaultRule.Action.goAway(.shutdown), ConnectionAction.goAway(debugData: Array(#"{"reason":"Shutdown"}"#.utf8)), 503),
        (.dropConnection, .drop, 500),
        (.resetStream, .resetStream(errorCode: 7), 500),
        (.lowerStreamLimit(3), .setMaxConcurrentStreams(3), 200),
    ])
    func connectionFaults(_ action: FaultRule.Action, _ expected: ConnectionAction, _ status: Int) {
        let f = Fixture()
        f.sim.inject(FaultRule(action))
        var c = f.sim.newConnection()
        let r = f.sim.handle(f.alertRequest(), connection: &c)
        #expect(r.status == status)
        #expect(r.actions.contains(expected))
    }

    @Test("latency is added and the push still goes through")
    func latency() {
        let f = Fixture()
        f.sim.inject(FaultRule(.latency(0.25)))
        f.sim.inject(FaultRule(.latency(0.5)))
        let r = f.send(f.alertRequest())
        #expect(r.status == 200)
        #expect(r.delay == 0.75)
        f.sim.clearFaults()
        #expect(f.send(f.alertRequest()).delay == 0)
    }
}

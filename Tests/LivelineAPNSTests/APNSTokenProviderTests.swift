import Foundation
import LivelineAPNS
import LivelineCrypto
import Synchronization
import Testing

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    func read() -> Date { now.withLock { $0 } }
    func advance(minutes: Double) { now.withLock { $0 += minutes * 60 } }
}

@Suite struct APNSTokenProviderTests {
    let key: P256PrivateKey
    let clock = ManualClock()
    let provider: APNSTokenProvider

    init() throws {
        key = try P256PrivateKey.generate()
        let clock = self.clock
        provider = APNSTokenProvider(key: key, keyID: "KEY1234567", teamID: "TEAM123456", clock: { clock.read() })
    }

    @Test func oneTokenIsSharedUntilFiftyMinutes() throws {
        let first = try provider.current()
        #expect(first.authorization.hasPrefix("bearer "))
        let jwt = try JWT(parsing: first.jwt)
        try jwt.verify(with: key.publicKey)
        #expect(jwt.keyID == "KEY1234567" && jwt.teamID == "TEAM123456")
        #expect(jwt.issuedAt == clock.read())
        clock.advance(minutes: 49.9)
        #expect(try provider.current() == first)
        clock.advance(minutes: 0.1)
        let second = try provider.current()
        #expect(second != first)
        #expect(second.generation == 2)
        #expect(try JWT(parsing: second.jwt).issuedAt == clock.read())
    }

    @Test func expiredTokenRenewsOnlyAfterTwentyMinutes() throws {
        let first = try provider.current()
        clock.advance(minutes: 19)
        #expect(try provider.renew(after: first) == nil)
        clock.advance(minutes: 1)
        let renewed = try #require(try provider.renew(after: first))
        #expect(renewed.generation == 2)
        #expect(try provider.current() == renewed)
        // A second connection reporting the same old token gets the renewed one, not a third.
        #expect(try provider.renew(after: first) == renewed)
    }

    @Test func descriptionHidesTheToken() throws {
        let token = try provider.current()
        #expect(!"\(token)".contains(token.jwt))
        #expect(!"\(token)".contains("bearer"))
    }
}

@Suite struct BackoffTests {
    @Test func growsExponentiallyToTheCapWithBoundedJitter() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
        #expect(backoff.delay(attempt: 0, random: 0) == .seconds(1))
        #expect(backoff.delay(attempt: 3, random: 0) == .seconds(8))
        #expect(backoff.delay(attempt: 10, random: 0) == .seconds(60))
        #expect(backoff.delay(attempt: 3, random: 1) == .seconds(4))
        for attempt in 0..<20 {
            let d = backoff.delay(attempt: attempt)
            #expect(d >= .seconds(0.5) && d <= .seconds(60))
        }
    }
}

@Suite struct EnvironmentTests {
    @Test func appleHostsListenOn443And2197Only() throws {
        #expect(try APNSConfiguration.Environment.production.onPort(2197).port == 2197)
        #expect(APNSConfiguration.Environment.sandbox.managementPort == 2195)
        #expect(APNSConfiguration.Environment.production.managementPort == 2196)
        let error = #expect(throws: APNSClientError.self) { try APNSConfiguration.Environment.sandbox.onPort(8443) }
        #expect(error?.message.contains("8443") == true)
        let custom = APNSConfiguration.Environment.custom(host: "127.0.0.1", port: 8443, caFile: "/ca.pem")
        #expect(custom.broadcastHost == "127.0.0.1" && custom.managementPort == 8443)
    }
}

import Foundation
import LivelineCrypto
import Synchronization

/// The provider tokens of one signing key: one token shared by every connection, renewed after
/// 50 minutes and never more often than every 20 minutes (APNs answers faster renewals with
/// 429 `TooManyProviderTokenUpdates`).
///
/// Time comes from the injected `clock`, so tests can move it.
public final class APNSTokenProvider: Sendable {
    /// A token ready for the `authorization` header.
    ///
    /// - Important: a credential for up to an hour; `description` never shows it.
    public struct Token: Sendable, Hashable, CustomStringConvertible {
        /// `bearer <jwt>`: the `authorization` header value.
        public let authorization: String
        /// The `iat` claim.
        public let issuedAt: Date
        /// Counts the tokens this provider made, starting at 1.
        public let generation: Int

        /// The compact JWT alone (what `liveline jwt` prints).
        public var jwt: String { String(authorization.dropFirst("bearer ".count)) }
        public var description: String { "provider token #\(generation) issued \(issuedAt)" }
    }

    /// The key's ID, the token's `kid`.
    public let keyID: String
    /// The team ID, the token's `iss`.
    public let teamID: String
    /// Age after which `current()` makes a new token.
    public let renewAfter: Duration
    /// The shortest time between two tokens, also when APNs says a token expired.
    public let minimumInterval: Duration
    private let key: P256PrivateKey
    private let clock: @Sendable () -> Date
    private let state = Mutex<Token?>(nil)

    /// Makes a provider for `key`.
    ///
    /// - Parameters:
    ///   - renewAfter: default 50 minutes (APNs refuses tokens older than 60).
    ///   - minimumInterval: default 20 minutes.
    ///   - clock: the time source; the system clock unless a test injects one.
    public init(
        key: P256PrivateKey, keyID: String, teamID: String, renewAfter: Duration = .seconds(50 * 60),
        minimumInterval: Duration = .seconds(20 * 60), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
        self.renewAfter = renewAfter
        self.minimumInterval = minimumInterval
        self.clock = clock
    }

    /// The token to send now: the shared one, or a new one when it is `renewAfter` old.
    ///
    /// - Throws: `APNSClientError(.tokenFailed)` when signing fails.
    public func current() throws(APNSClientError) -> Token {
        let now = clock()
        let result: Result<Token, APNSClientError> = state.withLock { token in
            if let token, now.timeIntervalSince(token.issuedAt) < renewAfter.seconds { return .success(token) }
            return make(now: now, replacing: &token)
        }
        return try result.get()
    }

    /// After APNs answered `ExpiredProviderToken` to `rejected`: the token to retry with, or `nil`
    /// when no retry can help (the current token is younger than `minimumInterval`, so the clocks
    /// disagree and a new token would only trigger `TooManyProviderTokenUpdates`).
    ///
    /// When another connection already renewed, returns that newer token without making one.
    public func renew(after rejected: Token) throws(APNSClientError) -> Token? {
        let now = clock()
        let result: Result<Token?, APNSClientError> = state.withLock { token in
            if let token, token.generation > rejected.generation { return .success(token) }
            if let token, now.timeIntervalSince(token.issuedAt) < minimumInterval.seconds { return .success(nil) }
            return make(now: now, replacing: &token).map { Optional($0) }
        }
        return try result.get()
    }

    private func make(now: Date, replacing token: inout Token?) -> Result<Token, APNSClientError> {
        do {
            let jwt = try JWT.sign(keyID: keyID, teamID: teamID, issuedAt: now, key: key)
            let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let next = Token(authorization: "bearer " + jwt, issuedAt: issued, generation: (token?.generation ?? 0) + 1)
            token = next
            return .success(next)
        } catch {
            return .failure(APNSClientError(.tokenFailed, "cannot sign a provider token with key \(keyID): \(error.message)"))
        }
    }
}

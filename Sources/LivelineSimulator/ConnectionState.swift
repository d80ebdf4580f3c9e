import Foundation

/// What APNs remembers about one connection between requests: how it authenticates, what its first
/// valid token bound it to, when its token last changed, and its current stream limit.
public struct ConnectionState: Sendable, Hashable {
    /// How the connection authenticates.
    public enum Authentication: Sendable, Hashable {
        /// JWT bearer tokens in `authorization`.
        case token
        /// A client certificate for `bundleID` in `environment`; `valid: false` for one APNs refuses.
        case certificate(bundleID: String, environment: APNSEnvironment, valid: Bool)
        /// In-process test use: authentication is skipped.
        case trusted
    }

    /// How this connection authenticates.
    public var authentication: Authentication
    /// The key, team and environment of the first valid token (set once).
    public internal(set) var boundKeyID: String?
    /// The team of the first valid token.
    public internal(set) var boundTeamID: String?
    /// The environment of the first valid token.
    public internal(set) var boundEnvironment: APNSEnvironment?
    /// The token string last used, and when it changed (the 20-minute rule).
    var currentToken: String?
    /// When the connection last started using a new token string.
    public internal(set) var tokenChangedAt: Date?
    /// Whether any push on this connection has been accepted.
    public internal(set) var acceptedAny: Bool
    /// The MAX_CONCURRENT_STREAMS this connection was last told.
    public internal(set) var maxConcurrentStreams: Int
    /// When the last request arrived (for `IdleTimeout`).
    public internal(set) var lastRequestAt: Date?
    /// Requests handled on this connection.
    public internal(set) var requestCount: Int
    /// The APNs host the connection reached (a simulator listener of that environment); `nil`:
    /// the simulator's configured environment. A token of the other environment gets `BadDeviceToken`.
    public var environment: APNSEnvironment?

    /// A connection as it opens; `Simulator.newConnection` picks the stream limit for you.
    public init(authentication: Authentication = .token, initialMaxConcurrentStreams: Int = 1) {
        self.authentication = authentication
        self.acceptedAny = false
        self.maxConcurrentStreams = initialMaxConcurrentStreams
        self.requestCount = 0
    }

    /// A connection that skips authentication, for in-process tests.
    public static var trusted: ConnectionState { ConnectionState(authentication: .trusted, initialMaxConcurrentStreams: 1000) }
}

import Foundation
import LivelineCrypto

/// An APNs environment: sandbox (development) or production. Tokens, keys and channels belong to one.
public enum APNSEnvironment: String, Sendable, Hashable, CaseIterable, Codable {
    case sandbox
    case production
}

/// A provider key APNs knows: the `kid` of tokens it signs, its team, its scope and its public key.
public struct ProviderKey: Sendable {
    /// The environments a key may be used in.
    public enum Scope: String, Sendable, Hashable, Codable {
        /// An older key valid in both environments.
        case both
        case sandbox
        case production

        func allows(_ environment: APNSEnvironment) -> Bool {
            self == .both || rawValue == environment.rawValue
        }
    }

    /// The 10-character Key ID (`kid`).
    public var keyID: String
    /// The 10-character Team ID (`iss`).
    public var teamID: String
    /// The environments the key may be used in.
    public var scope: Scope
    /// For a topic-specific key, the bundle ids it may push to; `nil` for a team key.
    public var topics: [String]?
    /// A topic-specific key's related key, which may share connections with it.
    public var relatedKeyID: String?
    /// The public half of the `.p8` key; verifies raw and DER ES256 signatures.
    public var publicKey: P256PublicKey

    /// A key; team-scoped and valid in both environments unless told otherwise.
    public init(keyID: String, teamID: String, publicKey: P256PublicKey, scope: Scope = .both, topics: [String]? = nil, relatedKeyID: String? = nil) {
        self.keyID = keyID
        self.teamID = teamID
        self.scope = scope
        self.topics = topics
        self.relatedKeyID = relatedKeyID
        self.publicKey = publicKey
    }
}

/// An app APNs knows: its bundle id and team, and what its capabilities allow.
public struct AppRegistration: Sendable, Hashable {
    /// The bare bundle id (no push-type suffix).
    public var bundleID: String
    /// The team that owns it; only that team's keys may push to it.
    public var teamID: String
    /// Whether the broadcast capability is enabled (otherwise broadcasts get `FeatureNotEnabled`).
    public var broadcastEnabled: Bool
    /// Whether APNs refuses every push for this app with 403 `Forbidden`.
    public var forbidden: Bool

    /// An app with broadcasts enabled and pushes allowed unless told otherwise.
    public init(bundleID: String, teamID: String, broadcastEnabled: Bool = true, forbidden: Bool = false) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.broadcastEnabled = broadcastEnabled
        self.forbidden = forbidden
    }
}

/// A per-token rate limit: more than `count` pushes to one token within `seconds` get `TooManyRequests`.
public struct RateLimit: Sendable, Hashable {
    /// Pushes allowed per window.
    public var count: Int
    /// The window length.
    public var seconds: TimeInterval
    /// At most `count` pushes per token in any `seconds`.
    public init(count: Int, seconds: TimeInterval) {
        self.count = count
        self.seconds = seconds
    }
}

/// The ActivityKit numbers a simulated device applies. Apple publishes none of them; the defaults
/// are third-party observations (see apns-protocol.md §7.3).
public struct DeviceRules: Sendable, Hashable {
    /// Concurrent activities one app may have on one device (`targetMaximumExceeded` above it).
    public var maxActivitiesPerApp = 5
    /// Priority-10 updates an activity may receive in any hour.
    public var updateBudgetPerHour = 15
    /// The same with `NSSupportsLiveActivitiesFrequentUpdates` on and enabled by the user.
    public var frequentUpdateBudgetPerHour = 240
    /// Push-to-starts one app may receive on one device in `pushToStartWindow`; beyond it the device
    /// drops them ("Push-to-start budget exceeded", about 10 per Apple DTS; frequent updates do not raise it).
    public var pushToStartBudget = 10
    /// The window of `pushToStartBudget` (Apple gives none; an hour, as the service's default).
    public var pushToStartWindow: TimeInterval = 3600
    /// How long an activity may stay active before the system ends it.
    public var maxActiveDuration: TimeInterval = 8 * 3600
    /// How long an activity may exist in all, active plus ended on the Lock Screen.
    public var maxTotalDuration: TimeInterval = 12 * 3600
    /// How long an ended activity stays on the Lock Screen by default.
    public var defaultDismissalDelay: TimeInterval = 4 * 3600
    /// Largest attributes plus content state an activity holds (`attributesTooLarge`).
    public var maxActivityDataBytes = 4096

    /// The default numbers.
    public init() {}
}

/// Everything the simulated APNs knows before any request: its environment, keys, apps and limits.
public struct SimulatorConfiguration: Sendable {
    /// Sandbox (adds `apns-unique-id`) or production.
    public var environment: APNSEnvironment
    /// Provider keys by which tokens are verified.
    public var keys: [ProviderKey]
    /// Apps APNs knows (installing an unknown app registers it).
    public var apps: [AppRegistration]
    /// MAX_CONCURRENT_STREAMS once a token connection has sent a valid push (1 before that).
    public var maxConcurrentStreams: Int
    /// A token connection's stream limit before its first valid push and after a rejection.
    public var restrictedConcurrentStreams: Int
    /// Seed for every random choice (ids, tokens, faults): the same seed gives the same run.
    public var seed: UInt64
    /// Per-token (and per-channel) rate limit; `nil` for none.
    public var rateLimit: RateLimit?
    /// A connection idle this long gets `IdleTimeout` on its next request and is closed.
    public var idleTimeout: TimeInterval
    /// Channels per app and environment.
    public var maxChannelsPerApp: Int
    /// The ActivityKit numbers devices apply.
    public var deviceRules: DeviceRules
    /// How many push records `log` keeps (oldest dropped first).
    public var logCapacity: Int
    /// How many events `events()` keeps (oldest dropped first).
    public var eventCapacity: Int
    /// How many dismissed activities are kept for inspection (the earliest dismissed dropped first).
    /// A dropped activity's update token is forgotten: it then answers like a token APNs never issued.
    public var dismissedActivityCapacity: Int
    /// How long a dismissed activity is kept for inspection after its dismissal.
    public var dismissedActivityRetention: TimeInterval
    /// How many replaced or unregistered tokens (a rotated update or push-to-start token, an
    /// uninstalled app's tokens) still answer 410; beyond it the oldest answer like a token APNs never issued.
    public var retiredTokenCapacity: Int
    /// How many distinct provider tokens (JWTs) the simulator keeps verified (oldest dropped first;
    /// a dropped token is verified again when it comes back).
    public var authorizationCacheCapacity: Int
    /// How many rate-limit windows (one per token or channel pushed to) are kept: idle windows are
    /// dropped first, then the least recently used, whose keys start afresh.
    public var rateWindowCapacity: Int

    /// A configuration; every field has a default.
    public init(
        environment: APNSEnvironment = .sandbox, keys: [ProviderKey] = [], apps: [AppRegistration] = [],
        maxConcurrentStreams: Int = 1000, restrictedConcurrentStreams: Int = 1, seed: UInt64 = 1,
        rateLimit: RateLimit? = nil, idleTimeout: TimeInterval = 3600, maxChannelsPerApp: Int = 10_000,
        deviceRules: DeviceRules = DeviceRules(), logCapacity: Int = 10_000, eventCapacity: Int = 10_000,
        dismissedActivityCapacity: Int = 1000, dismissedActivityRetention: TimeInterval = 24 * 3600,
        retiredTokenCapacity: Int = 10_000, authorizationCacheCapacity: Int = 1000, rateWindowCapacity: Int = 10_000
    ) {
        self.environment = environment
        self.keys = keys
        self.apps = apps
        self.maxConcurrentStreams = maxConcurrentStreams
        self.restrictedConcurrentStreams = restrictedConcurrentStreams
        self.seed = seed
        self.rateLimit = rateLimit
        self.idleTimeout = idleTimeout
        self.maxChannelsPerApp = maxChannelsPerApp
        self.deviceRules = deviceRules
        self.logCapacity = logCapacity
        self.eventCapacity = eventCapacity
        self.dismissedActivityCapacity = dismissedActivityCapacity
        self.dismissedActivityRetention = dismissedActivityRetention
        self.retiredTokenCapacity = retiredTokenCapacity
        self.authorizationCacheCapacity = authorizationCacheCapacity
        self.rateWindowCapacity = rateWindowCapacity
    }
}

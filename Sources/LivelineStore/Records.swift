import Foundation

/// An API key's scope: an app key registers and deletes tokens; an admin key can do everything.
public enum KeyScope: String, Sendable, Hashable, CaseIterable {
    case app, admin
}

/// An API key as stored: its hash, never the key itself.
public struct APIKeyRecord: Sendable, Hashable {
    /// A short public id (`key_…`), safe to log.
    public var id: String
    public var scope: KeyScope
    /// SHA-256 of the key, lowercase hex.
    public var hash: String
    public var name: String?
    public var createdAt: Date
    // MARK: Tenancy and lifecycle (migration 5-key-lifecycle)
    /// An app key's one app (its bundle id); `nil` for an admin key (and for app keys made before bundles were bound).
    public var bundleID: String?
    /// An admin key's apps: `nil` for every app.
    public var apps: [String]?
    /// After this the key is refused.
    public var expiresAt: Date?
    /// When the key was revoked; it is refused from then on.
    public var revokedAt: Date?
    public init(id: String, scope: KeyScope, hash: String, name: String?, createdAt: Date,
                bundleID: String? = nil, apps: [String]? = nil, expiresAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.scope = scope
        self.hash = hash
        self.name = name
        self.createdAt = createdAt
        self.bundleID = bundleID
        self.apps = apps
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// Whether the key may be used at `now`: not revoked, not expired.
    public func isUsable(at now: Date) -> Bool {
        revokedAt == nil && (expiresAt.map { now < $0 } ?? true)
    }
}

/// An app the service sends for: its bundle id and APNs credentials.
public struct AppRecord: Sendable, Hashable {
    public var bundleID: String
    public var teamID: String
    public var keyID: String
    /// The `.p8` key's PEM text. Secret: never logged, never returned.
    public var keyPEM: String
    /// `production` or `sandbox`.
    public var environment: String
    public var createdAt: Date
    /// The environments the app sends in (migration 6-token-environment); `nil`: `environment` only.
    /// `environment` is always one of them: the default of a token registered without one.
    public var environments: [String]?
    public init(bundleID: String, teamID: String, keyID: String, keyPEM: String, environment: String, createdAt: Date, environments: [String]? = nil) {
        self.bundleID = bundleID
        self.teamID = teamID
        self.keyID = keyID
        self.keyPEM = keyPEM
        self.environment = environment
        self.createdAt = createdAt
        self.environments = environments
    }

    /// The environments the app sends in, `environment` first.
    public var enabledEnvironments: [String] {
        [environment] + (environments ?? []).filter { $0 != environment }
    }
}

/// A phone with the app installed.
public struct DeviceRecord: Sendable, Hashable {
    public var deviceID: String
    public var bundleID: String
    public var iosVersion: String
    public var userID: String?
    public var frequentUpdates: Bool
    public var updatedAt: Date
    /// Whether `userID` was bound by someone the service trusts (an admin key, or a user token the
    /// app's backend signed): only then do audiences by `userIDs` reach the device.
    public var userVerified: Bool
    public init(deviceID: String, bundleID: String, iosVersion: String, userID: String?, frequentUpdates: Bool, updatedAt: Date, userVerified: Bool = true) {
        self.deviceID = deviceID
        self.bundleID = bundleID
        self.iosVersion = iosVersion
        self.userID = userID
        self.frequentUpdates = frequentUpdates
        self.updatedAt = updatedAt
        self.userVerified = userVerified
    }
}

/// A registered token: push-to-start (per device and attributes type) or update (per activity and device).
public struct TokenRecord: Sendable, Hashable {
    /// The attributes type for a push-to-start token, the logical activity id for an update token.
    public var scope: String
    public var deviceID: String
    public var token: String
    /// When the app last registered (or re-reported) it: push-to-start tokens unseen too long expire.
    public var registeredAt: Date
    // MARK: Token hygiene (migration 6-token-environment)
    /// `sandbox` or `production`, as the app's build reported it; `nil`: the app's default environment.
    public var environment: String?
    /// When APNs refused the token with BadDeviceToken; it is kept, not used, until registered again.
    public var refusedAt: Date?
    /// Why it is not used (the host that refused it and what that probably means).
    public var refusal: String?
    public init(scope: String, deviceID: String, token: String, registeredAt: Date, environment: String? = nil, refusedAt: Date? = nil, refusal: String? = nil) {
        self.scope = scope
        self.deviceID = deviceID
        self.token = token
        self.registeredAt = registeredAt
        self.environment = environment
        self.refusedAt = refusedAt
        self.refusal = refusal
    }
}

/// A logical activity (`flight-LL1234-2026-12-01`): what the backend sends to by id.
public struct ActivityRecord: Sendable, Hashable {
    public var activityID: String
    public var bundleID: String
    public var attributesType: String
    /// The broadcast channel the activity's iOS 18 devices subscribe to, if any.
    public var channelID: String?
    public var startedAt: Date
    /// When the backend ended it (an end was accepted).
    public var endedAt: Date?
    /// The newest `timestamp` sent, so each push is newer than the last.
    public var lastTimestamp: Date?
    public init(activityID: String, bundleID: String, attributesType: String, channelID: String?, startedAt: Date, endedAt: Date? = nil, lastTimestamp: Date? = nil) {
        self.activityID = activityID
        self.bundleID = bundleID
        self.attributesType = attributesType
        self.channelID = channelID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.lastTimestamp = lastTimestamp
    }
}

/// One accepted send (a start, update or end) before fan-out: the body shared by its outbox rows.
public struct SendRecord: Sendable, Hashable {
    public var id: Int64
    public var activityID: String
    /// `start`, `update` or `end`.
    public var event: String
    public var bundleID: String
    /// The APNs request body, exactly as it goes on the wire.
    public var body: [UInt8]
    public var createdAt: Date
    public init(id: Int64 = 0, activityID: String, event: String, bundleID: String, body: [UInt8], createdAt: Date) {
        self.id = id
        self.activityID = activityID
        self.event = event
        self.bundleID = bundleID
        self.body = body
        self.createdAt = createdAt
    }
}

/// The life of one push to one token.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// Waiting for a worker.
    case queued
    /// Claimed by a worker and on the wire, under a lease.
    case sending
    /// Failed transiently; waits for `nextAttemptAt`.
    case retrying
    /// APNs accepted it.
    case sent
    /// Final without delivery: the reason says why.
    case failed
    /// A newer update for the same activity and token replaced it before it was sent.
    case superseded
    /// APNs said the token is dead; the token was removed from the registry.
    case pruned

    /// Whether nothing will happen to the row any more.
    public var isFinal: Bool { self == .sent || self == .failed || self == .superseded || self == .pruned }
}

/// Where an outbox row goes.
public enum DeliveryTarget: String, Sendable, Hashable {
    /// An activity's update token.
    case token
    /// A device's push-to-start token.
    case pushToStart = "push-to-start"
    /// A broadcast channel.
    case channel
}

/// A row to add to the outbox.
public struct NewDelivery: Sendable, Hashable {
    public var deviceID: String?
    public var target: DeliveryTarget
    /// Device token or channel id.
    public var token: String
    public var priority: Int
    /// Why the priority was lowered, if it was.
    public var note: String?
    public var notBefore: Date
    /// The APNs environment whose host the push goes to; `nil`: the app's default (migration 6-token-environment).
    public var environment: String?
    public init(deviceID: String?, target: DeliveryTarget, token: String, priority: Int, note: String? = nil, notBefore: Date, environment: String? = nil) {
        self.deviceID = deviceID
        self.target = target
        self.token = token
        self.priority = priority
        self.note = note
        self.notBefore = notBefore
        self.environment = environment
    }
}

/// One outbox row: one push to one token, and what became of it.
public struct DeliveryRecord: Sendable, Hashable {
    public var id: Int64
    public var sendID: Int64
    public var activityID: String
    public var event: String
    public var deviceID: String?
    public var target: DeliveryTarget
    public var token: String
    public var priority: Int
    public var note: String?
    public var state: DeliveryState
    public var attempts: Int
    public var nextAttemptAt: Date
    public var apnsID: String?
    public var status: Int?
    public var reason: String?
    public var displayedAt: Date?
    public var updatedAt: Date
    /// The APNs environment whose host the push goes to; `nil`: the app's default (migration 6-token-environment).
    public var environment: String? = nil
}

/// A finished attempt, to record.
public struct DeliveryOutcome: Sendable, Hashable {
    public var id: Int64
    public var state: DeliveryState
    public var apnsID: String?
    public var status: Int?
    public var reason: String?
    /// For `retrying`: when to try again.
    public var nextAttemptAt: Date?
    public init(id: Int64, state: DeliveryState, apnsID: String? = nil, status: Int? = nil, reason: String? = nil, nextAttemptAt: Date? = nil) {
        self.id = id
        self.state = state
        self.apnsID = apnsID
        self.status = status
        self.reason = reason
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A write's first answer, kept so a repeated `Idempotency-Key` gets it again.
public struct IdempotentAnswer: Sendable, Hashable {
    public var requestHash: String
    public var status: Int
    public var body: [UInt8]
    public init(requestHash: String, status: Int, body: [UInt8]) {
        self.requestHash = requestHash
        self.status = status
        self.body = body
    }
}

/// A button or toggle tapped in a Live Activity, for the backend's webhook.
public struct InteractionRecord: Sendable, Hashable {
    public var id: Int64
    public var activityID: String
    public var deviceID: String?
    public var idempotencyKey: String
    /// The JSON the app posted (`action`, `payload`), as bytes.
    public var body: [UInt8]
    public var createdAt: Date
    /// `pending`, `delivered` or `failed`.
    public var webhookState: String
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
}

/// An iOS 18 broadcast channel created through APNs' channel API.
public struct ChannelRecord: Sendable, Hashable {
    public var channelID: String
    public var bundleID: String
    /// 0: no message stored; 1: the most recent message stored.
    public var storagePolicy: Int
    public var createdAt: Date
    /// The logical activity the service created it for on demand (migration 13-activity-channels);
    /// `nil`: created with `POST /v1/channels`, and deleted only when asked.
    public var activityID: String?
    public init(channelID: String, bundleID: String, storagePolicy: Int, createdAt: Date, activityID: String? = nil) {
        self.channelID = channelID
        self.bundleID = bundleID
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
        self.activityID = activityID
    }
}

// MARK: - Trust: installations (the trust branch's records)

/// One install of an app, created with the app key: its id is the device id every device-scoped
/// route acts on, and its secret (`ll_inst_…`, shown once) is kept only as a SHA-256 hash.
public struct InstallationRecord: Sendable, Hashable {
    public var installationID: String
    public var bundleID: String
    /// SHA-256 of the secret, lowercase hex.
    public var secretHash: String
    public var createdAt: Date
    public init(installationID: String, bundleID: String, secretHash: String, createdAt: Date) {
        self.installationID = installationID
        self.bundleID = bundleID
        self.secretHash = secretHash
        self.createdAt = createdAt
    }
}

// MARK: - Device reports (migration 7-activity-status)

/// Something a device reported about one of its activities besides a receipt: a content state its
/// attributes type failed to decode (`kind` `decode-failure`, `detail` the decoder's message).
public struct DeviceReportRecord: Sendable, Hashable {
    public var id: Int64
    public var activityID: String
    public var deviceID: String
    public var kind: String
    public var detail: String
    /// When the device says it happened.
    public var reportedAt: Date
    /// When the service stored it.
    public var createdAt: Date
    public init(id: Int64 = 0, activityID: String, deviceID: String, kind: String, detail: String, reportedAt: Date, createdAt: Date) {
        self.id = id
        self.activityID = activityID
        self.deviceID = deviceID
        self.kind = kind
        self.detail = detail
        self.reportedAt = reportedAt
        self.createdAt = createdAt
    }
}

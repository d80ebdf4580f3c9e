/// The `reason` string of an APNs rejection, with its documented status and retry policy.
///
/// Unknown strings are kept as they are (`isKnown == false`) and get a policy from the status.
/// Every known reason, its status and its policy live in one table, `APNSReason.table`.
public struct APNSReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// One row of the reason table.
    public struct Entry: Sendable, Hashable {
        /// The reason.
        public let reason: APNSReason
        /// The status APNs sends it with.
        public let status: Int
        /// What a client may do about it.
        public let policy: APNSRetryPolicy
        /// Apple's meaning, shortened.
        public let meaning: String
    }

    /// Every reason Apple documents for device pushes (apns-protocol.md §4.2) and for broadcasts and
    /// channel management (§4.3): the single mapping of reason ↔ status ↔ retry policy.
    public static let table: [Entry] = {
        let rows: [(String, Int, APNSRetryPolicy, String)] = [
            ("BadCollapseId", 400, .fixFirst, "apns-collapse-id is longer than 64 bytes"),
            ("BadDeviceToken", 400, .never, "the device token is invalid or from the other environment"),
            ("BadExpirationDate", 400, .fixFirst, "apns-expiration is invalid"),
            ("BadMessageId", 400, .fixFirst, "apns-id is not a UUID"),
            ("BadPriority", 400, .fixFirst, "apns-priority is invalid"),
            ("BadTopic", 400, .fixFirst, "apns-topic is invalid"),
            ("DeviceTokenNotForTopic", 400, .never, "the device token does not belong to the topic"),
            ("DuplicateHeaders", 400, .fixFirst, "a header was sent twice"),
            ("IdleTimeout", 400, .newConnection, "the connection was idle too long"),
            ("InvalidPushType", 400, .fixFirst, "apns-push-type is invalid"),
            ("MissingDeviceToken", 400, .fixFirst, "no device token in the path"),
            ("MissingTopic", 400, .fixFirst, "apns-topic is required"),
            ("PayloadEmpty", 400, .fixFirst, "the body is empty"),
            ("TopicDisallowed", 400, .fixFirst, "pushing to this topic is not allowed"),
            ("BadCertificate", 403, .fixFirst, "the client certificate is invalid"),
            ("BadCertificateEnvironment", 403, .fixFirst, "the client certificate is for the other environment"),
            ("ExpiredProviderToken", 403, .renewToken, "the provider token is older than one hour"),
            ("Forbidden", 403, .never, "the action is not allowed"),
            ("InvalidProviderToken", 403, .fixFirst, "the provider token is invalid or its signature does not verify"),
            ("MissingProviderToken", 403, .fixFirst, "no certificate and no authorization header"),
            ("UnrelatedKeyIdInToken", 403, .newConnection, "the key is unrelated to the connection's first key"),
            ("BadEnvironmentKeyIdInToken", 403, .fixFirst, "the key is scoped to the other environment"),
            ("BadPath", 404, .fixFirst, "the path is invalid"),
            ("MethodNotAllowed", 405, .fixFirst, "the method is not POST"),
            ("ExpiredToken", 410, .never, "the device token has expired (an ended Live Activity)"),
            ("Unregistered", 410, .never, "the device token is no longer active for the topic"),
            ("PayloadTooLarge", 413, .never, "the body is over the size limit"),
            ("TooManyProviderTokenUpdates", 429, .slowTokenUpdates, "provider tokens are renewed more often than every 20 minutes"),
            ("TooManyRequests", 429, .backoff, "too many pushes to one device token"),
            ("InternalServerError", 500, .backoff, "APNs failed internally"),
            ("ServiceUnavailable", 503, .backoff, "APNs is unavailable"),
            ("Shutdown", 503, .newConnection, "the server is shutting down"),
            // Broadcast and channel management (§4.3).
            ("FeatureNotEnabled", 400, .fixFirst, "broadcast is not enabled for the app"),
            ("MissingChannelId", 400, .fixFirst, "apns-channel-id is required"),
            ("BadChannelId", 400, .fixFirst, "apns-channel-id is badly encoded or too long"),
            ("ChannelNotRegistered", 400, .never, "the channel does not exist in this environment"),
            ("BadRequestParams", 400, .fixFirst, "the request JSON has an unknown attribute"),
            ("BadRequestPayload", 400, .fixFirst, "the request JSON cannot be parsed"),
            ("MissingPushType", 400, .fixFirst, "apns-push-type (or the body's push-type) is required"),
            ("CannotCreateChannelConfig", 400, .fixFirst, "the app has reached its 10,000-channel limit"),
            ("TopicMismatch", 403, .fixFirst, "the credentials do not cover the bundle ID in the path"),
        ]
        return rows.map { Entry(reason: APNSReason(rawValue: $0.0), status: $0.1, policy: $0.2, meaning: $0.3) }
    }()

    private static let entries: [String: Entry] = Dictionary(table.map { ($0.reason.rawValue, $0) }, uniquingKeysWith: { first, _ in first })

    /// The table row for this reason, `nil` for a reason Apple does not document.
    public var entry: Entry? { Self.entries[rawValue] }
    /// Whether Apple documents this reason.
    public var isKnown: Bool { entry != nil }
    /// The status Apple documents for this reason.
    public var documentedStatus: Int? { entry?.status }
    /// The status to answer with: the documented one, 500 for a reason Apple does not document.
    public var status: Int { entry?.status ?? 500 }

    /// The retry policy for this reason arriving with `status`; unknown reasons go by status
    /// (429 and 5xx back off, anything else must be fixed first).
    public func policy(status: Int) -> APNSRetryPolicy {
        if let entry { return entry.policy }
        return status == 429 || (500...599).contains(status) ? .backoff : .fixFirst
    }

    public static let badCollapseID = APNSReason(rawValue: "BadCollapseId")
    public static let badDeviceToken = APNSReason(rawValue: "BadDeviceToken")
    public static let badExpirationDate = APNSReason(rawValue: "BadExpirationDate")
    public static let badMessageID = APNSReason(rawValue: "BadMessageId")
    public static let badPriority = APNSReason(rawValue: "BadPriority")
    public static let badTopic = APNSReason(rawValue: "BadTopic")
    public static let deviceTokenNotForTopic = APNSReason(rawValue: "DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNSReason(rawValue: "DuplicateHeaders")
    public static let idleTimeout = APNSReason(rawValue: "IdleTimeout")
    public static let invalidPushType = APNSReason(rawValue: "InvalidPushType")
    public static let missingDeviceToken = APNSReason(rawValue: "MissingDeviceToken")
    public static let missingTopic = APNSReason(rawValue: "MissingTopic")
    public static let payloadEmpty = APNSReason(rawValue: "PayloadEmpty")
    public static let topicDisallowed = APNSReason(rawValue: "TopicDisallowed")
    public static let badCertificate = APNSReason(rawValue: "BadCertificate")
    public static let badCertificateEnvironment = APNSReason(rawValue: "BadCertificateEnvironment")
    public static let expiredProviderToken = APNSReason(rawValue: "ExpiredProviderToken")
    public static let forbidden = APNSReason(rawValue: "Forbidden")
    public static let invalidProviderToken = APNSReason(rawValue: "InvalidProviderToken")
    public static let missingProviderToken = APNSReason(rawValue: "MissingProviderToken")
    public static let unrelatedKeyIDInToken = APNSReason(rawValue: "UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIDInToken = APNSReason(rawValue: "BadEnvironmentKeyIdInToken")
    public static let badPath = APNSReason(rawValue: "BadPath")
    public static let methodNotAllowed = APNSReason(rawValue: "MethodNotAllowed")
    public static let expiredToken = APNSReason(rawValue: "ExpiredToken")
    public static let unregistered = APNSReason(rawValue: "Unregistered")
    public static let payloadTooLarge = APNSReason(rawValue: "PayloadTooLarge")
    public static let tooManyProviderTokenUpdates = APNSReason(rawValue: "TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNSReason(rawValue: "TooManyRequests")
    public static let internalServerError = APNSReason(rawValue: "InternalServerError")
    public static let serviceUnavailable = APNSReason(rawValue: "ServiceUnavailable")
    public static let shutdown = APNSReason(rawValue: "Shutdown")
    public static let featureNotEnabled = APNSReason(rawValue: "FeatureNotEnabled")
    public static let missingChannelID = APNSReason(rawValue: "MissingChannelId")
    public static let badChannelID = APNSReason(rawValue: "BadChannelId")
    public static let channelNotRegistered = APNSReason(rawValue: "ChannelNotRegistered")
    public static let badRequestParams = APNSReason(rawValue: "BadRequestParams")
    public static let badRequestPayload = APNSReason(rawValue: "BadRequestPayload")
    public static let missingPushType = APNSReason(rawValue: "MissingPushType")
    public static let cannotCreateChannelConfig = APNSReason(rawValue: "CannotCreateChannelConfig")
    public static let topicMismatch = APNSReason(rawValue: "TopicMismatch")
}

/// What a client may do after APNs rejects a push for a given reason.
public struct APNSRetryPolicy: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
        case never, fixFirst, backoff, renewToken, slowTokenUpdates, newConnection
    }

    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The push can never succeed: the token is dead or the push is too big. Drop it.
    public static let never = APNSRetryPolicy(.never)
    /// The request is wrong; sending the same bytes again fails again. Fix it first.
    public static let fixFirst = APNSRetryPolicy(.fixFirst)
    /// Transient (429 `TooManyRequests`, 500, 503): retry after a capped exponential backoff.
    public static let backoff = APNSRetryPolicy(.backoff)
    /// `ExpiredProviderToken`: make a new provider token and retry once.
    public static let renewToken = APNSRetryPolicy(.renewToken)
    /// `TooManyProviderTokenUpdates`: tokens are renewed too often; back off, then retry.
    public static let slowTokenUpdates = APNSRetryPolicy(.slowTokenUpdates)
    /// The connection is finished (`IdleTimeout`, `Shutdown`, `UnrelatedKeyIdInToken`): retry on a new one.
    public static let newConnection = APNSRetryPolicy(.newConnection)

    /// Whether the client retries the push automatically under this policy.
    public var retries: Bool { kind != .never && kind != .fixFirst }

    public var description: String { kind.rawValue }
}

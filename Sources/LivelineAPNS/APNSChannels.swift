import Foundation

/// `message-storage-policy` of a broadcast channel; fixed at creation.
public enum APNSMessageStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    /// 0: nothing stored; higher publishing budget, for frequent updates. Broadcasts need `apns-expiration: 0`.
    case noMessageStored = 0
    /// 1: APNs keeps the latest message for up to 8 hours.
    case mostRecentMessageStored = 1
}

/// A channel's configuration as `readChannel` returns it.
public struct APNSChannelConfiguration: Sendable, Hashable {
    /// The storage policy.
    public var storagePolicy: APNSMessageStoragePolicy
    /// The body's `push-type` (`LiveActivity`).
    public var pushType: String

    /// Makes a configuration value.
    public init(storagePolicy: APNSMessageStoragePolicy, pushType: String = "LiveActivity") {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }
}

/// The outcome of a channel-management request: a value, a rejection, or a failure.
public enum APNSChannelResult<Value: Sendable & Hashable>: Sendable, Hashable {
    /// Success, with the response's `apns-request-id`.
    case success(Value, requestID: String?)
    /// APNs refused (status, reason; `apnsID` holds the `apns-request-id`).
    case rejected(APNSResult.Rejection)
    /// No verdict.
    case failed(APNSClientError)

    /// The value on success.
    public var value: Value? { if case .success(let v, _) = self { v } else { nil } }
}

/// What a successful delete returns.
public struct APNSNoContent: Sendable, Hashable {
    /// The empty value.
    public init() {}
}

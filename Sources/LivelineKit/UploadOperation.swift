import Foundation
import LivelineCore

/// One thing the service must learn, as the queue keeps it on disk.
public enum UploadOperation: Sendable, Codable, Equatable {
    /// `PUT /v1/devices/{deviceID}`.
    case registerDevice(DeviceRegistration)
    /// `PUT /v1/devices/{deviceID}/push-to-start/{attributesType}`.
    case pushToStartToken(token: String, attributesType: String, deviceID: String)
    /// `PUT /v1/activities/{activityID}/tokens/{deviceID}`, with `deviceActivityID` (the phone's own
    /// ActivityKit `Activity.id`, which the service then resolves to `activityID`) when known. Optional,
    /// so queues written before it existed still decode.
    case activityToken(token: String, activityID: String, deviceID: String, attributesType: String?, deviceActivityID: String? = nil)
    /// `DELETE /v1/activities/{activityID}/tokens/{deviceID}`.
    case deleteActivityToken(activityID: String, deviceID: String)
    /// `POST /v1/activities/{activityID}/interactions`, never coalesced.
    case interaction(Interaction)
    /// `POST /v1/activities/{activityID}/receipts`.
    case receipt(activityID: String, deviceID: String, displayedAt: Date)
    /// `POST /v1/activities/{activityID}/decode-failures` (the newest replaces one not yet sent).
    case decodeFailure(activityID: String, deviceID: String, failedAt: Date, error: String)
    /// `PUT /v1/activities/{activityID}/channel-members/{deviceID}`: an activity the app started
    /// itself with `pushType: .channel(channelID)` (iOS 18) follows the channel the backend bound to `activityID`.
    case channelMember(activityID: String, channelID: String, deviceID: String, deviceActivityID: String?)
    /// `DELETE /v1/activities/{activityID}/channel-members/{deviceID}`.
    case deleteChannelMember(activityID: String, deviceID: String)

    /// Operations with one key replace each other: only the newest is sent. An activity's token and
    /// its deletion share a key (the newest decides); each interaction has its own.
    var key: String {
        switch self {
        case .registerDevice(let d): "device|\(d.deviceID)"
        case .pushToStartToken(_, let type, let device): "push-to-start|\(type)|\(device)"
        case .activityToken(_, let activity, let device, _, _), .deleteActivityToken(let activity, let device): "activity|\(activity)|\(device)"
        case .interaction(let i): "interaction|\(i.idempotencyKey)"
        case .receipt(let activity, let device, _): "receipt|\(activity)|\(device)"
        case .decodeFailure(let activity, let device, _, _): "decode-failure|\(activity)|\(device)"
        case .channelMember(let activity, _, let device, _), .deleteChannelMember(let activity, let device): "member|\(activity)|\(device)"
        }
    }

    /// Token uploads need the device registered first (the service answers 404 `unknown-device`).
    var needsDevice: Bool {
        switch self {
        case .pushToStartToken, .activityToken, .channelMember: true
        default: false
        }
    }

    /// The phone's activity id sent with an update token or a channel member report, if any.
    var deviceActivityID: String? {
        switch self {
        case .activityToken(_, _, _, _, let alias), .channelMember(_, _, _, let alias): alias
        default: nil
        }
    }

    /// A report under an activity id the service does not know (404 `not-found`) may name the
    /// phone's own activity id, which resolves once the token carrying it is on the service.
    func mayResolveLater(_ error: LivelineAppError) -> Bool {
        switch self {
        case .interaction, .receipt, .decodeFailure: error.status == 404 && error.code == "not-found"
        default: false
        }
    }

    /// For logs: ids and token prefixes only.
    var summary: String {
        switch self {
        case .registerDevice(let d): "device \(d.deviceID)"
        case .pushToStartToken(let t, let type, let device): "push-to-start \(type) of \(device) (\(t.tokenPrefix))"
        case .activityToken(let t, let activity, let device, _, _): "token of \(device) for \(activity) (\(t.tokenPrefix))"
        case .deleteActivityToken(let activity, let device): "deletion of \(device)'s token for \(activity)"
        case .interaction(let i): "interaction \(i.action) on \(i.activityID) (\(i.idempotencyKey))"
        case .receipt(let activity, let device, _): "receipt of \(device) for \(activity)"
        case .decodeFailure(let activity, let device, _, _): "decode failure of \(device) for \(activity)"
        case .channelMember(let activity, let channel, let device, _): "\(device) follows channel \(channel) for \(activity)"
        case .deleteChannelMember(let activity, let device): "\(device) no longer follows the channel of \(activity)"
        }
    }
}

/// A queued operation with its retry state.
struct PendingUpload: Sendable, Codable, Equatable {
    var operation: UploadOperation
    /// Increases with every enqueue: a result is applied only if the entry was not replaced meanwhile.
    var sequence: UInt64
    var attempts: Int
    var notBefore: Date
    /// When it was first queued (kept across retries); `nil` in queues written before it was kept.
    /// A tap, receipt or decode failure answered 404 is retried until `TokenUploader.unresolvedActivityRetry`
    /// has passed since then.
    var queuedAt: Date? = nil
}

/// A token the service confirmed it holds.
struct ConfirmedToken: Sendable, Codable, Equatable {
    var token: String
    /// The logical activity id for update tokens, nil for push-to-start tokens.
    var activityID: String?
    var deviceID: String
    /// When the service last confirmed it (push-to-start tokens are reported again after
    /// `TokenUploader.pushToStartReportInterval`, so the service sees them in use); `nil` in queues
    /// written before it was kept.
    var confirmedAt: Date? = nil
    /// The phone's activity id sent with an update token (the service may have refused it as an
    /// alias; the token is held either way): the same token and id are not sent again.
    var deviceActivityID: String? = nil
}

/// Everything the uploader keeps on disk, written atomically after each change.
struct UploadState: Sendable, Codable {
    static let version = 1
    var version = UploadState.version
    var sequence: UInt64 = 0
    var pending: [String: PendingUpload] = [:]
    /// What the service holds, by operation key: a token equal to it is not sent again.
    var confirmed: [String: ConfirmedToken] = [:]
    /// The registration the service confirmed last.
    var device: DeviceRegistration?
    /// Interactions the service has (newest last, bounded): the same key is never queued again.
    var delivered: [String] = []
}

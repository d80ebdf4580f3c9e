import Foundation

/// The `apns-push-type` header: what kind of notification a request carries.
public struct PushType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let alert = PushType(rawValue: "alert")
    public static let background = PushType(rawValue: "background")
    public static let liveActivity = PushType(rawValue: "liveactivity")
    public static let voip = PushType(rawValue: "voip")
    public static let complication = PushType(rawValue: "complication")
    public static let fileProvider = PushType(rawValue: "fileprovider")
    public static let mdm = PushType(rawValue: "mdm")
    public static let location = PushType(rawValue: "location")
    public static let pushToTalk = PushType(rawValue: "pushtotalk")
    public static let controls = PushType(rawValue: "controls")
    public static let widgets = PushType(rawValue: "widgets")

    /// Every push type APNs documents.
    public static let all: [PushType] = [.alert, .background, .liveActivity, .voip, .complication, .fileProvider, .mdm, .location, .pushToTalk, .controls, .widgets]

    /// The suffix APNs expects after the bundle id in `apns-topic` (empty for `alert` and `background`;
    /// `nil` for `mdm`, whose topic is a certificate UID).
    public var topicSuffix: String? {
        switch rawValue {
        case "liveactivity": ".push-type.liveactivity"
        case "voip": ".voip"
        case "complication": ".complication"
        case "fileprovider": ".pushkit.fileprovider"
        case "location": ".location-query"
        case "pushtotalk": ".voip-ptt"
        case "controls": ".push-type.controls"
        case "widgets": ".push-type.widgets"
        case "mdm": nil
        default: ""
        }
    }

    /// The topic for `bundleID` with this push type's suffix.
    public func topic(forBundleID bundleID: String) -> String { bundleID + (topicSuffix ?? "") }

    /// The priorities APNs accepts for this push type.
    public var allowedPriorities: [Priority] {
        switch rawValue {
        case "background": [.considerate]
        case "liveactivity": [.immediate, .considerate]
        default: [.immediate, .considerate, .low]
        }
    }

    /// The largest body APNs accepts for this push type sent to a device token.
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }

    /// Whether APNs requires token (JWT) authentication for this push type.
    public var requiresTokenAuthentication: Bool { self == .liveActivity || self == .location }
}

/// The `apns-priority` header.
public enum Priority: Int, Sendable, Hashable, CaseIterable {
    /// Deliver now (10). Live Activity updates at this priority count against the hourly budget.
    case immediate = 10
    /// Deliver when power allows (5). Does not count against the Live Activity budget.
    case considerate = 5
    /// Put power first; never wake the device (1).
    case low = 1
}

/// The `apns-expiration` header.
public enum Expiration: Sendable, Hashable {
    /// `0`: try once, do not store.
    case immediately
    /// Store and retry until this moment.
    case at(Date)

    /// The header value, Unix seconds.
    public var headerValue: String {
        switch self {
        case .immediately: "0"
        case .at(let date): String(ReferenceDate.unixSeconds(date))
        }
    }
}

import Foundation

/// Text of an alert field: a plain string, or a localization key with arguments from the app's
/// `Localizable.strings`.
public enum AlertText: Sendable, Hashable, ExpressibleByStringLiteral {
    case plain(String)
    case localized(key: String, arguments: [String] = [])

    public init(stringLiteral value: String) { self = .plain(value) }
}

/// The `alert` dictionary of a push.
///
/// For Live Activities Apple documents `title` and `body` as `{"loc-key", "loc-args"}` objects
/// and `sound` inside `alert`; plain strings work too.
public struct Alert: Sendable, Hashable {
    public var title: AlertText?
    public var subtitle: AlertText?
    public var body: AlertText?
    /// A sound file in the app bundle, or `"default"`.
    public var sound: String?
    public var launchImage: String?

    public init(title: AlertText? = nil, subtitle: AlertText? = nil, body: AlertText? = nil, sound: String? = nil, launchImage: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.launchImage = launchImage
    }

    /// The alert as a Live Activity push carries it: localized text as `{"loc-key","loc-args"}`
    /// objects, `sound` inside the alert.
    var liveActivityJSON: JSONValue {
        var object = JSONObject()
        func put(_ key: String, _ text: AlertText?) {
            switch text {
            case .plain(let s): object[key] = .string(s)
            case .localized(let k, let args): object[key] = ["loc-key": .string(k), "loc-args": .array(args.map(JSONValue.string))]
            case nil: break
            }
        }
        put("title", title)
        put("subtitle", subtitle)
        put("body", body)
        if let sound { object["sound"] = .string(sound) }
        return .object(object)
    }

    /// The alert as an ordinary notification carries it: `title-loc-key`/`loc-key` and their
    /// arguments as sibling keys (sound goes in `aps`, not here).
    var notificationJSON: JSONValue {
        var object = JSONObject()
        func put(_ key: String, _ locPrefix: String, _ text: AlertText?) {
            switch text {
            case .plain(let s): object[key] = .string(s)
            case .localized(let k, let args):
                object[locPrefix + "loc-key"] = .string(k)
                if !args.isEmpty { object[locPrefix + "loc-args"] = .array(args.map(JSONValue.string)) }
            case nil: break
            }
        }
        put("title", "title-", title)
        put("subtitle", "subtitle-", subtitle)
        put("body", "", body)
        if let launchImage { object["launch-image"] = .string(launchImage) }
        return .object(object)
    }
}

extension Alert: ExpressibleByStringLiteral {
    /// An alert with just a body: `alert: "Gate changed to C7"`.
    public init(stringLiteral value: String) { self.init(body: .plain(value)) }
}

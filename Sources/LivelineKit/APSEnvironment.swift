import Foundation

/// The APNs environment a build's tokens belong to, as its `aps-environment` entitlement says:
/// a build signed with a development profile gets `development` (APNs' sandbox), an Ad Hoc,
/// TestFlight or App Store build gets `production`. A token works only on its own environment's
/// host; the other answers 400 `BadDeviceToken`. LivelineKit sends it with every token it
/// registers, so the service sends to the right host (docs/app-side.md, "Token environment").
public enum APSEnvironment: String, Sendable, Codable, CaseIterable {
    case sandbox
    case production

    /// The entitlement's value (`development` or `production`); the service's names are accepted too.
    public init?(entitlement value: String) {
        switch value {
        case "development", "sandbox": self = .sandbox
        case "production": self = .production
        default: return nil
        }
    }

    /// The running build's environment, read once from its embedded provisioning profile; `nil`
    /// when it cannot be told (off iOS, the iOS Simulator without a profile): the service then
    /// uses the app's default environment. Set `LivelineAppClient.apsEnvironment` to say it yourself.
    public static let current: APSEnvironment? = read(bundle: .main)

    /// A bundle's environment: the `aps-environment` of its `embedded.mobileprovision`. On an iOS
    /// device a build without one was re-signed by the App Store (App Store and TestFlight builds
    /// carry no profile), so it is production.
    public static func read(bundle: Bundle) -> APSEnvironment? {
        if let url = bundle.url(forResource: "embedded", withExtension: "mobileprovision"), let data = try? Data(contentsOf: url) {
            return read(provisioningProfile: data)
        }
        #if os(iOS) && !targetEnvironment(simulator)
        return .production
        #else
        return nil
        #endif
    }

    /// The `aps-environment` entitlement of a provisioning profile's bytes: a CMS-signed property
    /// list, whose XML is read between `<?xml` and `</plist>` (the signature is not checked: the
    /// system checked it when it installed the app).
    public static func read(provisioningProfile data: Data) -> APSEnvironment? {
        let bytes = [UInt8](data)
        guard let start = find(Array("<?xml".utf8), in: bytes, from: 0),
              let end = find(Array("</plist>".utf8), in: bytes, from: start) else { return nil }
        let plist = Data(bytes[start..<(end + "</plist>".utf8.count)])
        guard let root = try? PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any],
              let entitlements = root["Entitlements"] as? [String: Any],
              let value = entitlements["aps-environment"] as? String else { return nil }
        return APSEnvironment(entitlement: value)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var i = from
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0] && Array(haystack[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}

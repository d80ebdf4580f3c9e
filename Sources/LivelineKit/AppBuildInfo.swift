import Foundation
import LivelineCore

/// The app's build and version, as a device registration reports them (`appBuild`, `appVersion`,
/// `schemaVersions`), so that the service checks each push against every schema version still
/// installed and names the builds that would drop it.
public struct AppBuildInfo: Sendable, Equatable {
    /// `CFBundleVersion`.
    public var build: String?
    /// `CFBundleShortVersionString`.
    public var version: String?

    public init(build: String?, version: String?) {
        self.build = build
        self.version = version
    }

    /// Read from an Info.plist dictionary; values the service would refuse (empty, over 64
    /// characters, or other than letters, digits, `.`, `-`, `_`) are left out.
    public init(infoDictionary: [String: Any]) {
        build = Self.label(infoDictionary["CFBundleVersion"])
        version = Self.label(infoDictionary["CFBundleShortVersionString"])
    }

    /// The main bundle's (nil fields where it has no Info.plist, as a command-line test runner).
    public static let mainBundle = AppBuildInfo(infoDictionary: Bundle.main.infoDictionary ?? [:])

    static func label(_ value: Any?) -> String? {
        guard let text = value as? String, isLabel(text) else { return nil }
        return text
    }

    /// What the service takes for a build, version or schema version.
    public static func isLabel(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
        }
    }
}

extension DeviceRegistration {
    /// Adds `appBuild`, `appVersion` and `schemaVersions` to a `PUT /v1/devices` body.
    func appBuildFields(into body: inout JSONObject) {
        if let appBuild { body["appBuild"] = .string(appBuild) }
        if let appVersion { body["appVersion"] = .string(appVersion) }
        if let schemaVersions, !schemaVersions.isEmpty {
            var versions = JSONObject()
            for (type, version) in schemaVersions.sorted(by: { $0.key < $1.key }) { versions[type] = .string(version) }
            body["schemaVersions"] = .object(versions)
        }
    }
}

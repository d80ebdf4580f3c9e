/// How LivelineHTTP2 shows secrets and device identifiers as text. Every `description`,
/// `debugDescription`, mirror and error message of the module goes through here, so a provider
/// token (JWT), a cookie or a whole device token is never printed, and no layer above has to
/// clean a message up afterwards.
package enum Redaction {
    /// Header names whose values are secrets, besides the name patterns in `isSensitive`.
    private static let sensitiveNames: Set<String> = ["cookie", "set-cookie"]
    /// Parts of a header name that mark its value as a credential (`authorization`,
    /// `proxy-authorization`, `x-provider-token`, `x-api-key`, ...).
    private static let sensitiveParts = ["auth", "token", "secret", "password", "api-key"]

    /// Whether the value of header `name` is a secret: `authorization` and the like, anything
    /// named like a token, key or password, and cookies. Case-insensitive.
    package static func isSensitive(headerName name: String) -> Bool {
        let lower = name.lowercased()
        return sensitiveNames.contains(lower) || sensitiveParts.contains { lower.contains($0) }
    }

    /// `value` as it may be shown for header `name`: secrets become `<redacted, N bytes>`,
    /// keeping an authentication scheme in front (`bearer <redacted, 180 bytes>`).
    package static func headerValue(_ value: String, name: String) -> String {
        guard isSensitive(headerName: name) else { return value }
        let bytes = value.utf8.count
        if let space = value.firstIndex(of: " "), value[..<space].allSatisfy({ $0.isASCII && $0.isLetter }), !value[..<space].isEmpty {
            let secret = value[value.index(after: space)...].utf8.count
            return "\(value[..<space]) <redacted, \(secret) bytes>"
        }
        return "<redacted, \(bytes) bytes>"
    }

    /// The path prefix APNs puts a device token after.
    private static let devicePrefix = "/3/device/"

    /// `path` as it may be shown: a device-token path `/3/device/<token>` becomes
    /// `/3/device/<first 8 characters>…`; other paths are shown as they are.
    package static func path(_ path: String) -> String {
        guard path.hasPrefix(devicePrefix) else { return path }
        let token = path.dropFirst(devicePrefix.count)
        guard token.count > 8 else { return path }
        return devicePrefix + token.prefix(8) + "…"
    }

    /// `method path` with the path redacted, as messages name a request.
    package static func target(method: String, path: String) -> String {
        "\(method) \(Self.path(path))"
    }
}

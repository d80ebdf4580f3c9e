/// A libpq connection string (`postgres://user:password@host:5432/db?sslmode=require` or
/// `host=… password=…`), with the form that may be shown to people.
///
/// - Important: only `redacted` is ever printed or logged. The password (in the user info or a
///   `password` parameter) becomes `***`, and `scrub(_:)` removes it from any text (libpq's own
///   messages) before that text goes into an error.
public struct PostgresConnectionString: Sendable, CustomStringConvertible {
    /// What libpq is given. Never print it.
    let raw: String
    /// The connection string with its password replaced by `***`.
    public let redacted: String
    /// The password's spellings found in the string (as written and percent-decoded), to scrub.
    private let secrets: [String]

    /// Whether `text` is a PostgreSQL URL (`postgres://` or `postgresql://`).
    public static func isURL(_ text: String) -> Bool {
        let lower = text.prefix(13).lowercased()
        return lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://")
    }

    public init(_ text: String) {
        raw = text
        var secrets: [String] = []
        redacted = Self.isURL(text) ? Self.redactURL(text, &secrets) : Self.redactKeywords(text, &secrets)
        self.secrets = secrets.filter { !$0.isEmpty }.flatMap { [$0, Self.percentDecoded($0)] }
    }

    public var description: String { redacted }

    /// `text` with every spelling of the password replaced by `***`.
    public func scrub(_ text: String) -> String {
        var out = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            out = out.replacingAll(secret, with: "***")
        }
        return out
    }

    private static func redactURL(_ url: String, _ secrets: inout [String]) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        var authority = String(afterScheme[..<authorityEnd])
        var rest = String(afterScheme[authorityEnd...])
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            if let colon = userInfo.firstIndex(of: ":") {
                secrets.append(String(userInfo[userInfo.index(after: colon)...]))
                authority = String(userInfo[..<colon]) + ":***" + String(authority[at...])
            }
        }
        if let question = rest.firstIndex(of: "?") {
            let path = rest[..<question]
            let parameters = rest[rest.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard let eq = pair.firstIndex(of: "="), percentDecoded(String(pair[..<eq])).lowercased() == "password" else { return String(pair) }
                secrets.append(String(pair[pair.index(after: eq)...]))
                return String(pair[...eq]) + "***"
            }
            rest = String(path) + "?" + parameters.joined(separator: "&")
        }
        return String(url[..<schemeEnd.upperBound]) + authority + rest
    }

    /// `keyword = value` pairs; a value may be single-quoted with `\'` and `\\` escapes.
    private static func redactKeywords(_ text: String, _ secrets: inout [String]) -> String {
        let chars = Array(text)
        var out = ""
        var i = 0
        while i < chars.count {
            // Copy whitespace, then read a keyword up to `=`.
            if chars[i].isWhitespace { out.append(chars[i]); i += 1; continue }
            var keyword = ""
            while i < chars.count, chars[i] != "=", !chars[i].isWhitespace { keyword.append(chars[i]); i += 1 }
            out += keyword
            while i < chars.count, chars[i].isWhitespace { out.append(chars[i]); i += 1 }
            guard i < chars.count, chars[i] == "=" else { continue }
            out.append("="); i += 1
            while i < chars.count, chars[i].isWhitespace { out.append(chars[i]); i += 1 }
            var value = ""
            var spelled = ""
            if i < chars.count, chars[i] == "'" {
                spelled.append("'"); i += 1
                while i < chars.count, chars[i] != "'" {
                    if chars[i] == "\\", i + 1 < chars.count { spelled.append(chars[i]); i += 1 }
                    value.append(chars[i]); spelled.append(chars[i]); i += 1
                }
                if i < chars.count { spelled.append("'"); i += 1 }
            } else {
                while i < chars.count, !chars[i].isWhitespace { value.append(chars[i]); i += 1 }
                spelled = value
            }
            if keyword.lowercased() == "password" {
                secrets.append(value)
                out += "***"
            } else {
                out += spelled
            }
        }
        return out
    }

    private static func percentDecoded(_ s: String) -> String {
        guard s.contains("%") else { return s }
        let bytes = Array(s.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let v = UInt8(String(decoding: bytes[i + 1...i + 2], as: UTF8.self), radix: 16) {
                out.append(v)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension String {
    /// Every occurrence of `target` replaced (without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = self[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}

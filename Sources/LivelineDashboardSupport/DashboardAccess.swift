import Foundation
import LivelineCrypto
import LivelineHTTPServer

/// Who may use a dashboard, and the headers every answer carries.
///
/// - An exact `Host` check: `localhost`, `127.0.0.1`, `[::1]` or the address the dashboard
///   listens on, with an optional numeric port; anything else (`127.0.0.1.rebind.example`, a DNS
///   rebinding name) gets 421, so a page of another site cannot read the dashboard.
/// - An access token made at start (128 random bits): a visit with `?token=…` (the URL printed
///   at start) sets a cookie scoped to this dashboard (`HttpOnly`, `SameSite=Strict`); scripts
///   and tools may send the token in `X-Liveline-Dashboard-Token` or `Authorization: Bearer`.
///   Without it every route answers 401.
/// - `Content-Security-Policy` (scripts from the dashboard only, no framing), `X-Content-Type-Options`,
///   `Referrer-Policy: no-referrer` (the token never leaves in a Referer), `X-Frame-Options`.
package struct DashboardAccess: Sendable {
    package let token: String
    /// Lowercased host names accepted in `Host`, without port; IPv6 ones without brackets.
    package let hosts: Set<String>
    /// The cookie's name: unique per dashboard (cookies are shared by every port of a host).
    package let cookieName: String

    package static let headerName = "x-liveline-dashboard-token"
    package static let securityHeaders: [(name: String, value: String)] = [
        ("content-security-policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
        ("cache-control", "no-store"),
    ]

    package init(host: String, token: String? = nil) {
        let token = token ?? Digest.hex(Digest.randomBytes(16))
        self.token = token
        var hosts: Set<String> = ["localhost", "127.0.0.1", "::1"]
        hosts.insert(host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        self.hosts = hosts
        cookieName = "liveline_dashboard_" + String(Digest.hex(Digest.sha256(Array(token.utf8))).prefix(12))
    }

    /// Whether `header` (a `Host` value) names this dashboard exactly.
    package func allows(host header: String) -> Bool {
        var name = Substring(header.lowercased())
        var port: Substring = ""
        if name.hasPrefix("[") {
            guard let end = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: end)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                port = rest.dropFirst()
                if port.isEmpty { return false }
            }
            name = name[name.index(after: name.startIndex)..<end]
        } else if let colon = name.firstIndex(of: ":") {
            port = name[name.index(after: colon)...]
            name = name[..<colon]
            if port.isEmpty { return false }
        }
        guard port.allSatisfy({ $0.isASCII && $0.isNumber }), port.count <= 5 else { return false }
        return hosts.contains(String(name))
    }

    /// `nil` when the request may go on; else the answer refusing it.
    package func refusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard let host = request.header("host") else {
            return DashboardError.response(400, "missing-host", "a request to the dashboard needs a Host header")
        }
        guard allows(host: host) else {
            return DashboardError.response(421, "wrong-host", "the dashboard answers only to 127.0.0.1, localhost, [::1] or its own address, not \(host.prefix(100))")
        }
        guard presentsToken(request) else {
            return DashboardError.response(401, "dashboard-token", "the dashboard needs its access token: open the URL it printed at start (…/?token=…), or send X-Liveline-Dashboard-Token")
        }
        return nil
    }

    package func presentsToken(_ request: HTTPRequest) -> Bool {
        var presented: [String] = []
        if let q = request.queryValue("token") { presented.append(q) }
        if let h = request.header(Self.headerName) { presented.append(h) }
        if let a = request.header("authorization"), a.lowercased().hasPrefix("bearer ") { presented.append(String(a.dropFirst(7)).trimmingCharacters(in: .whitespaces)) }
        if let cookies = request.header("cookie") {
            for part in cookies.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0] == cookieName { presented.append(String(pair[1])) }
            }
        }
        let expected = Array(token.utf8)
        return presented.contains { Digest.constantTimeEqual(Array($0.utf8), expected) }
    }

    /// `response` with the security headers, and the access cookie when the token came in the query.
    package func secured(_ response: HTTPResponse, _ request: HTTPRequest) -> HTTPResponse {
        var response = response
        let present = Set(response.headers.map { $0.name.lowercased() })
        for header in Self.securityHeaders where !present.contains(header.name) { response.headers.append(header) }
        if request.queryValue("token") != nil, response.status < 400 {
            response.headers.append(("set-cookie", "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"))
        }
        return response
    }
}

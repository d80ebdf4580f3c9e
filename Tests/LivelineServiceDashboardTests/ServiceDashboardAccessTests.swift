import Foundation
import LivelineCore
import LivelineServiceDashboard
import LivelineTesting
import Testing

/// Who may read the service's dashboard (LivelineDashboardSupport's rules, as the simulator's page has them): the exact host names and the access token; and the headers
/// every answer carries. Against the real servers, with curl.
@Suite("The service's dashboard: access token, exact Host, security headers")
struct ServiceDashboardAccessTests {
    static func fetch(_ url: String, _ extra: [String] = []) async throws -> CurlAnswer { try await CurlAnswer.fetch(url, extra) }

    @Test("the service's page: no token 401, ?token= sets a cookie that then suffices, a wrong token 401; every answer has CSP and the usual headers")
    func serviceDashboardToken() async throws {
        try await ServiceDashboardFixture.with { f in
            let base = f.dashboard.url
            let bare = try await Self.fetch(base + "api/activities")
            #expect(bare.status == 401, "\(bare.body)")
            #expect(bare.body.contains("token"))
            #expect(try await Self.fetch(base + "api/activities", ["-H", "\(ServiceDashboard.tokenHeader): wrong"]).status == 401)
            #expect(try await Self.fetch(base + "?token=" + String(repeating: "0", count: 32)).status == 401)

            let visit = try await Self.fetch(f.dashboard.accessURL)
            #expect(visit.status == 200)
            #expect(visit.body.contains("<title>Liveline service</title>"))
            let cookie = try #require(visit.headers["set-cookie"])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let pair = String(cookie.split(separator: ";")[0])
            let withCookie = try await Self.fetch(base + "api/activities", ["-H", "Cookie: \(pair)"])
            #expect(withCookie.status == 200, "\(withCookie.body)")

            for answer in [bare, visit, withCookie] {
                let csp = answer.headers["content-security-policy"] ?? ""
                #expect(csp.contains("frame-ancestors 'none'") && csp.contains("script-src 'self'") && csp.contains("default-src 'self'"), "\(csp)")
                #expect(answer.headers["x-content-type-options"] == "nosniff")
                #expect(answer.headers["referrer-policy"] == "no-referrer")
            }
        }
    }

    @Test("a Host that only starts like loopback (127.0.0.1.rebind.example) is refused even with the token; the exact names are allowed")
    func exactHost() async throws {
        try await ServiceDashboardFixture.with { f in
            let port = f.dashboard.port
            let token = ["-H", "\(ServiceDashboard.tokenHeader): \(f.dashboard.token)"]
            for host in ["127.0.0.1.rebind.example", "127.0.0.1.rebind.example:\(port)", "localhost.evil.example", "127.0.0.2", "[::2]:\(port)", "127.0.0.1:x", "127.0.0.1:"] {
                let answer = try await Self.fetch(f.dashboard.url + "api/activities", token + ["-H", "Host: \(host)"])
                #expect(answer.status == 421, "Host \(host) answered \(answer.status)")
            }
            for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "127.0.0.1", "LOCALHOST"] {
                let answer = try await Self.fetch(f.dashboard.url + "api/activities", token + ["-H", "Host: \(host)"])
                #expect(answer.status == 200, "Host \(host) answered \(answer.status): \(answer.body)")
            }
        }
    }
}

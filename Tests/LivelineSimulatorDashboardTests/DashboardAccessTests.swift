import Foundation
import LivelineCore
import LivelineSimulatorDashboard
import LivelineTesting
import Testing

/// Who may read the simulator's dashboard: the exact host names and the access token; and the headers
/// every answer carries. Against the real servers, with curl.
@Suite("The simulator's dashboard: access token, exact Host, security headers")
struct DashboardAccessTests {
    static func fetch(_ url: String, _ extra: [String] = []) async throws -> CurlAnswer { try await CurlAnswer.fetch(url, extra) }

    @Test("the simulator's dashboard: its control routes need the token too, and refuse a rebinding Host")
    func simulatorDashboardToken() async throws {
        try await DashboardFixture.with { f in
            let status = f.dashboard.url + "simulator/v1/status"
            #expect(try await Self.fetch(status).status == 401)
            let token = ["-H", "\(Dashboard.tokenHeader): \(f.dashboard.token)"]
            #expect(try await Self.fetch(status, token).status == 200)
            #expect(try await Self.fetch(status, token + ["-H", "Host: 127.0.0.1.rebind.example"]).status == 421)
            let post = try await Self.fetch(f.dashboard.url + "simulator/v1/clock/advance", ["-X", "POST", "-H", "content-type: application/json", "--data-binary", #"{"seconds": 60}"#])
            #expect(post.status == 401)
            #expect(post.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
        }
    }
}

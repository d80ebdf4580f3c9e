import Foundation
import LivelineCore
import LivelineProcess
import LivelineSimulatorDashboard
import LivelineTesting
import Testing

/// Who may read the simulator's dashboard: the exact host names and the access token; and the headers
/// every answer carries. Against the real servers, with curl.
@Suite("The simulator's dashboard: access token, exact Host, security headers")
struct DashboardAccessTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// curl `url` with `extra` arguments; the status, the headers (lowercased names) and the body.
    static func fetch(_ url: String, _ extra: [String] = []) async throws -> Answer {
        let output = try await ProcessRunner.run("/usr/bin/curl", ["-s", "-i", "--max-time", "30"] + extra + [url])
        let text = output.stdoutText
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        var headers: [String: String] = [:]
        let lines = head.components(separatedBy: "\r\n")
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Answer(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

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

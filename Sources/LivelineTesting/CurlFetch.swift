import Foundation
import LivelineProcess

/// One HTTP exchange through curl (a third-party client, as a browser or an operator's script would
/// make it): the status, the headers by lower-cased name, and the body.
public struct CurlAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    /// curl `url` with `extra` arguments (headers, a method, a body), at most 30 s.
    public static func fetch(_ url: String, _ extra: [String] = []) async throws -> CurlAnswer {
        let output = try await ProcessRunner.run("/usr/bin/curl", ["-s", "-i", "--max-time", "30"] + extra + [url])
        let parts = output.stdoutText.components(separatedBy: "\r\n\r\n")
        let lines = (parts.first ?? "").components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        return CurlAnswer(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}

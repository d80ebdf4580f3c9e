import Foundation
import LivelineProcess
import LivelineTesting

/// What curl got: the final status (after any `100 Continue`), headers and body.
struct CurlResult: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var exitCode: Int32

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs Debian's curl with `arguments` (plus `-sS`, and files for the headers and body).
func curl(_ arguments: [String]) async throws -> CurlResult {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-http-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let headerFile = directory.appendingPathComponent("headers")
    let bodyFile = directory.appendingPathComponent("body")
    // ProcessRunner, not Foundation's Process: Process.run overruns a buffer when this process
    // holds descriptors past 1024 (HTTPSlowClientTests holds 1,000 connections beside it), and
    // crashed the whole test run. --max-time is the deadline of every curl call (a later
    // --max-time in `arguments` wins).
    let exitCode = try await ProcessRunner.run("/usr/bin/curl", ["-sS", "--max-time", "120", "-D", headerFile.path, "-o", bodyFile.path] + arguments).status
    let head = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
    let body = (try? Data(contentsOf: bodyFile)).map { [UInt8]($0) } ?? []
    // The last block is the final response (curl also writes "100 Continue" blocks).
    let blocks = head.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    var lines = (blocks.last ?? "").components(separatedBy: "\r\n")
    let statusLine = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ")
    let status = statusLine.count >= 2 ? Int(statusLine[1]) ?? 0 : 0
    let headers = lines.compactMap { line -> (name: String, value: String)? in
        guard let colon = line.firstIndex(of: ":") else { return nil }
        return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return CurlResult(status: status, headers: headers, body: body, exitCode: exitCode)
}

/// A file holding `bytes`, removed when `body` returns.
func withTemporaryFile<R>(_ bytes: [UInt8], _ body: (String) async throws -> R) async throws -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-http-body-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url.path)
}

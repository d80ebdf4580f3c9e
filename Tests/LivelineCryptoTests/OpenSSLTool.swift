import Foundation
import LivelineProcess
import LivelineTesting

/// Runs the `openssl` command-line tool: the independent implementation the tests check against.
struct OpenSSLTool {
    struct Output {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// A fresh directory for one test's files, removed by `remove()`.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-crypto-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    /// Runs `openssl` in `directory` on a dedicated thread (LivelineTesting's `ProcessRunner`).
    @discardableResult
    func run(_ arguments: [String]) async throws -> Output {
        let result = try await ProcessRunner.run("/usr/bin/openssl", arguments, directory: directory)
        return Output(status: result.status, stdout: Array(result.stdout), stderr: result.stderrText)
    }

    /// Runs and requires exit status 0.
    @discardableResult
    func must(_ arguments: [String]) async throws -> Output {
        let output = try await run(arguments)
        guard output.status == 0 else { throw ToolFailure(arguments: arguments, stderr: output.stderr) }
        return output
    }

    /// Generates a key with `openssl genpkey` and returns its file path.
    func generateKey(_ name: String, _ options: [String]) async throws -> String {
        try await must(["genpkey"] + options + ["-out", path(name)])
        return path(name)
    }

    func generateP256(_ name: String = "AuthKey_ABC123DEFG.p8") async throws -> String {
        try await generateKey(name, ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var arguments: [String]
        var stderr: String
        var description: String { "openssl \(arguments.joined(separator: " ")) failed: \(stderr)" }
    }
}

/// DER for an ECDSA signature, written here from the ASN.1 rules, independent of OpenSSL.
func derSignature(fromRaw raw: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(raw[0..<32]) + integer(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}

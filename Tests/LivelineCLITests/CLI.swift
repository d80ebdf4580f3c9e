import Foundation
import LivelineProcess
import LivelineTesting
import Testing

/// Runs the built `liveline` and `liveline-bench` binaries and captures what they print.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary beside the test bundle (`swift build --build-tests` builds both).
    static let binary = URL(fileURLWithPath: BuiltProduct.path("liveline"))
    /// The benchmarks' executable, built beside `liveline`.
    static let benchBinary = URL(fileURLWithPath: BuiltProduct.path("liveline-bench"))

    /// Runs `liveline args...` in `directory`, feeding `stdin`, and waits for it to exit (on a
    /// dedicated thread: LivelineProcess's `ProcessRunner`) for at most `limit`.
    /// - Throws: `TestingError` with what it printed when it ran past `limit` (it is killed then,
    ///   with whatever it started).
    static func run(_ args: [String], stdin: String? = nil, in directory: URL? = nil, executable: URL = binary,
                    within limit: Duration = .seconds(300)) async throws -> Result {
        let output = try await ProcessRunner.run(executable.path, args, stdin: Data((stdin ?? "").utf8), directory: directory, within: limit)
        guard !output.timedOut else {
            throw TestingError("`\(executable.lastPathComponent) \(args.joined(separator: " "))` did not exit within \(limit) (killed): \(output.stdoutText.suffix(1000)) \(output.stderrText.suffix(1000))")
        }
        return Result(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }

    /// Runs `liveline-bench args...` and waits for it to exit.
    static func bench(_ args: [String], stdin: String? = nil) async throws -> Result {
        try await run(args, stdin: stdin, executable: benchBinary)
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

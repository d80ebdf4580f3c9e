import Foundation
import LivelineTesting
import Testing

/// Runs the built `liveline` binary and captures what it prints.
struct CLI {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary beside the test bundle (`swift build --build-tests` builds both).
    static let binary = URL(fileURLWithPath: BuiltProduct.path("liveline"))

    /// Runs `liveline args...` in `directory`, feeding `stdin`, and waits for it to exit (on a
    /// dedicated thread: LivelineTesting's `ProcessRunner`).
    static func run(_ args: [String], stdin: String? = nil, in directory: URL? = nil) async throws -> Result {
        let output = try await ProcessRunner.run(binary.path, args, stdin: Data((stdin ?? "").utf8), directory: directory)
        return Result(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }

    /// A fresh temporary directory, removed by the caller.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

import Foundation
import LivelineProcess
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Bounded waits on a `RunningProcess` (LivelineProcess) for tests: the deadline counts runnable
/// time (`RunnableClock`, see Waiting.swift), and past it the process is killed and the wait fails
/// naming the program, the limit and the end of its output.
extension RunningProcess {
    /// Waits until the output contains `needle`, for at most `limit`; past it, kills the process
    /// (which ends the wait) and throws.
    /// - Throws: `TestingError` with the end of the output when `needle` did not come in time;
    ///   `ProcessError` when the program closed its output first.
    public func output(containing needle: String, within limit: Duration) async throws -> String {
        let outcome = await finished(within: limit) { () async -> Result<String, any Error> in
            do { return .success(try await self.output(containing: needle)) } catch { return .failure(error) }
        }
        guard let outcome else {
            send(SIGKILL)  // ends the abandoned wait
            throw TestingError("\(name) printed no \"\(needle)\" within \(limit): \(standardOutput.suffix(2000))")
        }
        return try outcome.get()
    }

    /// Waits for the exit for at most `limit`; past it, kills the process and throws.
    /// - Returns: the exit code, or 128 + the signal that killed it.
    /// - Throws: `TestingError` naming the program, `limit` and the end of its output.
    public func exitStatus(within limit: Duration) async throws -> Int32 {
        guard let status = await finished(within: limit, { await self.exitStatus() }) else {
            send(SIGKILL)
            throw TestingError("\(name) did not exit within \(limit) (killed): \(standardOutput.suffix(2000))")
        }
        return status
    }
}

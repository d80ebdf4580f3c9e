import Foundation

/// Runs blocking work (a synchronous tool, file generation) on a new thread of its own, so the
/// awaiting task leaves Swift concurrency's few cooperative threads free meanwhile.
public enum DedicatedThread {
    /// Runs `body` on a new thread and returns its result (or rethrows its error).
    /// - Throws: whatever `body` throws.
    public static func run<T: Sendable>(name: String = "blocking work", _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.name = name
            thread.start()
        }
    }
}

import Foundation

/// Runs blocking work (socket reads, waiting for a process) on a thread of its own, so the
/// concurrency pool (two threads on a 2-core machine) stays free for the handlers under test.
func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.name = "test-blocking"
        thread.start()
    }
}

import CEpoll
import Foundation
import Synchronization

extension SocketAddress {
    /// Resolves a host name to addresses for a TCP port; blocking (the system resolver's way).
    typealias Resolver = @Sendable (_ host: String, _ port: Int) throws(HTTP2Error) -> [SocketAddress]

    /// The system resolver (`getaddrinfo`).
    static let systemResolver: Resolver = { host, port throws(HTTP2Error) in try resolve(host: host, port: port) }

    /// Resolves `host` on a thread of its own, so a slow resolver blocks no cooperative thread,
    /// and gives up after `limit`.
    ///
    /// - Returns: the addresses and how long the resolver took, measured on its thread (time the
    ///   caller then waits to be scheduled is not the resolver's).
    ///
    /// `getaddrinfo` cannot be interrupted: after `limit` its thread is left to finish and its
    /// answer is dropped.
    /// - Throws: `HTTP2Error` `.resolveFailed` (naming the host) or `.connectTimeout` when no
    ///   answer came within `limit`.
    static func resolve(host: String, port: Int, within limit: Duration, resolver: @escaping Resolver = systemResolver) async throws(HTTP2Error) -> (addresses: [SocketAddress], took: Duration) {
        let outcome = ResolutionOutcome()
        let started = ContinuousClock.now
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>) in
            outcome.begin(continuation)
            let name = "resolve \(host)"
            let thread = Thread {
                _ = liveline_set_thread_name(String(name.prefix(15)))
                do throws(HTTP2Error) {
                    let addresses = try resolver(host, port)
                    outcome.finish(.success((addresses, ContinuousClock.now - started)))
                } catch {
                    outcome.finish(.failure(error))
                }
            }
            thread.name = name
            thread.stackSize = 1 << 18
            thread.start()
            outcome.setTimer(Task {
                try? await Task.sleep(for: limit)
                if !Task.isCancelled {
                    outcome.finish(.failure(HTTP2Error(.connectTimeout, "cannot resolve host \(host) within the connect timeout of \(limit): the resolver did not answer")))
                }
            })
        }
        return try result.get()
    }
}

/// The first answer of a resolution (the resolver's or the timer's), delivered once.
private final class ResolutionOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>?
        var timer: Task<Void, Never>?
        var done = false
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Keeps the timer so the answer can stop it; stops it at once when the answer came first.
    func setTimer(_ timer: Task<Void, Never>) {
        let done = state.withLock { s -> Bool in
            if !s.done { s.timer = timer }
            return s.done
        }
        if done { timer.cancel() }
    }

    func finish(_ result: Result<([SocketAddress], Duration), HTTP2Error>) {
        let (continuation, timer) = state.withLock { s -> (CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>?, Task<Void, Never>?) in
            guard !s.done else { return (nil, nil) }
            s.done = true
            defer { s.continuation = nil; s.timer = nil }
            return (s.continuation, s.timer)
        }
        timer?.cancel()
        continuation?.resume(returning: result)
    }
}

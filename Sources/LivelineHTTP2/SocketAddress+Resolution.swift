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
    ///
    /// The limit runs from this call, on a Dispatch timer: not on a task of Swift concurrency's
    /// cooperative pool, whose few threads may all be busy (blocking work elsewhere in the
    /// process) for longer than the limit. A timer task would start its sleep only once a thread
    /// picked it up, and fire only once another did; the Dispatch timer resumes this caller on
    /// time, so it is next in line for a thread, ahead of work whose deadlines came later.
    /// - Throws: `HTTP2Error` `.resolveFailed` (naming the host) or `.connectTimeout` when no
    ///   answer came within `limit`.
    static func resolve(host: String, port: Int, within limit: Duration, resolver: @escaping Resolver = systemResolver) async throws(HTTP2Error) -> (addresses: [SocketAddress], took: Duration) {
        let outcome = ResolutionOutcome()
        let started = ContinuousClock.now
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: limit.nanoseconds))
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>) in
            outcome.begin(continuation)
            runOnOwnThread(host: host, port: port, resolver: resolver) { result in outcome.finish(result.map { addresses in (addresses, ContinuousClock.now - started) }) }
            // After an answer the timer finds the outcome done and does nothing.
            DispatchQueue.global().asyncAfter(deadline: deadline) {
                outcome.finish(.failure(HTTP2Error(.connectTimeout, "cannot resolve host \(host) within the connect timeout of \(limit): the resolver did not answer")))
            }
        }
        return try result.get()
    }

    /// The addresses of a listening socket for `host:port`: a numeric IPv4 or IPv6 address is
    /// parsed without asking any resolver; a name is resolved on a thread of its own, the caller
    /// waiting at most `limit` (a synchronous caller cannot be suspended instead).
    /// - Throws: `HTTP2Error` `.resolveFailed` naming the host, when the resolver fails or gives
    ///   no answer within `limit`.
    static func listenAddresses(host: String, port: Int, within limit: Duration, resolver: @escaping Resolver = systemResolver) throws(HTTP2Error) -> [SocketAddress] {
        if let numeric = SocketAddress(numericHost: host, port: port) { return [numeric] }
        let answer = Mutex<Result<[SocketAddress], HTTP2Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        runOnOwnThread(host: host, port: port, resolver: resolver) { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        // Bounded: getaddrinfo cannot be interrupted, so after `limit` its thread is left to finish.
        guard answered.wait(timeout: .now() + .nanoseconds(Int(clamping: limit.nanoseconds))) == .success,
              let result = answer.withLock({ $0 })
        else {
            throw HTTP2Error(.resolveFailed, "cannot resolve listen host \(host) within \(limit): the resolver did not answer; give a numeric address (127.0.0.1, ::1, 0.0.0.0) to listen without one")
        }
        return try result.get()
    }

    /// Runs `resolver` for `host` on a new thread named `resolve <host>` and hands its answer to `deliver` there.
    private static func runOnOwnThread(host: String, port: Int, resolver: @escaping Resolver,
                                       deliver: @escaping @Sendable (Result<[SocketAddress], HTTP2Error>) -> Void) {
        let name = "resolve \(host)"
        let thread = Thread {
            _ = liveline_set_thread_name(String(name.prefix(15)))
            do throws(HTTP2Error) {
                deliver(.success(try resolver(host, port)))
            } catch {
                deliver(.failure(error))
            }
        }
        thread.name = name
        thread.stackSize = 1 << 18
        thread.start()
    }
}

/// The first answer of a resolution (the resolver's or the timer's), delivered once.
private final class ResolutionOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>?
        var done = false
    }

    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func finish(_ result: Result<([SocketAddress], Duration), HTTP2Error>) {
        let continuation = state.withLock { s -> CheckedContinuation<Result<([SocketAddress], Duration), HTTP2Error>, Never>? in
            guard !s.done else { return nil }
            s.done = true
            defer { s.continuation = nil }
            return s.continuation
        }
        continuation?.resume(returning: result)
    }
}

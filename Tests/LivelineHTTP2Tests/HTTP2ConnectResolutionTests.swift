import Foundation
@testable import LivelineHTTP2
import LivelineTesting
import Synchronization
import Testing

/// Connecting and failing with an `HTTP2Error`, or nil when it connected.
private func connectError(_ host: String, timeout: Duration, resolver: @escaping SocketAddress.Resolver = SocketAddress.systemResolver) async -> HTTP2Error? {
    do {
        let connection = try await HTTP2Connection.connect(
            host: host, port: 443, configuration: HTTP2ClientConfiguration(connectTimeout: timeout), resolver: resolver)
        await connection.close(drain: false)
        return nil
    } catch {
        return error
    }
}

@Suite("HTTP2Connection name resolution")
struct HTTP2ConnectResolutionTests {
    /// `.invalid` never resolves (RFC 6761): depending on the machine's resolver the answer is
    /// "not found" at once, or no answer until the connect timeout; either way the error names
    /// the host and arrives within the timeout.
    @Test("connecting to an unresolvable name fails within connectTimeout, naming the host")
    func unresolvableName() async throws {
        let host = "no-such-host.invalid"
        let timeout = Duration.seconds(3)
        let outcome = await finished(within: timeout * 3) { await connectError(host, timeout: timeout) }
        guard let outcome else { Issue.record("connect did not finish within 3 × connectTimeout"); return }
        guard let error = outcome else { Issue.record("connected to \(host)"); return }
        #expect(error.code == .resolveFailed || error.code == .connectTimeout, "\(error)")
        #expect(error.message.contains(host), "\(error.message)")
    }

    /// A resolver that hangs (staged: it sleeps its thread far past the timeout) cannot hold the
    /// connect past connectTimeout, and it hangs on a thread of its own, not a cooperative one.
    @Test("a resolver that does not answer ends in connectTimeout naming the host, on its own thread")
    func hangingResolver() async throws {
        let host = "slow.example"
        let timeout = Duration.milliseconds(300)
        let onCooperativeThread = Atomic<Bool>(true)
        let release = DispatchSemaphore(value: 0)
        let resolver: SocketAddress.Resolver = { _, _ throws(HTTP2Error) in
            // The resolver's thread carries its own name (the kernel keeps 15 bytes of it).
            let threadName = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            onCooperativeThread.store(!threadName.hasPrefix("resolve "), ordering: .relaxed)
            // The behaviour staged: no answer until the test has its outcome (at most 300 s).
            _ = release.wait(timeout: .now() + 300)
            throw HTTP2Error(.resolveFailed, "released")
        }
        // Beside the whole suite, synchronous tests (libpq, SQLite) hold both cooperative threads
        // for tens of seconds. The connect's timeout fires on a Dispatch timer 300 ms after the
        // call, so its answer is queued for the first free thread; the watchdog counts only time
        // in which tasks could run (LivelineTesting's RunnableClock), so it does not expire while
        // that answer waits its turn. (Both used to be tasks on the pool: the watchdog's wake-up
        // came first once the threads were free, and the test failed.)
        let outcome = await finished(within: .seconds(10)) { await connectError(host, timeout: timeout, resolver: resolver) }
        release.signal()
        guard let outcome else { Issue.record("connect did not finish while the resolver hung"); return }
        guard let error = outcome else { Issue.record("connected to \(host)"); return }
        #expect(error.code == .connectTimeout, "\(error)")
        #expect(error.message.contains(host) && error.message.contains("resolve"), "\(error.message)")
        let ranOnCooperativeThread = onCooperativeThread.load(ordering: .relaxed)
        #expect(!ranOnCooperativeThread)
    }
}

#if canImport(Glibc)
import Glibc
#endif
@testable import LivelineHTTP2
import Testing

@Suite("AcceptBackoff: what the accept loop does after accept4 fails")
struct AcceptBackoffTests {
    @Test("out of descriptors or memory: pause 100 ms, logging the first failure of each run", arguments: [EMFILE, ENFILE, ENOBUFS, ENOMEM])
    func pausesOnResourceExhaustion(code: Int32) {
        var backoff = AcceptBackoff()
        #expect(backoff.acceptFailed(errno: code) == .pause(.milliseconds(100), log: true))
        #expect(backoff.acceptFailed(errno: code) == .pause(.milliseconds(100), log: false))
        #expect(backoff.acceptFailed(errno: EMFILE) == .pause(.milliseconds(100), log: false))
        backoff.acceptSucceeded()
        #expect(backoff.acceptFailed(errno: code) == .pause(.milliseconds(100), log: true))
    }

    @Test("EAGAIN waits for the next event; an aborted connection or a signal retries at once")
    func waitsAndRetries() {
        var backoff = AcceptBackoff()
        #expect(backoff.acceptFailed(errno: EAGAIN) == .wait)
        #expect(backoff.acceptFailed(errno: ECONNABORTED) == .retry)
        #expect(backoff.acceptFailed(errno: EINTR) == .retry)
        #expect(!backoff.logged)
    }

    @Test("an unexpected error pauses too, so the loop never spins")
    func unexpectedErrorPauses() {
        var backoff = AcceptBackoff(pause: .milliseconds(20))
        #expect(backoff.acceptFailed(errno: EINVAL) == .pause(.milliseconds(20), log: true))
    }
}

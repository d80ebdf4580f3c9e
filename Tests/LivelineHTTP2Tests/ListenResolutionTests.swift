import Foundation
@testable import LivelineHTTP2
import LivelineTesting
import Synchronization
import Testing

/// `Socket.listen` resolves its address the way connect does: numeric addresses without any
/// resolver, names on a thread of their own, bounded, with an error that names the host.
@Suite("Listening: address resolution")
struct ListenResolutionTests {
    /// Counts the calls of a resolver.
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A resolver that must not be asked.
    static func refusing(_ calls: Calls) -> SocketAddress.Resolver {
        { host, _ throws(HTTP2Error) in
            calls.count.add(1, ordering: .relaxed)
            throw HTTP2Error(.resolveFailed, "asked to resolve \(host)")
        }
    }

    @Test("numeric IPv4 and IPv6 addresses are bound without asking the resolver", arguments: ["127.0.0.1", "0.0.0.0", "::1", "::"])
    func numericAddresses(host: String) throws {
        let calls = Calls()
        let outcome = Result { () throws(HTTP2Error) in
            try Socket.listen(host: host, port: 0, resolveTimeout: .seconds(5), resolver: Self.refusing(calls))
        }
        if case .failure(let error) = outcome, host.contains(":"), error.code == .listenFailed, error.message.contains("Cannot assign requested address") {
            #expect(calls.count.load(ordering: .relaxed) == 0)
            return  // no IPv6 on this machine's loopback; what matters is that no resolver was asked
        }
        let listener = try outcome.get()
        defer { close(listener.fd) }
        #expect(calls.count.load(ordering: .relaxed) == 0)
        #expect(listener.address.port > 0)
        #expect(listener.address.family == (host.contains(":") ? AF_INET6 : AF_INET))
        #expect(SocketAddress(numericHost: host, port: 443)?.port == 443)
    }

    @Test("names and malformed literals are not taken for numeric addresses", arguments: ["localhost", "127.0.0.1.example", "1.2.3", "[::1]", " 127.0.0.1", ""])
    func notNumeric(host: String) {
        #expect(SocketAddress(numericHost: host, port: 443) == nil)
    }

    @Test("a name is resolved on a thread of its own and bound")
    func nameResolvesOffTheCallersThread() throws {
        let threadName = Mutex("")
        let resolver: SocketAddress.Resolver = { _, port throws(HTTP2Error) in
            threadName.withLock { $0 = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "" }
            return [SocketAddress(numericHost: "127.0.0.1", port: port)!]
        }
        let listener = try Socket.listen(host: "loopback.example", port: 0, resolveTimeout: .seconds(5), resolver: resolver)
        defer { close(listener.fd) }
        #expect(listener.address.description.hasPrefix("127.0.0.1:"))
        #expect(threadName.withLock { $0 }.hasPrefix("resolve "))
    }

    @Test("a resolver that does not answer fails the listen after resolveTimeout, naming the host")
    func hangingResolver() throws {
        let release = DispatchSemaphore(value: 0)
        let resolver: SocketAddress.Resolver = { _, _ throws(HTTP2Error) in
            // The behaviour under test: a resolver that does not answer (on the resolver's own
            // thread), until the test ends and releases it; bounded all the same.
            _ = release.wait(timeout: .now() + 300)
            throw HTTP2Error(.resolveFailed, "released")
        }
        defer { release.signal() }
        let started = ContinuousClock.now
        #expect {
            _ = try Socket.listen(host: "slow.example", port: 0, resolveTimeout: .milliseconds(300), resolver: resolver)
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .resolveFailed && error.message.contains("slow.example") && error.message.contains("0.3 seconds")
        }
        // Bounded by the timeout (with room for a loaded machine), not by the resolver.
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("a name that does not resolve fails the server's start with the resolver's reason and the host")
    func unresolvableName() throws {
        let pki = try TestPKI.shared()
        var configuration = HTTP2ServerConfiguration(identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path),
                                                     host: "no-such-host.invalid", resolveTimeout: .seconds(3))
        #expect {
            _ = try HTTP2Server.start(configuration: configuration) { _, responder in responder.respond(status: 200) }
        } throws: { error in
            guard let error = error as? HTTP2Error else { return false }
            return error.code == .resolveFailed && error.message.contains("no-such-host.invalid")
        }
        configuration.resolveTimeout = .zero
        #expect {
            _ = try HTTP2Server.start(configuration: configuration) { _, responder in responder.respond(status: 200) }
        } throws: { error in
            (error as? HTTP2Error)?.code == .invalidArgument && "\(error)".contains("resolveTimeout")
        }
    }

    @Test("a server started on localhost serves")
    func localhostServes() async throws {
        let pki = try TestPKI.shared()
        let server = try HTTP2Server.start(configuration: HTTP2ServerConfiguration(
            identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path), host: "localhost")) { _, responder in
            responder.respond(status: 200, body: Array("ok".utf8))
        }
        let connection = try await connect(server, pki)
        #expect(try await connection.send(HTTP2Request(path: "/")).status == 200)
        await connection.close()
        await server.stop()
    }
}

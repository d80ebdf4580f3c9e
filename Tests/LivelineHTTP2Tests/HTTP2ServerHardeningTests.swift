import Foundation
import LivelineHTTP2
import LivelineTesting
import Testing

/// A configuration with `pki`'s server certificate on 127.0.0.1 port 0, changed by `adjust`.
func serverConfiguration(_ pki: TestPKI, _ adjust: (inout HTTP2ServerConfiguration) -> Void = { _ in }) -> HTTP2ServerConfiguration {
    var configuration = HTTP2ServerConfiguration(
        identity: TLSIdentity(certificateFile: pki.serverCertificate.path, keyFile: pki.serverKey.path))
    adjust(&configuration)
    return configuration
}

@Suite("HTTP2Server hardening: limits, timeouts, fairness")
struct HTTP2ServerHardeningTests {
    @Test("a 10 MB body over the default 1 MiB limit gets 413 PayloadTooLarge; the connection then serves another request")
    func bodyTooLarge() async throws {
        let pki = try TestPKI.shared()
        let calls = Locked(0)
        let server = try HTTP2Server.start(configuration: serverConfiguration(pki)) { request, responder in
            calls.withLock { $0 += 1 }
            responder.respond(status: 200, body: Array("\(request.body.count)".utf8))
        }
        let connection = try await connect(server, pki, requestTimeout: .seconds(60))
        let response = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abcd", body: Array(repeating: 7, count: 10_000_000)))
        #expect(response.status == 413)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.bodyText == #"{"reason":"PayloadTooLarge"}"#)
        let next = try await connection.send(HTTP2Request(method: "POST", path: "/3/device/abcd", body: Array(repeating: 7, count: 1000)))
        #expect(next.status == 200)
        #expect(next.bodyText == "1000")
        #expect(connection.isUsable)
        #expect(calls.withLock { $0 } == 1)
        await connection.close()
        await server.stop()
    }
}

import Foundation
import LivelineCore
import LivelineHTTPServer
import LivelineService
import LivelineProcess
import LivelineTesting
import Testing

/// `liveline serve` terminating TLS itself (tlsCertFile, tlsKeyFile), on both listeners; the client
/// is curl verifying against a CA made for the run.
@Suite("Service: TLS on its listeners")
struct ServiceTLSTests {
    @Test("with a certificate and key both listeners answer HTTPS that verifies, and plain HTTP gets nothing")
    func https() async throws {
        try #require(HTTPServerTLS.isSupported, "Debian's libmicrohttpd is built with GnuTLS")
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.database = ":memory:"
        configuration.adminListen = "127.0.0.1:0"
        configuration.tlsCertFile = pki.serverCertificate.path
        configuration.tlsKeyFile = pki.serverKey.path
        let server = try ServiceServer.start(configuration) { _ in }
        var failure: (any Error)?
        do {
            let admin = try #require(server.adminURL)
            #expect(server.url.hasPrefix("https://") && admin.hasPrefix("https://"))
            let health = try await ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", pki.caCertificate.path, server.url + "/healthz"])
            #expect(health.stdoutText.contains("\"status\":\"ok\""), "\(health.stdoutText)")
            let apps = try await ProcessRunner.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "--cacert", pki.caCertificate.path,
                                                                     "-H", "Authorization: Bearer \(server.firstAdminKey ?? "")", admin + "/v1/apps"])
            #expect(apps.stdoutText.hasSuffix("\n200"), "\(apps.stdoutText)")
            let port = server.url.split(separator: ":").last.map(String.init) ?? ""
            let plain = try await ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "10", "-w", "%{http_code}", "http://127.0.0.1:\(port)/healthz"])
            #expect(!plain.stdoutText.contains("ok"), "plain HTTP was answered: \(plain.stdoutText)")
        } catch {
            failure = error
        }
        await server.stop()
        if let failure { throw failure }
    }

    @Test("a certificate without its key (or the reverse) stops the start, naming both settings")
    func bothOrNeither() throws {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.database = ":memory:"
        configuration.tlsCertFile = "/nonexistent/cert.pem"
        #expect {
            _ = try ServiceServer.start(configuration) { _ in }
        } throws: { "\($0)".contains("tlsCertFile (--tls-cert) and tlsKeyFile (--tls-key) go together") }
    }
}

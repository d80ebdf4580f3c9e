import Foundation
import LivelineHTTPServer
import LivelineProcess
import LivelineTesting
import Testing

/// HTTPS with a certificate made at run time by `TestPKI`; the client is curl verifying it
/// against the test CA (verification is never switched off).
@Suite("HTTPServer: TLS termination")
struct HTTPServerTLSTests {
    @Test("with tls set, the server answers HTTPS that verifies against the test CA, for the certificate's IP and name")
    func servesVerifiedHTTPS() async throws {
        try #require(HTTPServerTLS.isSupported, "Debian's libmicrohttpd is built with GnuTLS")
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        try await withServer({
            $0.tls = HTTPServerTLS(certificateFile: pki.serverCertificate.path, privateKeyFile: pki.serverKey.path)
        }, handler: { request in
            .text(200, "secret over TLS for \(request.path)")
        }) { server in
            #expect(server.isTLS)
            #expect(server.url == "https://127.0.0.1:\(server.port)")
            let byAddress = try await curl(["--cacert", pki.caCertificate.path, "\(server.url)/hello"])
            #expect(byAddress.exitCode == 0)
            #expect(byAddress.status == 200)
            #expect(byAddress.text == "secret over TLS for /hello")
            let byName = try await curl(["--cacert", pki.caCertificate.path,
                                         "--resolve", "localhost:\(server.port):127.0.0.1",
                                         "https://localhost:\(server.port)/name"])
            #expect(byName.text == "secret over TLS for /name")
        }
    }

    @Test("a client that does not trust the CA, or speaks plain HTTP to the TLS port, gets nothing from the handler")
    func refusesUnverifiedAndPlain() async throws {
        try #require(HTTPServerTLS.isSupported)
        let pki = try await TestPKI.make()
        let other = try await TestPKI.make()
        defer { pki.remove(); other.remove() }
        let calls = Recorder<String>()
        try await withServer({
            $0.tls = HTTPServerTLS(certificateFile: pki.serverCertificate.path, privateKeyFile: pki.serverKey.path)
        }, handler: { request in
            calls.append(request.path)
            return .text(200, "secret")
        }) { server in
            let untrusted = try await curl(["--cacert", other.caCertificate.path, "\(server.url)/untrusted"])
            #expect(untrusted.exitCode == 60, "curl exit \(untrusted.exitCode): the certificate must fail verification")
            #expect(!untrusted.text.contains("secret"))
            let plain = try await curl(["--max-time", "10", "http://127.0.0.1:\(server.port)/plain"])
            #expect(plain.exitCode != 0 || plain.status != 200, "plain HTTP was answered \(plain.status)")
            #expect(!plain.text.contains("secret"))
        }
        #expect(calls.all.isEmpty, "the handler saw \(calls.all)")
    }

    @Test("TLS 1.2 and 1.3 are accepted; a client offering only TLS 1.1 or 1.0 gets no session (checked with openssl s_client)", arguments: [("-tls1_3", true), ("-tls1_2", true), ("-tls1_1", false), ("-tls1", false)])
    func protocolVersions(_ version: String, accepted: Bool) async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        try await withServer({
            $0.tls = HTTPServerTLS(certificateFile: pki.serverCertificate.path, privateKeyFile: pki.serverKey.path)
        }, handler: { _ in .text(200, "ok") }) { server in
            // SECLEVEL=0 lets this OpenSSL offer the old versions at all; stdin is empty, so
            // s_client ends after the handshake; `timeout` is the deadline.
            let port = server.port
            let run = try await ProcessRunner.run("/usr/bin/timeout", ["60", TestPKI.opensslPath, "s_client", "-connect", "127.0.0.1:\(port)", version,
                                                                  "-cipher", "DEFAULT:@SECLEVEL=0", "-CAfile", pki.caCertificate.path], stdin: Data())
            let output = run.stdoutText + run.stderrText
            let negotiated = !output.contains("Cipher is (NONE)") && output.contains("Cipher is ")
            #expect(negotiated == accepted, "\(version): \(output.split(separator: "\n").filter { $0.contains("Cipher") || $0.contains("alert") || $0.contains("error") }.joined(separator: " | "))")
            if accepted { #expect(output.contains("Verify return code: 0 (ok)"), "\(version): the test CA must verify the certificate") }
        }
    }

    @Test("a missing or non-PEM certificate or key file stops the start with an error naming the file")
    func badFiles() async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        let missing = pki.directory.appendingPathComponent("missing.pem").path
        let cases: [(HTTPServerTLS, [String])] = [
            (HTTPServerTLS(certificateFile: missing, privateKeyFile: pki.serverKey.path), ["TLS certificate file \(missing)"]),
            (HTTPServerTLS(certificateFile: pki.serverCertificate.path, privateKeyFile: missing), ["TLS private key file \(missing)"]),
            (HTTPServerTLS(certificateFile: pki.serverKey.path, privateKeyFile: pki.serverKey.path), ["holds no PEM block", "BEGIN CERTIFICATE"]),
            (HTTPServerTLS(certificateFile: pki.serverCertificate.path, privateKeyFile: pki.garbageKey.path), ["cannot listen on 127.0.0.1:0"]),
        ]
        for (tls, fragments) in cases {
            var configuration = HTTPServerConfiguration()
            configuration.tls = tls
            let error = #expect(throws: HTTPServerError.self) {
                let server = try HTTPServer.start(configuration) { _ in .text(200, "") }
                Issue.record("started on \(server.url)")
            }
            for fragment in fragments {
                #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "no error")")
            }
        }
    }
}

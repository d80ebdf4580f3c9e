import Foundation
import LivelineProcess
import LivelineTesting
import Testing

/// Runs a tool (on a dedicated thread) and returns its exit status and its output, stdout then stderr.
func runTool(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let result = try await ProcessRunner.run(path, arguments)
    return (result.status, result.stdoutText + result.stderrText)
}

@Suite("TestPKI")
struct TestPKITests {
    @Test("server and client certificates verify against their own CA")
    func certificatesVerify() async throws {
        let pki = try TestPKI.shared()
        for certificate in [pki.serverCertificate, pki.clientCertificate] {
            let result = try await runTool(TestPKI.opensslPath, ["verify", "-CAfile", pki.caCertificate.path, certificate.path])
            #expect(result.status == 0, "\(result.output)")
        }
        let host = try await runTool(TestPKI.opensslPath, ["verify", "-CAfile", pki.caCertificate.path, "-verify_hostname", "localhost", "-verify_ip", "127.0.0.1", pki.serverCertificate.path])
        #expect(host.status == 0, "\(host.output)")
    }

    @Test("another PKI's CA does not trust this server certificate")
    func otherCADoesNotVerify() async throws {
        let pki = try TestPKI.shared()
        let other = try await TestPKI.make()
        defer { other.remove() }
        let result = try await runTool(TestPKI.opensslPath, ["verify", "-CAfile", other.caCertificate.path, pki.serverCertificate.path])
        #expect(result.status != 0)
    }

    @Test("client certificate subject carries the topic as UID and the team as OU")
    func clientSubject() async throws {
        let pki = try TestPKI.shared()
        let result = try await runTool(TestPKI.opensslPath, ["x509", "-in", pki.clientCertificate.path, "-noout", "-subject", "-nameopt", "RFC2253"])
        #expect(result.output.contains("UID=\(pki.clientTopic)"))
        #expect(result.output.contains("OU=\(pki.teamID)"))
    }

    @Test("key files have the expected PEM type and algorithm", arguments: [
        ("authKey", "-----BEGIN PRIVATE KEY-----", "prime256v1"),
        ("p384Key", "-----BEGIN PRIVATE KEY-----", "secp384r1"),
        ("rsaKey", "-----BEGIN PRIVATE KEY-----", "RSA"),
        ("encryptedAuthKey", "-----BEGIN ENCRYPTED PRIVATE KEY-----", ""),
    ])
    func keyFiles(name: String, header: String, algorithm: String) async throws {
        let pki = try TestPKI.shared()
        let url: URL = switch name {
        case "authKey": pki.authKey
        case "p384Key": pki.p384Key
        case "rsaKey": pki.rsaKey
        default: pki.encryptedAuthKey
        }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix(header))
        if !algorithm.isEmpty {
            let result = try await runTool(TestPKI.opensslPath, ["pkey", "-in", url.path, "-noout", "-text"])
            #expect(result.output.contains(algorithm) || (algorithm == "RSA" && result.output.contains("Private-Key: (2048 bit")), "\(result.output.prefix(200))")
        }
        #expect(pki.authKey.lastPathComponent == "AuthKey_\(pki.keyID).p8")
    }

    @Test("the encrypted key opens only with its passphrase")
    func encryptedKey() async throws {
        let pki = try TestPKI.shared()
        let right = try await runTool(TestPKI.opensslPath, ["pkey", "-in", pki.encryptedAuthKey.path, "-passin", "pass:\(pki.encryptedAuthKeyPassphrase)", "-noout"])
        #expect(right.status == 0, "\(right.output)")
        let wrong = try await runTool(TestPKI.opensslPath, ["pkey", "-in", pki.encryptedAuthKey.path, "-passin", "pass:wrong", "-noout"])
        #expect(wrong.status != 0)
    }
}

@Suite("ServerProcess")
struct ServerProcessTests {
    @Test("nghttpd and nginx start on a free port and accept connections until stopped", arguments: ["nghttpd", "nginx"])
    func referenceServersStart(kind: String) throws {
        let pki = try TestPKI.shared()
        let server = kind == "nghttpd" ? try ServerProcess.nghttpd(pki: pki) : try ServerProcess.nginx(pki: pki)
        #expect(server.isRunning)
        #expect(ServerProcess.canConnect(host: server.host, port: server.port))
        server.stop()
        #expect(!server.isRunning)
        #expect(!ServerProcess.canConnect(host: server.host, port: server.port))
    }

    @Test("a server that exits at once is reported with its output")
    func earlyExit() throws {
        let port = try ServerProcess.freePort()
        #expect {
            _ = try ServerProcess.start(executable: ServerProcess.nghttpdPath, arguments: ["--no-such-option"], port: port, readyTimeout: .seconds(5))
        } throws: { error in
            "\(error)".contains("exited with status") && "\(error)".contains("no-such-option")
        }
    }
}

@Suite("TestPKI, made through LivelineCrypto")
struct TestPKIGenerationTests {
    @Test("the client certificate is for TLS clients (the tool verifies it for sslclient) and every key file is private to its owner")
    func clientCertificatePurposeAndKeyModes() async throws {
        let pki = try await TestPKI.make()
        defer { pki.remove() }
        let client = try await runTool(TestPKI.opensslPath, ["verify", "-CAfile", pki.caCertificate.path, "-purpose", "sslclient", pki.clientCertificate.path])
        #expect(client.status == 0, "\(client.output)")
        for key in [pki.caKey, pki.serverKey, pki.clientKey, pki.authKey, pki.encryptedAuthKey, pki.rsaKey, pki.p384Key, pki.garbageKey] {
            let mode = try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(key.lastPathComponent)")
        }
        let extra = try pki.makeAuthKey(keyID: "LLTESTKEY2")
        #expect(extra.lastPathComponent == "AuthKey_LLTESTKEY2.p8")
        let text = try await runTool(TestPKI.opensslPath, ["pkey", "-in", extra.path, "-noout", "-text"])
        #expect(text.output.contains("prime256v1"), "\(text.output.prefix(200))")
    }
}

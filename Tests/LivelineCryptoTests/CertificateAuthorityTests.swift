import Foundation
import LivelineCrypto
import Testing

@Suite struct CertificateAuthorityTests {
    /// The CA and a leaf made through OpenSSL's API, checked by the `openssl` binary.
    @Test func aGeneratedCAAndLeafVerifyWithOpenSSLAndCarryTheirExtensions() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let ca = try CertificateAuthority.generate(commonName: "Liveline Test CA", validity: .seconds(86_400))
        let (leaf, leafKey) = try ca.issueServerCertificate(commonName: "localhost", alternativeNames: [.dns("localhost"), .ip("127.0.0.1"), .ip("::1")])
        try ca.write(certificateFile: tool.path("ca.pem"), keyFile: tool.path("ca.key"))
        try leaf.write(toFile: tool.path("server.pem"))
        try CertificateAuthority.writeKey(leafKey, toFile: tool.path("server.key"))

        let verified = try await tool.must(["verify", "-CAfile", tool.path("ca.pem"), tool.path("server.pem")])
        #expect(verified.text.contains("server.pem: OK"), "\(verified.text)")
        try await tool.must(["verify", "-CAfile", tool.path("ca.pem"), tool.path("ca.pem")])

        let caText = try await tool.must(["x509", "-in", tool.path("ca.pem"), "-noout", "-text"]).text
        #expect(caText.contains("CA:TRUE"))
        #expect(caText.contains("Certificate Sign"))
        #expect(caText.contains("Subject: CN = Liveline Test CA") && caText.contains("Issuer: CN = Liveline Test CA"))
        #expect(caText.contains("prime256v1") && caText.contains("ecdsa-with-SHA256"))

        let leafText = try await tool.must(["x509", "-in", tool.path("server.pem"), "-noout", "-text"]).text
        #expect(leafText.contains("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"), "\(leafText)")
        #expect(leafText.contains("CA:FALSE") && leafText.contains("TLS Web Server Authentication"))
        #expect(leafText.contains("Issuer: CN = Liveline Test CA"))

        // The key matches the certificate, and keys are private to their owner.
        try await tool.must(["x509", "-in", tool.path("server.pem"), "-noout", "-checkend", "3600"])
        let fromCertificate = try await tool.must(["x509", "-in", tool.path("server.pem"), "-noout", "-pubkey"]).text
        let fromKey = try await tool.must(["pkey", "-in", tool.path("server.key"), "-pubout"]).text
        #expect(fromCertificate == fromKey)
        for (file, mode) in [("ca.key", 0o600), ("server.key", 0o600), ("ca.pem", 0o644), ("server.pem", 0o644)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: tool.path(file))
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(file)")
        }
    }

    @Test func serialNumbersAreRandomAndValidityIsConfigurable() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let ca = try CertificateAuthority.generate(commonName: "CA")
        var serials: Set<String> = []
        for index in 0..<3 {
            let (leaf, _) = try ca.issueServerCertificate(commonName: "s\(index)", alternativeNames: [.dns("localhost")], validity: .seconds(120))
            try leaf.write(toFile: tool.path("leaf\(index).pem"))
            serials.insert(try await tool.must(["x509", "-in", tool.path("leaf\(index).pem"), "-noout", "-serial"]).text)
            // Valid for two minutes: still valid in one, expired in ten.
            try await tool.must(["x509", "-in", tool.path("leaf\(index).pem"), "-noout", "-checkend", "60"])
            let later = try await tool.run(["x509", "-in", tool.path("leaf\(index).pem"), "-noout", "-checkend", "600"])
            #expect(later.status != 0)
        }
        #expect(serials.count == 3)
    }

    @Test(arguments: [Certificate.AlternativeName.dns("a,b"), .dns(""), .dns("bad name"), .ip("localhost"), .ip("1.2.3")])
    func badAlternativeNamesAreRefusedByName(_ name: Certificate.AlternativeName) throws {
        let ca = try CertificateAuthority.generate(commonName: "CA")
        #expect {
            _ = try ca.issueServerCertificate(commonName: "x", alternativeNames: [name])
        } throws: { error in
            guard let error = error as? KeyError else { return false }
            return error.code == .malformed && error.message.contains("subjectAltName")
        }
    }
}

@Suite struct ClientCertificateAndUnsupportedKeyTests {
    /// An APNs-style provider certificate made through OpenSSL's API, checked by the `openssl` tool.
    @Test func aClientCertificateCarriesItsSubjectInOrderAndIsForClientsOnly() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let ca = try CertificateAuthority.generate(commonName: "Liveline Test CA")
        let (leaf, leafKey) = try ca.issueClientCertificate(subject: [
            .userID("com.example.app"), .commonName("Apple Push Services: com.example.app"), .organizationalUnit("TEAM123456"),
            .organization("Liveline Tests"), .country("US"),
        ])
        try ca.write(certificateFile: tool.path("ca.pem"))
        try leaf.write(toFile: tool.path("client.pem"))
        try CertificateAuthority.writeKey(leafKey, toFile: tool.path("client.key"))

        let client = try await tool.run(["verify", "-CAfile", tool.path("ca.pem"), "-purpose", "sslclient", tool.path("client.pem")])
        #expect(client.status == 0 && client.text.contains("client.pem: OK"), "\(client.text)\(client.stderr)")
        let server = try await tool.run(["verify", "-CAfile", tool.path("ca.pem"), "-purpose", "sslserver", tool.path("client.pem")])
        #expect(server.status != 0, "a client certificate must not pass as a server's")

        let subject = try await tool.must(["x509", "-in", tool.path("client.pem"), "-noout", "-subject", "-nameopt", "RFC2253"]).text
        #expect(subject == "subject=C=US,O=Liveline Tests,OU=TEAM123456,CN=Apple Push Services: com.example.app,UID=com.example.app\n", "\(subject)")
        let text = try await tool.must(["x509", "-in", tool.path("client.pem"), "-noout", "-text"]).text
        #expect(text.contains("TLS Web Client Authentication") && !text.contains("TLS Web Server Authentication"))
        #expect(text.contains("CA:FALSE") && text.contains("Digital Signature") && text.contains("Issuer: CN = Liveline Test CA"))
        let fromCertificate = try await tool.must(["x509", "-in", tool.path("client.pem"), "-noout", "-pubkey"]).text
        let fromKey = try await tool.must(["pkey", "-in", tool.path("client.key"), "-pubout"]).text
        #expect(fromCertificate == fromKey)
    }

    @Test func aClientCertificateWithAnEmptySubjectOrEntryIsRefused() throws {
        let ca = try CertificateAuthority.generate(commonName: "CA")
        #expect(throws: KeyError(.malformed, "the certificate's subject name is empty")) { _ = try ca.issueClientCertificate(subject: []) }
        #expect(throws: KeyError(.malformed, "subject entry UID of certificate \"CN=x, UID=\" is empty")) {
            _ = try ca.issueClientCertificate(subject: [.commonName("x"), .userID("")])
        }
        #expect(throws: KeyError.self) { _ = try ca.issueClientCertificate(subject: [.init("NOSUCHATTRIBUTE", "x")]) }
    }

    /// The keys a `.p8` loader must refuse, made through the API: the `openssl` tool reads them as
    /// what they claim to be, and `P256PrivateKey` refuses each with its own code.
    @Test func unsupportedKeysAreWhatTheySayAndAreRefused() async throws {
        let tool = try OpenSSLTool()
        defer { tool.remove() }
        let rsa = try UnsupportedKeyPEM.rsa(bits: 2048)
        #expect(rsa.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let rsaText = try await tool.must(["pkey", "-in", try tool.write("rsa.p8", Array(rsa.utf8)), "-noout", "-text"]).text
        #expect(rsaText.contains("Private-Key: (2048 bit"), "\(rsaText.prefix(80))")
        #expect(throws: KeyError.self) { _ = try P256PrivateKey(pem: rsa) }
        #expect { _ = try P256PrivateKey(pem: rsa) } throws: { ($0 as? KeyError)?.code == .notEC }

        let p384 = try UnsupportedKeyPEM.ec(curve: "P-384")
        let p384Text = try await tool.must(["pkey", "-in", try tool.write("p384.p8", Array(p384.utf8)), "-noout", "-text"]).text
        #expect(p384Text.contains("secp384r1"))
        #expect { _ = try P256PrivateKey(pem: p384) } throws: { ($0 as? KeyError)?.code == .wrongCurve && "\($0)".contains("P-384") }
        #expect { _ = try UnsupportedKeyPEM.ec(curve: "no-such-curve") } throws: { ($0 as? KeyError)?.code == .operationFailed && "\($0)".contains("no-such-curve") }
        #expect { _ = try UnsupportedKeyPEM.rsa(bits: 512) } throws: { ($0 as? KeyError)?.code == .malformed }

        let key = try P256PrivateKey.generate()
        let encrypted = try key.encryptedPKCS8PEM(passphrase: "open sesame")
        #expect(encrypted.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        #expect(!encrypted.contains(try key.pkcs8PEM().split(separator: "\n")[1]))
        #expect { _ = try P256PrivateKey(pem: encrypted) } throws: { ($0 as? KeyError)?.code == .encrypted }
        let file = try tool.write("encrypted.p8", Array(encrypted.utf8))
        let opened = try await tool.must(["pkey", "-in", file, "-passin", "pass:open sesame", "-pubout"]).text
        let plain = try await tool.must(["pkey", "-in", try tool.write("plain.p8", Array(try key.pkcs8PEM().utf8)), "-pubout"]).text
        #expect(opened == plain)
        #expect(try await tool.run(["pkey", "-in", file, "-passin", "pass:wrong", "-noout"]).status != 0)
        #expect(throws: KeyError(.malformed, "the passphrase is empty")) { _ = try key.encryptedPKCS8PEM(passphrase: "") }
    }
}

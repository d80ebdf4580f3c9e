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

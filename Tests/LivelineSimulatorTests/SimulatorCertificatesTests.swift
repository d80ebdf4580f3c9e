import Foundation
import LivelineSimulator
import LivelineProcess
import LivelineTesting
import Testing

@Suite struct SimulatorCertificatesTests {
    /// The files `prepare` makes verify with the `openssl` binary, carry every APNs host name and
    /// the loopback addresses, keep keys private, and a second `prepare` keeps the CA.
    @Test func preparedCertificatesVerifyWithOpenSSLAndKeepTheirCA() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sim-certs-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try SimulatorCertificates.prepare(in: dir, extraNames: ["push.example.test", "10.0.0.7"])
        let verified = try await ProcessRunner.run("/usr/bin/openssl", ["verify", "-CAfile", first.caFile, first.certificateFile])
        #expect(verified.status == 0 && verified.stdoutText.contains(": OK"), "\(verified.stdoutText) \(verified.stderrText)")
        let text = try await ProcessRunner.run("/usr/bin/openssl", ["x509", "-in", first.certificateFile, "-noout", "-text"]).stdoutText
        for name in ["DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "DNS:api.push.apple.com",
                     "DNS:api.sandbox.push.apple.com", "DNS:push.example.test", "IP Address:10.0.0.7"] {
            #expect(text.contains(name), "\(name)")
        }
        let caText = try await ProcessRunner.run("/usr/bin/openssl", ["x509", "-in", first.caFile, "-noout", "-text"]).stdoutText
        #expect(caText.contains("CA:TRUE") && caText.contains("Certificate Sign"))
        for key in [first.keyFile, dir + "/simulator-ca.key"] {
            #expect((try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int) == 0o600, "\(key)")
        }
        let ca = try String(contentsOfFile: first.caFile, encoding: .utf8)
        let leaf = try String(contentsOfFile: first.certificateFile, encoding: .utf8)
        let second = try SimulatorCertificates.prepare(in: dir)
        #expect(try String(contentsOfFile: second.caFile, encoding: .utf8) == ca)
        #expect(try String(contentsOfFile: second.certificateFile, encoding: .utf8) != leaf)
        let again = try await ProcessRunner.run("/usr/bin/openssl", ["verify", "-CAfile", second.caFile, second.certificateFile])
        #expect(again.status == 0)
    }
}

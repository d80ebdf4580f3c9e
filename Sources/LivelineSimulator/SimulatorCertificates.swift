import Foundation
import LivelineCrypto

/// The simulator's own certificate authority and server certificate, made at run time with
/// LivelineCrypto's `CertificateAuthority` (never committed). Clients trust `caFile`.
public struct SimulatorCertificates: Sendable, Hashable {
    /// The CA certificate clients must trust (PEM).
    public let caFile: String
    /// The server certificate (PEM), valid for localhost, 127.0.0.1, ::1 and APNs' host names.
    public let certificateFile: String
    /// The server's private key (PEM).
    public let keyFile: String

    /// Certificates made elsewhere: the CA clients trust, and the server's certificate and key.
    public init(caFile: String, certificateFile: String, keyFile: String) {
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }

    /// The host names the server certificate covers besides the loopback addresses.
    public static let apnsHostNames = [
        "api.sandbox.push.apple.com", "api.development.push.apple.com", "api.push.apple.com",
        "api-broadcast.sandbox.push.apple.com", "api-broadcast.push.apple.com",
        "api-manage-broadcast.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com",
    ]

    /// Reuses the CA in `directory` if there is one (so clients keep trusting the same file) and
    /// makes a fresh server certificate signed by it, through LivelineCrypto (OpenSSL's API).
    ///
    /// - Parameters:
    ///   - extraNames: more DNS names or IP addresses for the server certificate.
    ///   - openssl: unused; certificates no longer come from the `openssl` command (kept for
    ///     source compatibility).
    /// - Throws: `SimulatorError(.invalidConfiguration)` naming the file or step that failed.
    public static func prepare(in directory: String, extraNames: [String] = [], openssl: String = "/usr/bin/openssl") throws(SimulatorError) -> SimulatorCertificates {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw SimulatorError(.invalidConfiguration, "cannot create \(directory): \(error.localizedDescription)")
        }
        let ca = directory + "/simulator-ca.pem"
        let caKey = directory + "/simulator-ca.key"
        let cert = directory + "/simulator-server.pem"
        let key = directory + "/simulator-server.key"
        let fm = FileManager.default
        var names: [Certificate.AlternativeName] = [.dns("localhost"), .ip("127.0.0.1"), .ip("::1")] + apnsHostNames.map { .dns($0) }
        for n in extraNames { names.append((n.contains(":") || n.allSatisfy { $0.isNumber || $0 == "." }) ? .ip(n) : .dns(n)) }
        do throws(KeyError) {
            let authority: CertificateAuthority
            if fm.fileExists(atPath: ca), fm.fileExists(atPath: caKey) {
                authority = try CertificateAuthority(certificateFile: ca, keyFile: caKey)
            } else {
                authority = try CertificateAuthority.generate(commonName: "Liveline APNs Simulator CA", validity: .seconds(3650 * 86_400))
                try authority.write(certificateFile: ca, keyFile: caKey)
            }
            let (leaf, leafKey) = try authority.issueServerCertificate(commonName: "localhost", alternativeNames: names, validity: .seconds(825 * 86_400))
            try CertificateAuthority.writeKey(leafKey, toFile: key)
            try leaf.write(toFile: cert)
        } catch {
            throw SimulatorError(.invalidConfiguration, "cannot make the simulator's certificates in \(directory): \(error.message)")
        }
        return SimulatorCertificates(caFile: ca, certificateFile: cert, keyFile: key)
    }
}

import Foundation
import LivelineCrypto
import Synchronization

/// Certificates and keys generated at run time into a fresh temporary directory.
///
/// Holds a CA, a server certificate for `localhost` and `127.0.0.1` signed by it, a client
/// certificate whose subject carries an APNs-style `UID=<topic>`, an `AuthKey_<KEYID>.p8`
/// token-signing key (unencrypted PKCS#8, EC P-256), and keys that must be refused by a `.p8`
/// loader: an encrypted PKCS#8 key, an RSA key, a P-384 key and a garbage file.
/// The CA and server certificate come from LivelineCrypto's `CertificateAuthority`; the client
/// certificate and the refused keys from the Debian `openssl` binary. Nothing is committed.
///
/// - Important: These are test credentials; a CA from one `TestPKI` does not trust the
///   certificates of another, which is how tests get an "untrusted CA".
public struct TestPKI: Sendable {
    /// The directory holding every file below (removed by `remove()`).
    public let directory: URL
    /// The CA certificate (PEM): give it to a client as its CA file.
    public let caCertificate: URL
    /// The CA private key (PEM).
    public let caKey: URL
    /// Server certificate (PEM) for DNS `localhost` and IP `127.0.0.1`, signed by the CA.
    public let serverCertificate: URL
    /// The server certificate's private key (PEM, EC P-256).
    public let serverKey: URL
    /// Client certificate (PEM) signed by the CA, subject `UID=<clientTopic>, CN=..., OU=<teamID>`.
    public let clientCertificate: URL
    /// The client certificate's private key (PEM, EC P-256).
    public let clientKey: URL
    /// The topic (bundle ID) in the client certificate's subject UID.
    public let clientTopic: String
    /// The team ID in the client certificate's subject OU.
    public let teamID: String
    /// The key ID in the `.p8` file name.
    public let keyID: String
    /// `AuthKey_<keyID>.p8`: unencrypted PKCS#8 PEM around an EC P-256 key.
    public let authKey: URL
    /// The same key as `authKey`, PKCS#8-encrypted with `encryptedAuthKeyPassphrase`.
    public let encryptedAuthKey: URL
    /// The passphrase of `encryptedAuthKey`.
    public let encryptedAuthKeyPassphrase: String
    /// An RSA-2048 key in PKCS#8 PEM (`BEGIN PRIVATE KEY`): not an EC key.
    public let rsaKey: URL
    /// An EC P-384 key in PKCS#8 PEM: the wrong curve.
    public let p384Key: URL
    /// A file with a `BEGIN PRIVATE KEY` frame around bytes that are not a key.
    public let garbageKey: URL

    /// Path of the `openssl` binary used to make the files.
    public static let opensslPath = "/usr/bin/openssl"

    /// Generates a fresh PKI into a new temporary directory, running `openssl` on dedicated
    /// threads (Swift's cooperative threads stay free).
    /// - Parameters:
    ///   - keyID: the 10-character key ID used in `AuthKey_<keyID>.p8`.
    ///   - teamID: the team ID put in the client certificate.
    ///   - clientTopic: the bundle ID put in the client certificate's UID.
    /// - Throws: `TestingError` naming the `openssl` command that failed and its output.
    public static func make(
        keyID: String = "LLTESTKEY1",
        teamID: String = "LLTEAM0001",
        clientTopic: String = "com.example.liveline"
    ) async throws -> TestPKI {
        try await DedicatedThread.run(name: "TestPKI.make") {
            try makeBlocking(keyID: keyID, teamID: teamID, clientTopic: clientTopic)
        }
    }

    /// `make` on the calling thread (blocks it while `openssl` runs).
    static func makeBlocking(keyID: String = "LLTESTKEY1", teamID: String = "LLTEAM0001",
                             clientTopic: String = "com.example.liveline") throws -> TestPKI {
        let dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("liveline-pki-\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw TestingError("cannot create directory \(dir.path): \(error)")
        }
        do {
            return try generate(in: dir, keyID: keyID, teamID: teamID, clientTopic: clientTopic)
        } catch {
            try? FileManager.default.removeItem(at: dir)
            throw error
        }
    }

    private static let sharedPKI = Mutex<TestPKI?>(nil)

    /// One PKI per process, made on first use: cheaper when many tests need certificates.
    /// Its directory is deleted when the process exits.
    /// - Throws: `TestingError` when generation fails.
    public static func shared() throws -> TestPKI {
        try sharedPKI.withLock { cached in
            if let cached { return cached }
            let made = try makeBlocking()
            cached = made
            atexit {
                if let directory = TestPKI.sharedPKI.withLock({ $0?.directory }) {
                    try? FileManager.default.removeItem(at: directory)
                }
            }
            return made
        }
    }

    /// Makes another `AuthKey_<keyID>.p8` (EC P-256, unencrypted PKCS#8) in this PKI's directory.
    /// - Throws: `TestingError` when `openssl` fails.
    public func makeAuthKey(keyID: String) throws -> URL {
        let url = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                          "-pkeyopt", "ec_param_enc:named_curve", "-out", url.path])
        return url
    }

    /// Deletes the directory and every file in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Generation

    private static func generate(in dir: URL, keyID: String, teamID: String, clientTopic: String) throws -> TestPKI {
        func file(_ name: String) -> URL { dir.appendingPathComponent(name) }
        let caCert = file("ca.pem"), caKey = file("ca-key.pem")
        // The CA and the server certificate through LivelineCrypto (OpenSSL's API); the client
        // certificate's APNs-style subject and the keys a `.p8` loader must refuse still come
        // from the `openssl` binary.
        let authority = try CertificateAuthority.generate(commonName: "Liveline Test CA \(dir.lastPathComponent)", validity: .seconds(3 * 86_400))
        try authority.write(certificateFile: caCert.path, keyFile: caKey.path)

        let serverCert = file("server.pem"), serverKey = file("server-key.pem")
        let (server, serverPrivateKey) = try authority.issueServerCertificate(
            commonName: "localhost", alternativeNames: [.dns("localhost"), .ip("127.0.0.1")], validity: .seconds(3 * 86_400))
        try CertificateAuthority.writeKey(serverPrivateKey, toFile: serverKey.path)
        try server.write(toFile: serverCert.path)

        let clientCert = file("client.pem"), clientKey = file("client-key.pem")
        try issue(certificate: clientCert, key: clientKey,
                  subject: "/UID=\(clientTopic)/CN=Apple Push Services: \(clientTopic)/OU=\(teamID)/O=Liveline Tests/C=US",
                  extensions: """
                  basicConstraints=CA:FALSE
                  keyUsage=critical,digitalSignature
                  extendedKeyUsage=clientAuth
                  """, caCert: caCert, caKey: caKey, dir: dir)

        let authKey = file("AuthKey_\(keyID).p8")
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-pkeyopt", "ec_param_enc:named_curve", "-out", authKey.path])
        let passphrase = "liveline-test-passphrase"
        let encrypted = file("AuthKey_\(keyID)-encrypted.p8")
        try openssl(["pkcs8", "-topk8", "-in", authKey.path, "-out", encrypted.path,
                     "-v2", "aes-256-cbc", "-passout", "pass:\(passphrase)"])
        let rsa = file("rsa-key.p8")
        try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsa.path])
        let p384 = file("p384-key.p8")
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384",
                     "-pkeyopt", "ec_param_enc:named_curve", "-out", p384.path])
        let garbage = file("garbage.p8")
        let noise = Data((0..<96).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try write("-----BEGIN PRIVATE KEY-----\n\(noise)\n-----END PRIVATE KEY-----\n", to: garbage)

        return TestPKI(
            directory: dir, caCertificate: caCert, caKey: caKey,
            serverCertificate: serverCert, serverKey: serverKey,
            clientCertificate: clientCert, clientKey: clientKey,
            clientTopic: clientTopic, teamID: teamID, keyID: keyID,
            authKey: authKey, encryptedAuthKey: encrypted, encryptedAuthKeyPassphrase: passphrase,
            rsaKey: rsa, p384Key: p384, garbageKey: garbage)
    }

    private static func issue(certificate: URL, key: URL, subject: String, extensions: String,
                              caCert: URL, caKey: URL, dir: URL) throws {
        let base = certificate.deletingPathExtension().lastPathComponent
        let csr = dir.appendingPathComponent("\(base).csr")
        let ext = dir.appendingPathComponent("\(base).ext")
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-keyout", key.path, "-out", csr.path, "-subj", subject])
        try write(extensions + "\n", to: ext)
        try openssl(["x509", "-req", "-in", csr.path, "-CA", caCert.path, "-CAkey", caKey.path,
                     "-set_serial", randomSerial(), "-days", "3", "-sha256",
                     "-extfile", ext.path, "-out", certificate.path])
        try? FileManager.default.removeItem(at: csr)
        try? FileManager.default.removeItem(at: ext)
    }

    /// A positive random 128-bit serial number in hex (leading `1` keeps it positive and 16 bytes).
    private static func randomSerial() -> String {
        "0x1" + (0..<15).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    private static func write(_ text: String, to url: URL) throws {
        do {
            try Data(text.utf8).write(to: url)
        } catch {
            throw TestingError("cannot write \(url.path): \(error)")
        }
    }

    @discardableResult
    static func openssl(_ arguments: [String]) throws -> Data {
        try ProcessRunner.checkedBlocking(opensslPath, arguments)
    }
}

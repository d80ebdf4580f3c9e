import Foundation
import LivelineCrypto
import Synchronization

/// Certificates and keys generated at run time into a fresh temporary directory.
///
/// Holds a CA, a server certificate for `localhost` and `127.0.0.1` signed by it, a client
/// certificate whose subject carries an APNs-style `UID=<topic>`, an `AuthKey_<KEYID>.p8`
/// token-signing key (unencrypted PKCS#8, EC P-256), and keys that must be refused by a `.p8`
/// loader: an encrypted PKCS#8 key, an RSA key, a P-384 key and a garbage file.
/// Every file is made with OpenSSL's API through LivelineCrypto (`CertificateAuthority`,
/// `P256PrivateKey`, `UnsupportedKeyPEM`); no process is run. Nothing is committed.
/// Tests that want an independent check run the `openssl` tool (`opensslPath`) on these files.
///
/// - Important: These are test credentials; a CA from one `TestPKI` does not trust the
///   certificates of another, which is how tests get an "untrusted CA".
///
/// Module: LivelineTesting owns test support: certificates and keys made at run time, child
/// processes, the reference servers (nghttpd, nginx) and throw-away PostgreSQL databases. It
/// imports LivelineCrypto and LivelinePostgres only; it must never import the modules under test
/// (the APNs client, the simulator, the service), so that tests check them against something
/// independent.
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

    /// Path of the `openssl` tool, for tests that check these files (or talk TLS) with a third-party
    /// implementation. Generation never runs it.
    public static let opensslPath = "/usr/bin/openssl"

    /// Generates a fresh PKI into a new temporary directory, on a dedicated thread (key generation,
    /// RSA's above all, takes long enough that Swift's cooperative threads should stay free).
    /// - Parameters:
    ///   - keyID: the 10-character key ID used in `AuthKey_<keyID>.p8`.
    ///   - teamID: the team ID put in the client certificate.
    ///   - clientTopic: the bundle ID put in the client certificate's UID.
    /// - Throws: `TestingError` naming the file that could not be made and why.
    public static func make(
        keyID: String = "LLTESTKEY1",
        teamID: String = "LLTEAM0001",
        clientTopic: String = "com.example.liveline"
    ) async throws -> TestPKI {
        try await DedicatedThread.run(name: "TestPKI.make") {
            try makeBlocking(keyID: keyID, teamID: teamID, clientTopic: clientTopic)
        }
    }

    /// `make` on the calling thread (blocks it while the keys are generated).
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
    /// - Throws: `TestingError` when the key cannot be made or written.
    public func makeAuthKey(keyID: String) throws -> URL {
        let url = directory.appendingPathComponent("AuthKey_\(keyID).p8")
        try Self.crypto(url) { () throws(KeyError) in try CertificateAuthority.writeKey(try P256PrivateKey.generate(), toFile: url.path) }
        return url
    }

    /// Deletes the directory and every file in it.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - Generation

    private static func generate(in dir: URL, keyID: String, teamID: String, clientTopic: String) throws -> TestPKI {
        func file(_ name: String) -> URL { dir.appendingPathComponent(name) }
        let validity = Duration.seconds(3 * 86_400)
        let caCert = file("ca.pem"), caKey = file("ca-key.pem")
        let authority = try crypto(caCert) { () throws(KeyError) in
            try CertificateAuthority.generate(commonName: "Liveline Test CA \(dir.lastPathComponent)", validity: validity)
        }
        try crypto(caCert) { () throws(KeyError) in try authority.write(certificateFile: caCert.path, keyFile: caKey.path) }

        let serverCert = file("server.pem"), serverKey = file("server-key.pem")
        try crypto(serverCert) { () throws(KeyError) in
            let (server, key) = try authority.issueServerCertificate(
                commonName: "localhost", alternativeNames: [.dns("localhost"), .ip("127.0.0.1")], validity: validity)
            try CertificateAuthority.writeKey(key, toFile: serverKey.path)
            try server.write(toFile: serverCert.path)
        }

        // An APNs-style provider certificate: the topic as UID, the team as OU, clientAuth.
        let clientCert = file("client.pem"), clientKey = file("client-key.pem")
        try crypto(clientCert) { () throws(KeyError) in
            let (client, key) = try authority.issueClientCertificate(subject: [
                .userID(clientTopic), .commonName("Apple Push Services: \(clientTopic)"), .organizationalUnit(teamID),
                .organization("Liveline Tests"), .country("US"),
            ], validity: validity)
            try CertificateAuthority.writeKey(key, toFile: clientKey.path)
            try client.write(toFile: clientCert.path)
        }

        let authKey = file("AuthKey_\(keyID).p8")
        let passphrase = "liveline-test-passphrase"
        let encrypted = file("AuthKey_\(keyID)-encrypted.p8")
        try write(try crypto(encrypted) { () throws(KeyError) in
            let key = try P256PrivateKey.generate()
            try CertificateAuthority.writeKey(key, toFile: authKey.path)
            return try key.encryptedPKCS8PEM(passphrase: passphrase)
        }, to: encrypted)
        let rsa = file("rsa-key.p8")
        try write(try crypto(rsa) { () throws(KeyError) in try UnsupportedKeyPEM.rsa(bits: 2048) }, to: rsa)
        let p384 = file("p384-key.p8")
        try write(try crypto(p384) { () throws(KeyError) in try UnsupportedKeyPEM.ec(curve: "P-384") }, to: p384)
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

    /// Runs a LivelineCrypto step for `file`, turning its `KeyError` into a `TestingError` naming the file.
    @discardableResult
    private static func crypto<T>(_ file: URL, _ body: () throws(KeyError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw TestingError("cannot make \(file.lastPathComponent) with LivelineCrypto: \(error.message)")
        }
    }

    /// Writes a key file, readable by its owner only (0600, as `CertificateAuthority.writeKey` does).
    private static func write(_ text: String, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestingError("cannot write \(url.path)")
        }
    }
}

import Foundation

/// The simulator's own certificate authority and server certificate, made with the `openssl`
/// command at run time (never committed). Clients trust `caFile`.
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
    /// makes a fresh server certificate signed by it.
    ///
    /// - Parameter extraNames: more DNS names or IP addresses for the server certificate.
    /// - Throws: `SimulatorError(.invalidConfiguration)` naming the `openssl` step that failed and its output.
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
        let csr = directory + "/simulator-server.csr"
        let ext = directory + "/simulator-server.ext"
        let fm = FileManager.default
        if !fm.fileExists(atPath: ca) || !fm.fileExists(atPath: caKey) {
            try run(openssl, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", caKey])
            try run(openssl, ["req", "-x509", "-new", "-key", caKey, "-sha256", "-days", "3650", "-subj", "/CN=Liveline APNs Simulator CA",
                              "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", ca])
        }
        var names = ["DNS:localhost", "IP:127.0.0.1", "IP:::1"] + apnsHostNames.map { "DNS:" + $0 }
        for n in extraNames { names.append((n.contains(":") || n.allSatisfy { $0.isNumber || $0 == "." }) ? "IP:" + n : "DNS:" + n) }
        let extText = "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=" + names.joined(separator: ",") + "\n"
        guard fm.createFile(atPath: ext, contents: Data(extText.utf8)) else { throw SimulatorError(.invalidConfiguration, "cannot write \(ext)") }
        try run(openssl, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        try run(openssl, ["req", "-new", "-key", key, "-subj", "/CN=localhost", "-out", csr])
        try run(openssl, ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "825", "-sha256", "-extfile", ext, "-out", cert])
        try? fm.removeItem(atPath: csr)
        try? fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try? fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: caKey)
        return SimulatorCertificates(caFile: ca, certificateFile: cert, keyFile: key)
    }

    private static func run(_ tool: String, _ arguments: [String]) throws(SimulatorError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch {
            throw SimulatorError(.invalidConfiguration, "cannot run \(tool) (install the openssl package): \(error.localizedDescription)")
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SimulatorError(.invalidConfiguration, "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(String(decoding: output, as: UTF8.self).prefix(400))")
        }
    }
}

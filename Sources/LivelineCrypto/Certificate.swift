import COpenSSL
import Foundation

/// An X.509 certificate made by `CertificateAuthority` (for local simulators and tests).
///
/// Thread safety: the `X509` is complete when `init` returns and only read afterwards.
public final class Certificate: @unchecked Sendable {
    /// A subjectAltName entry.
    public enum AlternativeName: Sendable, Hashable, CustomStringConvertible {
        /// A DNS name (`localhost`).
        case dns(String)
        /// An IPv4 or IPv6 address literal (`127.0.0.1`, `::1`).
        case ip(String)

        public var description: String {
            switch self {
            case .dns(let name): "DNS:\(name)"
            case .ip(let address): "IP:\(address)"
            }
        }
    }

    /// One attribute of a subject name, such as `CN=localhost` or an APNs certificate's `UID=<topic>`.
    public struct NameEntry: Sendable, Hashable, CustomStringConvertible {
        /// The attribute's OpenSSL short name (`CN`, `UID`, `OU`, `O`, `C`).
        public let attribute: String
        /// Its value (UTF-8).
        public let value: String

        /// An entry; `attribute` is an OpenSSL short or long name.
        public init(_ attribute: String, _ value: String) {
            self.attribute = attribute
            self.value = value
        }

        /// `CN=`: the common name.
        public static func commonName(_ value: String) -> NameEntry { NameEntry("CN", value) }
        /// `UID=`: the user ID (APNs puts the app's bundle ID, the topic, here).
        public static func userID(_ value: String) -> NameEntry { NameEntry("UID", value) }
        /// `OU=`: the organizational unit (APNs puts the team ID here).
        public static func organizationalUnit(_ value: String) -> NameEntry { NameEntry("OU", value) }
        /// `O=`: the organization.
        public static func organization(_ value: String) -> NameEntry { NameEntry("O", value) }
        /// `C=`: the two-letter country code.
        public static func country(_ value: String) -> NameEntry { NameEntry("C", value) }

        public var description: String { "\(attribute)=\(value)" }
    }

    /// The owned `X509 *`; freed in `deinit`.
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { X509_free(handle) }

    /// Loads a PEM certificate (the first in the file).
    /// - Throws: `KeyError` `.fileNotFound`, `.unreadable`, or `.malformed` when it holds no PEM certificate.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        defer { ERR_clear_error() }
        let bytes = try PEMKeyReader.readFile(path)
        guard let bio = bytes.withUnsafeBytes({ BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }) else {
            throw KeyError(.operationFailed, "OpenSSL could not allocate a buffer")
        }
        defer { BIO_free(bio) }
        guard let x509 = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw KeyError(.malformed, "'\(path)' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        self.init(handle: x509)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public func pem() throws(KeyError) -> String {
        defer { ERR_clear_error() }
        guard let bio = BIO_new(BIO_s_mem()) else { throw KeyError(.operationFailed, "OpenSSL could not allocate a buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_X509(bio, handle) == 1 else { throw KeyError(.operationFailed, "OpenSSL could not write the certificate as PEM") }
        return String(decoding: PEMKeyReader.contents(of: bio), as: UTF8.self)
    }

    /// Writes the PEM to `path` (replacing it), readable by everyone (a certificate is public).
    /// - Throws: `KeyError` `.unreadable` when the file cannot be written.
    public func write(toFile path: String) throws(KeyError) {
        try Self.write(Array(try pem().utf8), to: path, permissions: 0o644)
    }

    /// Writes `bytes` to `path`, created with `permissions` before any byte is in it.
    static func write(_ bytes: [UInt8], to path: String, permissions: mode_t) throws(KeyError) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard fd >= 0 else { throw KeyError(.unreadable, "cannot create '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw KeyError(.unreadable, "cannot write '\(path)': \(String(cString: strerror(errno)))") }
            offset += written
        }
        _ = fchmod(fd, permissions)  // the umask may have narrowed it
    }
}

import COpenSSL
import Foundation

/// A P-256 certificate authority that issues TLS server and client certificates, for local
/// simulators and tests: a self-signed CA (basicConstraints CA:TRUE, keyUsage keyCertSign), server
/// leaves with subjectAltName entries and client leaves with a full subject name (an APNs-style
/// `UID=<topic>`), signed with ECDSA SHA-256, with random 128-bit serial numbers.
///
/// - Important: for local use only; nothing here is fit for a public PKI.
public final class CertificateAuthority: Sendable {
    /// The CA's self-signed certificate: what clients trust (`caFile`).
    public let certificate: Certificate
    /// The CA's signing key.
    public let key: P256PrivateKey

    private init(certificate: Certificate, key: P256PrivateKey) {
        self.certificate = certificate
        self.key = key
    }

    /// Loads a CA written by `write(certificateFile:keyFile:)` (to keep issuing from the CA
    /// clients already trust).
    /// - Throws: `KeyError`: `.fileNotFound`/`.unreadable`/`.malformed` for the certificate,
    ///   as `P256PrivateKey(contentsOfFile:)` for the key, `.wrongKind` when they do not match.
    public convenience init(certificateFile: String, keyFile: String) throws(KeyError) {
        let certificate = try Certificate(contentsOfFile: certificateFile)
        let key = try P256PrivateKey(contentsOfFile: keyFile)
        guard X509_check_private_key(certificate.handle, key.handle) == 1 else {
            ERR_clear_error()
            throw KeyError(.wrongKind, "key file '\(keyFile)' does not belong to certificate '\(certificateFile)'")
        }
        self.init(certificate: certificate, key: key)
    }

    /// Makes a fresh CA with a new P-256 key.
    /// - Parameters:
    ///   - commonName: the CA's subject CN.
    ///   - validity: how long from now it is valid (it is also valid from a minute ago, for clock skew).
    /// - Throws: `KeyError` `.operationFailed` when OpenSSL fails; `.malformed` for an empty name
    ///   or a validity that is not positive.
    public static func generate(commonName: String, validity: Duration = .seconds(3 * 86_400)) throws(KeyError) -> CertificateAuthority {
        let key = try P256PrivateKey.generate()
        let certificate = try build(subject: [.commonName(commonName)], key: key, validity: validity, issuer: nil, issuerKey: key, extensions: [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,keyCertSign,cRLSign"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ])
        return CertificateAuthority(certificate: certificate, key: key)
    }

    /// Issues a TLS server certificate for a new P-256 key.
    /// - Parameters:
    ///   - commonName: the subject CN (clients check the subjectAltName entries, not this).
    ///   - alternativeNames: the names and addresses the certificate is valid for; at least one.
    ///   - validity: how long from now it is valid.
    /// - Returns: the certificate and its key.
    /// - Throws: `KeyError` `.malformed` for no names, a name with a comma, control character or
    ///   non-ASCII byte, or an address that is not an IP literal; `.operationFailed` when OpenSSL fails.
    public func issueServerCertificate(
        commonName: String, alternativeNames: [Certificate.AlternativeName], validity: Duration = .seconds(3 * 86_400)
    ) throws(KeyError) -> (certificate: Certificate, key: P256PrivateKey) {
        guard !alternativeNames.isEmpty else { throw KeyError(.malformed, "a server certificate needs at least one subjectAltName entry") }
        for name in alternativeNames {
            switch name {
            case .dns(let dns):
                guard !dns.isEmpty, dns.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ",") }) else {
                    throw KeyError(.malformed, "subjectAltName DNS entry \"\(dns)\" must be non-empty printable ASCII without spaces or commas")
                }
            case .ip(let address):
                var v4 = in_addr()
                var v6 = in6_addr()
                guard inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 else {
                    throw KeyError(.malformed, "subjectAltName IP entry \"\(address)\" is not an IPv4 or IPv6 literal")
                }
            }
        }
        let leafKey = try P256PrivateKey.generate()
        let certificate = try Self.build(subject: [.commonName(commonName)], key: leafKey, validity: validity, issuer: certificate, issuerKey: key, extensions: [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "serverAuth"),
            (NID_subject_alt_name, alternativeNames.map(\.description).joined(separator: ",")),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ])
        return (certificate, leafKey)
    }

    /// Issues a TLS client certificate (extendedKeyUsage clientAuth) for a new P-256 key, such as
    /// the certificate an APNs provider authenticates with: subject
    /// `UID=<topic>, CN=Apple Push Services: <topic>, OU=<team ID>, ...`.
    /// - Parameters:
    ///   - subject: the subject name, in order; at least one entry.
    ///   - validity: how long from now it is valid.
    /// - Returns: the certificate and its key.
    /// - Throws: `KeyError` `.malformed` for an empty subject or an entry with an empty value;
    ///   `.operationFailed` when OpenSSL refuses an attribute name or value or fails.
    public func issueClientCertificate(
        subject: [Certificate.NameEntry], validity: Duration = .seconds(3 * 86_400)
    ) throws(KeyError) -> (certificate: Certificate, key: P256PrivateKey) {
        let leafKey = try P256PrivateKey.generate()
        let certificate = try Self.build(subject: subject, key: leafKey, validity: validity, issuer: certificate, issuerKey: key, extensions: [
            (NID_basic_constraints, "critical,CA:FALSE"),
            (NID_key_usage, "critical,digitalSignature"),
            (NID_ext_key_usage, "clientAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ])
        return (certificate, leafKey)
    }

    /// Writes the CA certificate (0644) and, when `keyFile` is given, its key (0600) as PEM.
    /// - Throws: `KeyError` when a file cannot be written.
    public func write(certificateFile: String, keyFile: String? = nil) throws(KeyError) {
        try certificate.write(toFile: certificateFile)
        if let keyFile { try Self.writeKey(key, toFile: keyFile) }
    }

    /// Writes `key` as unencrypted PKCS#8 PEM to `path`, created with mode 0600.
    /// - Throws: `KeyError` when the file cannot be written.
    public static func writeKey(_ key: P256PrivateKey, toFile path: String) throws(KeyError) {
        try Certificate.write(Array(try key.pkcs8PEM().utf8), to: path, permissions: 0o600)
    }

    /// Builds and signs one certificate; `issuer` nil means self-signed.
    private static func build(
        subject entries: [Certificate.NameEntry], key: P256PrivateKey, validity: Duration, issuer: Certificate?, issuerKey: P256PrivateKey,
        extensions: [(Int32, String)]
    ) throws(KeyError) -> Certificate {
        defer { ERR_clear_error() }
        let subject = entries.map(\.description).joined(separator: ", ")
        guard !entries.isEmpty else { throw KeyError(.malformed, "the certificate's subject name is empty") }
        if let empty = entries.first(where: { $0.value.isEmpty }) {
            throw KeyError(.malformed, empty.attribute == "CN" ? "the certificate's common name is empty" : "subject entry \(empty.attribute) of certificate \"\(subject)\" is empty")
        }
        let seconds = validity.components.seconds
        guard seconds > 0 else { throw KeyError(.malformed, "validity \(validity) must be at least a second") }
        guard let x509 = X509_new() else { throw KeyError(.operationFailed, "OpenSSL could not allocate a certificate") }
        let certificate = Certificate(handle: x509)  // frees it on every path
        func check(_ ok: Bool, _ what: String) throws(KeyError) {
            if !ok { throw KeyError(.operationFailed, "OpenSSL could not \(what) for certificate \"\(subject)\"") }
        }
        try check(X509_set_version(x509, 2) == 1, "set the version")
        try check(setRandomSerial(x509), "set a serial number")
        try check(X509_gmtime_adj(X509_getm_notBefore(x509), -60) != nil, "set notBefore")
        try check(X509_gmtime_adj(X509_getm_notAfter(x509), Int(seconds)) != nil, "set notAfter")
        try check(X509_set_pubkey(x509, key.handle) == 1, "set the public key")
        guard let name = X509_NAME_new() else { throw KeyError(.operationFailed, "OpenSSL could not allocate a name") }
        defer { X509_NAME_free(name) }
        for entry in entries {
            let value = Array(entry.value.utf8)
            try check(value.withUnsafeBufferPointer {
                X509_NAME_add_entry_by_txt(name, entry.attribute, liveline_MBSTRING_UTF8(), $0.baseAddress, Int32($0.count), -1, 0)
            } == 1, "set subject entry \(entry.attribute)")
        }
        try check(X509_set_subject_name(x509, name) == 1, "set the subject")
        try check(X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.handle) } ?? name) == 1, "set the issuer")
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.handle ?? x509, x509, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw KeyError(.operationFailed, "OpenSSL refused extension \(String(cString: OBJ_nid2sn(nid))) = \(value) for certificate \"\(subject)\"")
            }
            defer { X509_EXTENSION_free(ext) }
            try check(X509_add_ext(x509, ext, -1) == 1, "add extension \(String(cString: OBJ_nid2sn(nid)))")
        }
        try check(X509_sign(x509, issuerKey.handle, EVP_sha256()) > 0, "sign")
        return certificate
    }

    /// A random positive 128-bit serial number (RFC 5280 allows up to 20 octets).
    private static func setRandomSerial(_ x509: OpaquePointer) -> Bool {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { return false }
        bytes[0] &= 0x7f
        bytes[0] |= 0x01  // never zero, never shorter than asked
        guard let bn = BN_bin2bn(bytes, Int32(bytes.count), nil) else { return false }
        defer { BN_free(bn) }
        guard let serial = BN_to_ASN1_INTEGER(bn, nil) else { return false }
        defer { ASN1_INTEGER_free(serial) }
        return X509_set_serialNumber(x509, serial) == 1
    }
}

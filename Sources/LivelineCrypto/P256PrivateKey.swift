import COpenSSL
import Foundation

/// An EC P-256 private key, such as an APNs auth key (`AuthKey_<KEYID>.p8`), that signs with ES256.
///
/// Thread safety: the `EVP_PKEY` is written once in `init` and only read afterwards; OpenSSL 3
/// allows concurrent signing with one key as long as each operation has its own `EVP_MD_CTX`,
/// which `signature(for:)` creates per call. Hence `@unchecked Sendable`.
///
/// - Important: the key never appears in `description`, errors or logs.
///
/// Module: LivelineCrypto owns keys, signatures and digests: P-256 keys, ES256 JWTs, certificates,
/// SHA-256, HMAC and random bytes, on OpenSSL. It must never import another Liveline module:
/// everything that signs or verifies imports it.
public final class P256PrivateKey: @unchecked Sendable, CustomStringConvertible {
    /// The owned `EVP_PKEY *`; freed in `deinit`.
    let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { EVP_PKEY_free(handle) }

    /// Loads a PEM private key (PKCS#8 `BEGIN PRIVATE KEY`, or SEC1 `BEGIN EC PRIVATE KEY`) from a file.
    ///
    /// - Throws: `KeyError` with a distinct code for a missing or unreadable file, an encrypted key,
    ///   a non-EC key, a curve other than P-256, a public key or certificate, and anything else.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        let bytes = try PEMKeyReader.readFile(path)
        try self.init(pemBytes: bytes, source: "key file '\(path)'")
    }

    /// Parses a PEM private key held in memory.
    ///
    /// - Throws: `KeyError`, as `init(contentsOfFile:)`.
    public convenience init(pem: String) throws(KeyError) {
        try self.init(pemBytes: Array(pem.utf8), source: "the PEM text")
    }

    private convenience init(pemBytes: [UInt8], source: String) throws(KeyError) {
        self.init(handle: try PEMKeyReader.read(pemBytes, kind: .privateKey, source: source))
    }

    /// Makes a fresh random P-256 key (for tests and local simulators).
    public static func generate() throws(KeyError) -> P256PrivateKey {
        defer { ERR_clear_error() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw KeyError(.operationFailed, "OpenSSL could not create an EC key generator")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
              EVP_PKEY_generate(context, &key) == 1, let key
        else { throw KeyError(.operationFailed, "OpenSSL could not generate a P-256 key") }
        return P256PrivateKey(handle: key)
    }

    /// The matching public key.
    public var publicKey: P256PublicKey {
        // A private EVP_PKEY serialises its public half as SubjectPublicKeyInfo.
        P256PublicKey(copyingPublicPartOf: handle)!
    }

    /// Signs `data` with ECDSA P-256 over SHA-256 (ES256).
    ///
    /// - Returns: the raw 64-byte `r‖s` signature JWS uses; `ECDSASignature.der(fromRaw:)` gives DER.
    public func signature(for data: some Collection<UInt8>) throws(KeyError) -> [UInt8] {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { throw KeyError(.operationFailed, "OpenSSL could not create a signing context") }
        defer { EVP_MD_CTX_free(context) }
        let message = Array(data)
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let ok = EVP_DigestSignInit(context, nil, EVP_sha256(), nil, handle) == 1
            && message.withUnsafeBufferPointer { EVP_DigestSign(context, &der, &length, $0.baseAddress, $0.count) } == 1
        guard ok, let raw = ECDSASignature.raw(fromDER: Array(der.prefix(length))) else {
            throw KeyError(.operationFailed, "OpenSSL could not sign with the P-256 key")
        }
        return raw
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the `.p8` format.
    ///
    /// - Important: this is the secret; write it only to a file the user asked for.
    public func pkcs8PEM() throws(KeyError) -> String {
        defer { ERR_clear_error() }
        guard let bio = BIO_new(BIO_s_mem()) else { throw KeyError(.operationFailed, "OpenSSL could not allocate a buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, handle, nil, nil, 0, nil, nil) == 1 else {
            throw KeyError(.operationFailed, "OpenSSL could not export the private key")
        }
        return String(decoding: PEMKeyReader.contents(of: bio), as: UTF8.self)
    }

    /// The key as password-protected PKCS#8 PEM (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, PBES2 with
    /// AES-256-CBC): what `openssl pkcs8 -topk8 -v2 aes-256-cbc` writes. For tests of loaders that
    /// must refuse encrypted keys.
    /// - Throws: `KeyError` `.malformed` for an empty passphrase, `.operationFailed` when OpenSSL fails.
    public func encryptedPKCS8PEM(passphrase: String) throws(KeyError) -> String {
        defer { ERR_clear_error() }
        guard !passphrase.isEmpty else { throw KeyError(.malformed, "the passphrase is empty") }
        guard let bio = BIO_new(BIO_s_mem()) else { throw KeyError(.operationFailed, "OpenSSL could not allocate a buffer") }
        defer { BIO_free(bio) }
        let written = passphrase.withCString { pass in
            PEM_write_bio_PKCS8PrivateKey(bio, handle, EVP_aes_256_cbc(), pass, Int32(strlen(pass)), nil, nil)
        }
        guard written == 1 else { throw KeyError(.operationFailed, "OpenSSL could not export the encrypted private key") }
        return String(decoding: PEMKeyReader.contents(of: bio), as: UTF8.self)
    }

    public var description: String { "P256PrivateKey(<redacted>)" }
}

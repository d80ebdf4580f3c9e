import COpenSSL
import Foundation

/// An EC P-256 public key that verifies ES256 signatures, raw `r‖s` or DER.
///
/// Thread safety: the `EVP_PKEY` is written once in `init` and only read afterwards; each
/// verification makes its own `EVP_MD_CTX`. Hence `@unchecked Sendable`.
public final class P256PublicKey: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned `EVP_PKEY *`; freed in `deinit`.
    let handle: OpaquePointer
    /// SubjectPublicKeyInfo DER: identity for `==` and hashing.
    public let derRepresentation: [UInt8]

    private init(handle: OpaquePointer, der: [UInt8]) {
        self.handle = handle
        self.derRepresentation = der
    }

    deinit { EVP_PKEY_free(handle) }

    /// A public-only copy of the public half of `key` (private or public); `nil` if OpenSSL fails.
    convenience init?(copyingPublicPartOf key: OpaquePointer) {
        defer { ERR_clear_error() }
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var pointer: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key, &pointer)
        }
        let copy: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        guard let copy else { return nil }
        self.init(handle: copy, der: der)
    }

    /// Parses a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// - Throws: `KeyError` for garbage, a private key, a non-EC key or a curve other than P-256.
    public convenience init(pem: String) throws(KeyError) {
        try self.init(pemBytes: Array(pem.utf8), source: "the PEM text")
    }

    /// Loads a PEM public key from a file.
    ///
    /// - Throws: `KeyError`, with distinct codes for a missing or unreadable file.
    public convenience init(contentsOfFile path: String) throws(KeyError) {
        try self.init(pemBytes: try PEMKeyReader.readFile(path), source: "key file '\(path)'")
    }

    private convenience init(pemBytes: [UInt8], source: String) throws(KeyError) {
        let key = try PEMKeyReader.read(pemBytes, kind: .publicKey, source: source)
        defer { EVP_PKEY_free(key) }
        guard let copy = P256PublicKey(copyingPublicPartOf: key) else {
            throw KeyError(.malformed, "\(source) holds a public key OpenSSL cannot re-encode")
        }
        self.init(handle: copy.handle, der: copy.derRepresentation)
        EVP_PKEY_up_ref(copy.handle)
    }

    /// The key as PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String {
        let body = Data(derRepresentation).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----\n"
    }

    /// Whether `signature` is a valid ES256 signature of `data`.
    ///
    /// Accepts raw 64-byte `r‖s` (JWS) and DER (what `openssl dgst -sign` writes), as APNs does.
    public func isValidSignature(_ signature: [UInt8], for data: some Collection<UInt8>) -> Bool {
        let message = Array(data)
        if signature.count == ECDSASignature.rawByteCount, let der = ECDSASignature.der(fromRaw: signature), verify(der: der, message) {
            return true
        }
        // DER: only canonical encodings (OpenSSL re-encodes and compares).
        return ECDSASignature.raw(fromDER: signature) != nil && verify(der: signature, message)
    }

    private func verify(der: [UInt8], _ message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, handle) == 1 else { return false }
        return message.withUnsafeBufferPointer { m in
            der.withUnsafeBufferPointer { s in EVP_DigestVerify(context, s.baseAddress, s.count, m.baseAddress, m.count) == 1 }
        }
    }

    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
    public var description: String { "P256PublicKey(\(derRepresentation.count)-byte SPKI)" }
}

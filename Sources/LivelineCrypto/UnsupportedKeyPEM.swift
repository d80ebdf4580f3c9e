import COpenSSL
import Foundation

/// Fresh private keys of kinds APNs does not sign with (an RSA key, an EC key on another curve),
/// made with OpenSSL's API as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): the files a
/// `.p8` loader must refuse, generated at run time for tests instead of committed or shelled out.
///
/// - Important: test material only; `P256PrivateKey` refuses every key made here.
public enum UnsupportedKeyPEM {
    /// A new RSA key.
    /// - Parameter bits: the modulus size, 1024 or more.
    /// - Throws: `KeyError` `.malformed` for a size under 1024, `.operationFailed` when OpenSSL fails.
    public static func rsa(bits: Int = 2048) throws(KeyError) -> String {
        guard bits >= 1024, bits <= 16_384 else { throw KeyError(.malformed, "RSA key size \(bits) must be within 1024...16384 bits") }
        return try generate("RSA", what: "an RSA-\(bits) key") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) == 1 }
    }

    /// A new EC key on a named curve.
    /// - Parameter curve: an OpenSSL group name such as `P-384`, `P-521` or `secp256k1`.
    /// - Throws: `KeyError` `.operationFailed` when OpenSSL does not know the curve or fails.
    public static func ec(curve: String) throws(KeyError) -> String {
        try generate("EC", what: "an EC key on curve \(curve)") { EVP_PKEY_CTX_set_group_name($0, curve) == 1 }
    }

    private static func generate(_ algorithm: String, what: String, configure: (OpaquePointer) -> Bool) throws(KeyError) -> String {
        defer { ERR_clear_error() }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw KeyError(.operationFailed, "OpenSSL could not create a key generator for \(what)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context), EVP_PKEY_generate(context, &key) == 1, let key else {
            throw KeyError(.operationFailed, "OpenSSL could not generate \(what)")
        }
        defer { EVP_PKEY_free(key) }
        guard let bio = BIO_new(BIO_s_mem()) else { throw KeyError(.operationFailed, "OpenSSL could not allocate a buffer") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            throw KeyError(.operationFailed, "OpenSSL could not export \(what)")
        }
        return String(decoding: PEMKeyReader.contents(of: bio), as: UTF8.self)
    }
}

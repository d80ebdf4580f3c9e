import COpenSSL
import Foundation

/// Reads PEM keys with OpenSSL and sorts every failure into a distinct `KeyError`.
///
/// Messages name `source` (a file path or "the PEM text") and what was found, never key bytes.
enum PEMKeyReader {
    enum Kind { case privateKey, publicKey }

    /// Reads a file's bytes with errors that tell a missing file from an unreadable one.
    static func readFile(_ path: String) throws(KeyError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw KeyError(.fileNotFound, "key file '\(path)' does not exist")
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            throw KeyError(.unreadable, "key file '\(path)' cannot be read: \(isDirectory.boolValue ? "it is a directory" : "permission denied")")
        }
        return Array(data)
    }

    /// Parses `pem` into an `EVP_PKEY` holding a P-256 key of the given kind; the caller owns it.
    static func read(_ pem: [UInt8], kind: Kind, source: String) throws(KeyError) -> OpaquePointer {
        defer { ERR_clear_error() }
        let text = String(decoding: pem, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN ") else {
            let what = pem.isEmpty ? "it is empty" : "it has no '-----BEGIN' line"
            let expected = kind == .privateKey ? "a PEM private key (an AuthKey_<KEYID>.p8 file)" : "a PEM public key"
            throw KeyError(.malformed, "\(source) is not \(expected): \(what)")
        }
        let label = text[begin.upperBound...].prefix { $0 != "-" && $0 != "\n" }
        switch (kind, label) {
        case (.privateKey, "ENCRYPTED PRIVATE KEY"):
            throw KeyError(.encrypted, "\(source) is an encrypted (password-protected) private key; APNs keys are not encrypted. Decrypt it with 'openssl pkcs8 -in FILE -out AuthKey.p8' or download the .p8 again")
        case (.privateKey, "PUBLIC KEY"), (.privateKey, "CERTIFICATE"):
            throw KeyError(.wrongKind, "\(source) holds a \(label.lowercased()), not a private key; give the AuthKey_<KEYID>.p8 file")
        case (.publicKey, "PRIVATE KEY"), (.publicKey, "EC PRIVATE KEY"), (.publicKey, "ENCRYPTED PRIVATE KEY"):
            throw KeyError(.wrongKind, "\(source) holds a private key where a public key was expected")
        default: break
        }
        if kind == .privateKey, text.contains("Proc-Type: 4,ENCRYPTED") {
            throw KeyError(.encrypted, "\(source) is an encrypted (password-protected) private key; APNs keys are not encrypted")
        }
        let parsed: OpaquePointer? = pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            switch kind {
            case .privateKey: return PEM_read_bio_PrivateKey(bio, nil, PEMKeyReader.refusePassword, nil)
            case .publicKey: return PEM_read_bio_PUBKEY(bio, nil, PEMKeyReader.refusePassword, nil)
            }
        }
        guard let key = parsed else {
            throw KeyError(.malformed, "\(source) has a '-----BEGIN \(label)-----' block whose contents do not parse as a key")
        }
        do {
            try checkP256(key, source: source)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        return key
    }

    /// Throws unless `key` is an EC key on P-256.
    static func checkP256(_ key: OpaquePointer, source: String) throws(KeyError) {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else {
            let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "non-EC"
            throw KeyError(.notEC, "\(source) is an \(type) key; APNs signs with EC P-256 (ES256) keys only")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else {
            throw KeyError(.wrongCurve, "\(source) is an EC key with explicit or unknown curve parameters; APNs needs a named P-256 (prime256v1) key")
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else {
            let common = ["secp384r1": " (P-384)", "secp521r1": " (P-521)", "secp256k1": " (the Bitcoin curve)"][curve] ?? ""
            throw KeyError(.wrongCurve, "\(source) is an EC key on curve \(curve)\(common); APNs needs P-256 (prime256v1)")
        }
    }

    /// A password callback that refuses, so OpenSSL never prompts on the terminal.
    static let refusePassword: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in -1 }

    /// The bytes a memory BIO holds.
    static func contents(of bio: OpaquePointer) -> [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        let count = liveline_BIO_get_mem_data(bio, &pointer)
        guard let pointer, count > 0 else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }
}

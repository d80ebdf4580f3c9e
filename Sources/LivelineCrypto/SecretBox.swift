import COpenSSL

/// AES-256-GCM with a 32-byte key, through OpenSSL's EVP interface: what keeps secrets (the
/// apps' `.p8` keys) encrypted at rest under a key-encryption key the operator holds.
///
/// A sealed value is the text `llenc1:` + base64url(nonce (12 random bytes) ‖ ciphertext ‖ tag
/// (16 bytes)). `context` is authenticated with it (associated data), so a value sealed for one
/// row cannot be moved to another. Every call uses its own OpenSSL context: safe from any thread.
public struct SecretBox: Sendable {
    /// What a sealed value starts with.
    public static let prefix = "llenc1:"
    public static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    private let key: [UInt8]

    /// - Throws: `SecretBoxError` when `key` is not 32 bytes.
    public init(key: [UInt8]) throws(SecretBoxError) {
        guard key.count == Self.keyLength else { throw SecretBoxError("a key-encryption key is 32 bytes, got \(key.count)") }
        self.key = key
    }

    /// A key from text: 64 hex digits or the base64 (standard or URL alphabet) of 32 bytes,
    /// surrounding white space ignored (a file's trailing newline).
    public init(keyText: String) throws(SecretBoxError) {
        let text = keyText.trimmingWhitespace()
        if text.utf8.count == 64, let bytes = Self.hexBytes(text) {
            try self.init(key: bytes)
        } else if let bytes = Base64URL.decode(text.replacingPlusAndSlash()), bytes.count == Self.keyLength {
            try self.init(key: bytes)
        } else {
            throw SecretBoxError("a key-encryption key is 32 bytes written as 64 hex digits or in base64 (make one with 'openssl rand -hex 32'); got \(text.utf8.count) characters that are neither")
        }
    }

    /// A new random key, as 64 hex digits.
    public static func generateKeyText() -> String { Digest.hex(Digest.randomBytes(keyLength)) }

    /// Whether `text` is a sealed value (rather than plain text from before encryption).
    public static func isSealed(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// Encrypts `plaintext` with a fresh random nonce.
    public func seal(_ plaintext: [UInt8], context: String) -> String {
        let nonce = Digest.randomBytes(Self.nonceLength)
        guard let (ciphertext, tag) = crypt(encrypt: true, nonce: nonce, input: plaintext, aad: Array(context.utf8), tag: nil) else {
            fatalError("OpenSSL AES-256-GCM encryption failed; the OpenSSL library is unusable (error queue: \(ERR_get_error()))")
        }
        return Self.prefix + Base64URL.encode(nonce + ciphertext + (tag ?? []))
    }

    /// Decrypts a sealed value.
    ///
    /// - Throws: `SecretBoxError` when `sealed` is not a sealed value, or does not open under this
    ///   key and context (a wrong key-encryption key, a changed byte, a value moved between rows).
    public func open(_ sealed: String, context: String) throws(SecretBoxError) -> [UInt8] {
        guard Self.isSealed(sealed), let bytes = Base64URL.decode(String(sealed.dropFirst(Self.prefix.count))),
              bytes.count >= Self.nonceLength + Self.tagLength else {
            throw SecretBoxError("the value is not a sealed secret")
        }
        let nonce = Array(bytes.prefix(Self.nonceLength))
        let tag = Array(bytes.suffix(Self.tagLength))
        let ciphertext = Array(bytes[Self.nonceLength..<(bytes.count - Self.tagLength)])
        guard let (plaintext, _) = crypt(encrypt: false, nonce: nonce, input: ciphertext, aad: Array(context.utf8), tag: tag) else {
            throw SecretBoxError("the sealed secret does not open with this key-encryption key (a different key, or the value was changed)")
        }
        return plaintext
    }

    /// One EVP AES-256-GCM pass; `nil` when OpenSSL fails or (decrypting) the tag does not match.
    // https://www.openssl.org/docs/man3.0/man3/EVP_EncryptInit_ex.html ("GCM and OCB Modes")
    private func crypt(encrypt: Bool, nonce: [UInt8], input: [UInt8], aad: [UInt8], tag: [UInt8]?) -> ([UInt8], [UInt8]?)? {
        guard let ctx = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let enc: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), nil, nil, nil, enc) == 1,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(nonce.count), nil) == 1,
              EVP_CipherInit_ex(ctx, nil, nil, key, nonce, enc) == 1 else { return nil }
        var length: Int32 = 0
        if !aad.isEmpty {
            guard EVP_CipherUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var total: Int32 = 0
        if !input.isEmpty {
            guard output.withUnsafeMutableBufferPointer({ EVP_CipherUpdate(ctx, $0.baseAddress, &length, input, Int32(input.count)) }) == 1 else { return nil }
            total = length
        }
        if var expected = tag {
            guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(expected.count), &expected) == 1 else { return nil }
        }
        let finished = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(ctx, $0.baseAddress! + Int(total), &length) }
        guard finished == 1 else { return nil }
        total += length
        output.removeSubrange(Int(total)...)
        guard encrypt else { return (output, nil) }
        var made = [UInt8](repeating: 0, count: Self.tagLength)
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), &made) == 1 else { return nil }
        return (output, made)
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x61...0x66: v = c - 0x61 + 10
            case 0x41...0x46: v = c - 0x41 + 10
            default: return nil
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }
}

/// A secret that cannot be sealed or opened: what is wrong, never the secret or the key.
public struct SecretBoxError: Error, CustomStringConvertible, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}

private extension String {
    func trimmingWhitespace() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
    func replacingPlusAndSlash() -> String {
        String(String.UnicodeScalarView(unicodeScalars.compactMap { s -> Unicode.Scalar? in
            switch s {
            case "+": return "-"
            case "/": return "_"
            case "=": return nil
            default: return s
            }
        }))
    }
}

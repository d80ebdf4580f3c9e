import COpenSSL

/// Hashes, HMACs, constant-time comparison and random bytes, all from OpenSSL.
///
/// Every function is safe to call from any thread: each call uses its own OpenSSL context.
public enum Digest {
    /// The length in bytes of a SHA-256 digest and of an HMAC-SHA-256 tag.
    public static let sha256Length = 32

    /// The SHA-256 digest of `bytes`.
    ///
    /// - Parameter bytes: the message; contiguous collections (`[UInt8]`, `ArraySlice`,
    ///   `String.UTF8View` of a native string) are hashed in place, others are copied once.
    /// - Returns: 32 bytes.
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        withContiguousBytes(bytes) { message in
            var digest = [UInt8](repeating: 0, count: sha256Length)
            var length: UInt32 = 0
            // https://www.openssl.org/docs/man3.0/man3/EVP_Digest.html
            let ok = digest.withUnsafeMutableBufferPointer { out in
                EVP_Digest(message.baseAddress, message.count, out.baseAddress, &length, FetchedDigest.sha256.md, nil)
            }
            guard ok == 1, length == UInt32(sha256Length) else { opensslFailed("EVP_Digest(SHA-256)") }
            return digest
        }
    }

    /// The HMAC-SHA-256 tag of `message` under `key` (RFC 2104).
    ///
    /// - Parameters:
    ///   - key: the secret key, any length (longer than 64 bytes is hashed first, as RFC 2104 says).
    ///   - message: the data to authenticate.
    /// - Returns: 32 bytes. Compare tags with `constantTimeEqual(_:_:)`, never `==`.
    public static func hmacSHA256(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        withContiguousBytes(message) { data in
            var tag = [UInt8](repeating: 0, count: sha256Length)
            var length = 0
            // https://www.openssl.org/docs/man3.0/man3/EVP_Q_mac.html (EVP_MAC "HMAC" with digest SHA256)
            let result = key.withUnsafeBufferPointer { keyBuffer in
                tag.withUnsafeMutableBufferPointer { out in
                    withNonNullBase(keyBuffer) { keyBase in
                        withNonNullBase(data) { dataBase in
                            EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, keyBase, keyBuffer.count,
                                      dataBase, data.count, out.baseAddress, out.count, &length)
                        }
                    }
                }
            }
            guard result != nil, length == sha256Length else { opensslFailed("EVP_Q_mac(HMAC-SHA256)") }
            return tag
        }
    }

    /// Whether `a` and `b` hold the same bytes, taking the same time wherever they differ.
    ///
    /// Arrays of different lengths are never equal; lengths are not treated as secret, but even
    /// then the bytes of `a` are still walked once so the call does not return at the first byte.
    public static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                withNonNullBase(x) { xBase in
                    withNonNullBase(y) { yBase in
                        // https://www.openssl.org/docs/man3.0/man3/CRYPTO_memcmp.html
                        guard x.count == y.count else {
                            _ = CRYPTO_memcmp(xBase, xBase, x.count)
                            return false
                        }
                        return CRYPTO_memcmp(xBase, yBase, x.count) == 0
                    }
                }
            }
        }
    }

    /// `count` bytes from OpenSSL's cryptographically secure generator.
    ///
    /// - Important: traps if OpenSSL's generator fails (it could not be seeded); there is no
    ///   safe fallback for key or token material.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "Digest.randomBytes: count must not be negative (got \(count))")
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        // RAND_bytes takes an int: fill in chunks so any Swift Int count works.
        var offset = 0
        while offset < count {
            let chunk = min(count - offset, Int(Int32.max))
            // https://www.openssl.org/docs/man3.0/man3/RAND_bytes.html
            let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress! + offset, Int32(chunk)) }
            guard ok == 1 else { opensslFailed("RAND_bytes") }
            offset += chunk
        }
        return bytes
    }

    /// `bytes` as lowercase hexadecimal, two characters a byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        if let result = bytes.withContiguousStorageIfAvailable({ hex(buffer: $0) }) { return result }
        return Array(bytes).withUnsafeBufferPointer { hex(buffer: $0) }
    }

    private static func hex(buffer: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: buffer.count * 2) { out in
            let digits: StaticString = "0123456789abcdef"
            let table = digits.utf8Start
            var i = 0
            for byte in buffer {
                out[i] = table[Int(byte >> 4)]
                out[i + 1] = table[Int(byte & 0x0f)]
                i += 2
            }
            return i
        }
    }

    // MARK: - Helpers

    /// Calls `body` with the bytes of `collection` in one contiguous buffer, copying only if needed.
    private static func withContiguousBytes<R>(_ collection: some Collection<UInt8>,
                                               _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = collection.withContiguousStorageIfAvailable(body) { return result }
        return Array(collection).withUnsafeBufferPointer(body)
    }

    /// Calls `body` with the buffer's base address, or with the address of a dummy byte when the
    /// buffer is empty: some OpenSSL calls treat a NULL pointer as "not given" even with length 0.
    private static func withNonNullBase<R>(_ buffer: UnsafeBufferPointer<UInt8>,
                                           _ body: (UnsafePointer<UInt8>) -> R) -> R {
        if let base = buffer.baseAddress { return body(base) }
        let dummy: UInt8 = 0
        return withUnsafePointer(to: dummy) { body($0) }
    }

    private static func opensslFailed(_ call: String) -> Never {
        fatalError("OpenSSL \(call) failed; the OpenSSL library is unusable (error queue: \(ERR_get_error()))")
    }
}

/// SHA-256 fetched from OpenSSL's default provider once: `EVP_sha256()` makes every call look
/// the algorithm up again (OpenSSL 3's implicit fetch), which costs more than hashing a short key.
/// https://www.openssl.org/docs/man3.0/man7/crypto.html ("Explicit fetching")
private struct FetchedDigest: @unchecked Sendable {
    /// Immutable after creation and never freed; OpenSSL allows sharing a fetched EVP_MD across threads.
    let md: OpaquePointer?
    static let sha256 = FetchedDigest(md: EVP_MD_fetch(nil, "SHA256", nil) ?? EVP_sha256())
}

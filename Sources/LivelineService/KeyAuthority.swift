import Foundation
import LivelineCrypto
import LivelineStore
import Synchronization

/// API keys: made with 160 random bits, shown once, stored as SHA-256 hashes, checked in
/// constant time; and a token-bucket rate limit per key.
///
/// Keys are cached by hash for `cacheTTL` at most. Revoking, expiring or rotating a key clears
/// this instance's cache at once, and on PostgreSQL notifies `liveline_keys` so every other
/// instance clears its own (`invalidate()`, wired in `ServiceServer.start`); the TTL bounds what
/// a lost notification could keep alive. Expiry is checked on every request, cached or not.
public final class KeyAuthority: Sendable {
    private let buckets: RateBuckets
    /// Keys already looked up, by hash, with when they were read.
    private let known = Mutex([CredentialDigest: (record: APIKeyRecord, at: ContinuousClock.Instant)]())
    let rate: Double
    let burst: Double
    let cacheTTL: Duration

    init(rate: Double, burst: Double, cacheTTL: Duration = .seconds(5)) {
        self.rate = rate
        self.burst = burst
        self.cacheTTL = cacheTTL
        buckets = RateBuckets(rate: rate, burst: burst)
    }

    /// A new key of `scope`: the secret to show once, and the record to store.
    public static func make(scope: KeyScope, name: String?, now: Date, bundleID: String? = nil, apps: [String]? = nil, expiresAt: Date? = nil) -> (secret: String, record: APIKeyRecord) {
        let secret = "ll_\(scope.rawValue)_" + Digest.hex(Digest.randomBytes(20))
        let id = "key_" + Digest.hex(Digest.randomBytes(6))
        return (secret, APIKeyRecord(id: id, scope: scope, hash: hash(secret), name: name, createdAt: now, bundleID: bundleID, apps: apps, expiresAt: expiresAt))
    }

    public static func hash(_ secret: String) -> String { Digest.hex(Digest.sha256(Array(secret.utf8))) }

    /// Forgets every cached key: the next request of each key reads the database again.
    func invalidate() { known.withLock { $0.removeAll() } }

    /// The key record for an `Authorization: Bearer …` value, or an error that never repeats the value.
    /// Unknown, revoked and expired keys get the same answer.
    func authenticate(_ header: String?, store: any Store, now: Date = Date()) throws -> APIKeyRecord {
        let presented = try Self.presentedDigest(header)
        let clock = ContinuousClock.now
        var record = known.withLock { cache -> APIKeyRecord? in
            guard let entry = cache[presented] else { return nil }
            if clock - entry.at < cacheTTL { return entry.record }
            cache[presented] = nil
            return nil
        }
        if record == nil {
            let hash = presented.hex
            let read = try store.write { tx in try tx.key(hash: hash) }
            guard let read, Digest.constantTimeEqual(Array(read.hash.utf8), Array(hash.utf8)) else {
                throw APIError(401, "unauthorized", "unknown, revoked or expired API key")
            }
            known.withLock { if $0.count < 10_000 { $0[presented] = (read, clock) } }
            record = read
        }
        guard let record, record.isUsable(at: now) else { throw APIError(401, "unauthorized", "unknown, revoked or expired API key") }
        return record
    }

    /// The SHA-256 of the key in an `Authorization: Bearer …` value (the scheme in any case,
    /// spaces or tabs around the key ignored), as lower-case hex.
    static func presentedHash(_ header: String?) throws(APIError) -> String { try presentedDigest(header).hex }

    /// `presentedHash` as the caches key it. Byte-wise, over the header's own storage: this runs
    /// on every request.
    static func presentedDigest(_ header: String?) throws(APIError) -> CredentialDigest {
        guard var header, !header.isEmpty else {
            throw APIError(401, "unauthorized", "missing 'Authorization: Bearer <key>' header")
        }
        let digest = header.withUTF8 { bytes -> CredentialDigest? in
            func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
            let scheme: StaticString = "bearer"
            let schemeCount = scheme.utf8CodeUnitCount
            guard bytes.count > schemeCount, blank(bytes[schemeCount]) else { return nil }
            for i in 0..<schemeCount where bytes[i] | 0x20 != scheme.utf8Start[i] { return nil }
            var start = schemeCount, end = bytes.count
            while start < end, blank(bytes[start]) { start += 1 }
            while end > start, blank(bytes[end - 1]) { end -= 1 }
            guard start < end else { return nil }
            return CredentialDigest(Digest.sha256(UnsafeBufferPointer(rebasing: bytes[start..<end])))
        }
        guard let digest else { throw APIError(401, "unauthorized", "the Authorization header must be 'Bearer <key>'") }
        return digest
    }

    /// Takes one request from the key's bucket; `nil` when allowed, else seconds until one is free.
    func admit(_ keyID: String) -> Double? { buckets.admit(keyID) }
}

/// The SHA-256 of a presented credential as four words: what the key and installation caches are
/// keyed by (hashed and compared as 32 bytes, where its hex text is a 64-character string).
struct CredentialDigest: Hashable, Sendable {
    private let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ sha256: [UInt8]) {
        precondition(sha256.count == 32, "a SHA-256 digest has 32 bytes")
        words = sha256.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }

    /// The digest's bytes in order.
    var bytes: [UInt8] {
        withUnsafeBytes(of: words) { Array($0) }
    }

    /// Lower-case hex, as the store keeps credential hashes.
    var hex: String { Digest.hex(bytes) }

    static func == (a: Self, b: Self) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}

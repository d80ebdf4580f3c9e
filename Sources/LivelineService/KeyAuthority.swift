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
    private let known = Mutex([String: (record: APIKeyRecord, at: ContinuousClock.Instant)]())
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
        let presented = try Self.presentedHash(header)
        let clock = ContinuousClock.now
        var record = known.withLock { cache -> APIKeyRecord? in
            guard let entry = cache[presented] else { return nil }
            if clock - entry.at < cacheTTL { return entry.record }
            cache[presented] = nil
            return nil
        }
        if record == nil {
            let read = try store.write { tx in try tx.key(hash: presented) }
            guard let read, Digest.constantTimeEqual(Array(read.hash.utf8), Array(presented.utf8)) else {
                throw APIError(401, "unauthorized", "unknown, revoked or expired API key")
            }
            known.withLock { if $0.count < 10_000 { $0[presented] = (read, clock) } }
            record = read
        }
        guard let record, record.isUsable(at: now) else { throw APIError(401, "unauthorized", "unknown, revoked or expired API key") }
        return record
    }

    /// The SHA-256 of the key in an `Authorization: Bearer …` value (the scheme in any case,
    /// spaces or tabs around the key ignored). Byte-wise: this runs on every request.
    static func presentedHash(_ header: String?) throws(APIError) -> String {
        guard let header, !header.isEmpty else {
            throw APIError(401, "unauthorized", "missing 'Authorization: Bearer <key>' header")
        }
        let bytes = Array(header.utf8)
        let scheme = Array("bearer".utf8)
        func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var start = scheme.count, end = bytes.count
        let schemeMatches = bytes.count > scheme.count && blank(bytes[scheme.count])
            && zip(bytes, scheme).allSatisfy { ($0 | 0x20) == $1 }
        while start < end, blank(bytes[start]) { start += 1 }
        while end > start, blank(bytes[end - 1]) { end -= 1 }
        guard schemeMatches, start < end else {
            throw APIError(401, "unauthorized", "the Authorization header must be 'Bearer <key>'")
        }
        return Digest.hex(Digest.sha256(bytes[start..<end]))
    }

    /// Takes one request from the key's bucket; `nil` when allowed, else seconds until one is free.
    func admit(_ keyID: String) -> Double? { buckets.admit(keyID) }
}

import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore
import Synchronization

/// Installation credentials (`ll_inst_<40 hex>`): made with 160 random bits when the app key
/// creates an installation, shown once, stored as SHA-256 hashes and checked in constant time.
/// The installation id is the device id every device-scoped route acts on.
final class InstallationAuthority: Sendable {
    static let secretPrefix = "ll_inst_"

    /// Installations already looked up, by the hash of their secret, with when. An entry is
    /// trusted for `cacheLifetime` at most; an installation whose secret changes (a claim gives
    /// an existing id a new secret) is forgotten at once on this instance (`forget`) and, on
    /// PostgreSQL, on the others when `liveline_keys` tells them (`invalidate`). `generation`
    /// moves on every forgetting, so a lookup that read the store before it cannot cache what it read.
    private struct Cache {
        var entries: [CredentialDigest: (record: InstallationRecord, at: ContinuousClock.Instant)] = [:]
        var generation = 0

        /// Keeps `record` for `digest` from `at`, emptying a full table first.
        mutating func keep(_ record: InstallationRecord, for digest: CredentialDigest, at: ContinuousClock.Instant, capacity: Int) {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[digest] = (record, at)
        }
    }
    private let cache = Mutex(Cache())
    let cacheLifetime: Duration
    private let capacity: Int

    init(cacheLifetime: Duration = .seconds(60), capacity: Int = 50_000) {
        self.cacheLifetime = cacheLifetime
        self.capacity = capacity
    }

    /// A new installation of `bundleID`: the secret to show once, and the record to store.
    static func make(bundleID: String, now: Date) -> (secret: String, record: InstallationRecord) {
        let secret = secretPrefix + Digest.hex(Digest.randomBytes(20))
        let id = "inst_" + Digest.hex(Digest.randomBytes(12))
        return (secret, InstallationRecord(installationID: id, bundleID: bundleID, secretHash: KeyAuthority.hash(secret), createdAt: now))
    }

    /// Whether an `Authorization` value carries an installation credential (by its prefix; the
    /// value itself is never logged or repeated). Byte-wise: this runs on every request.
    static func isInstallationCredential(_ header: String?) -> Bool {
        guard var header else { return false }
        return header.withUTF8 { bytes in
            func blank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
            var i = 0
            while i < bytes.count, !blank(bytes[i]) { i += 1 }
            while i < bytes.count, blank(bytes[i]) { i += 1 }
            let prefix: StaticString = "ll_inst_"
            guard bytes.count - i >= prefix.utf8CodeUnitCount else { return false }
            for k in 0..<prefix.utf8CodeUnitCount where bytes[i + k] != prefix.utf8Start[k] { return false }
            return true
        }
    }

    /// The installation for an `Authorization: Bearer ll_inst_…` value, or a 401 that never
    /// repeats it. A credential not in the cache is read in a group-committed transaction, so
    /// the HTTP thread serves other requests meanwhile.
    func authenticate(_ header: String?, store: any Store) async throws -> InstallationRecord {
        let presented = try KeyAuthority.presentedDigest(header)
        let now = ContinuousClock.now
        let (hit, generation) = cache.withLock { cache -> (InstallationRecord?, Int) in
            guard let entry = cache.entries[presented] else { return (nil, cache.generation) }
            if now - entry.at < cacheLifetime { return (entry.record, cache.generation) }
            cache.entries[presented] = nil
            return (nil, cache.generation)
        }
        if let hit { return hit }
        let hash = presented.hex
        let record = try await store.writeAsync { tx in try tx.installation(secretHash: hash) }
        guard let record, Digest.constantTimeEqual(Array(record.secretHash.utf8), Array(hash.utf8)) else {
            throw APIError(401, "unauthorized", "unknown installation credential: create a new installation with POST /v1/installations")
        }
        cache.withLock { cache in
            guard cache.generation == generation else { return }
            cache.keep(record, for: presented, at: now, capacity: capacity)
        }
        return record
    }

    /// Trusts `record` for its `secret` from now: called once the installation is committed, so the
    /// app's first requests (registering its device and tokens, right after creating it) are served
    /// without reading it back. Forgetting and invalidating drop it like any other entry.
    func remember(_ record: InstallationRecord, secret: String) {
        let digest = CredentialDigest(Digest.sha256(Array(secret.utf8)))
        let now = ContinuousClock.now
        cache.withLock { $0.keep(record, for: digest, at: now, capacity: capacity) }
    }

    /// Forgets `installationID` (its secret changed or it went away): its old credential is
    /// looked up again, and refused, on its next request.
    func forget(_ installationID: String) {
        cache.withLock { cache in
            cache.generation += 1
            let stale = cache.entries.compactMap { $0.value.record.installationID == installationID ? $0.key : nil }
            for key in stale { cache.entries[key] = nil }
        }
    }

    /// Forgets every installation (another instance changed one: PostgreSQL's `liveline_keys`).
    func invalidate() {
        cache.withLock { cache in
            cache.generation += 1
            cache.entries.removeAll()
        }
    }

    /// Installations cached now (for tests).
    var cachedCount: Int { cache.withLock { $0.entries.count } }
}

/// Short-lived tokens an app's backend signs with the app's secret (HS256 JWTs): user tokens bind a
/// `userID` to an installation; activity grants let an installation register for an activity.
enum BackendToken {
    /// Tokens may not live longer than this, and clocks may differ by `skew`.
    static let maxLifetime: TimeInterval = 3600
    static let skew: TimeInterval = 60

    /// The verified claims of `token`, signed with one of `secrets` (newest first), or a 401 naming
    /// what is wrong (never repeating the token).
    static func verify(_ token: String, secrets: [String], field: String, now: Date) throws -> JSONObject {
        func refuse(_ why: String) -> APIError { APIError(401, "invalid-\(field == "userToken" ? "user-token" : "grant")", "\(field): \(why)", field: field) }
        guard !secrets.isEmpty else {
            throw APIError(422, "no-token-secret", "\(field): the app has no secret for backend-signed tokens; an admin sets one with PUT /v1/apps/{bundleID}/token-secret", field: field)
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { throw refuse("is not a JWT (header.claims.signature in base64url)") }
        guard let header = try? JSONValue.parse(headerBytes), header["alg"]?.stringValue == "HS256" else {
            throw refuse("must be signed with HS256 (header alg)")
        }
        let signed = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        let valid = secrets.contains { Digest.constantTimeEqual(Digest.hmacSHA256(key: Array($0.utf8), message: signed), signature) }
        guard valid else { throw refuse("signature does not verify with the app's token secret") }
        guard let claims = (try? JSONValue.parse(claimBytes))?.objectValue else { throw refuse("claims are not a JSON object") }
        guard let exp = claims["exp"]?.numberValue else { throw refuse("needs an exp claim (seconds since 1970)") }
        let seconds = now.timeIntervalSince1970
        if exp + skew < seconds { throw refuse("has expired") }
        if exp - seconds > maxLifetime + skew { throw refuse("expires more than 1 hour ahead; sign short-lived tokens") }
        return claims
    }

    /// Signs claims with `secret` (for the demo, tests and example backends: a backend does this).
    static func sign(_ claims: JSONObject, secret: String) -> String {
        let header = Base64URL.encode(JSONValue.object(["alg": "HS256", "typ": "JWT"]).serialized())
        let body = Base64URL.encode(JSONValue.object(claims).serialized())
        let signature = Digest.hmacSHA256(key: Array(secret.utf8), message: Array("\(header).\(body)".utf8))
        return "\(header).\(body).\(Base64URL.encode(signature))"
    }
}

/// The caller's address for per-address limits: the peer's address without its port, or the last
/// `X-Forwarded-For` entry when the peer is a configured trusted proxy.
enum ClientAddress {
    static func of(_ remote: String, forwardedFor: @autoclosure () -> String?, trustedProxies: [String]) -> String {
        let host = strip(remote)
        guard !trustedProxies.isEmpty, trustedProxies.contains(host), let forwarded = forwardedFor() else { return host }
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty || last.utf8.count > 64 ? host : last
    }

    /// `127.0.0.1:5432` → `127.0.0.1`; `[::1]:5432` → `::1`. Byte-wise: this runs on every request.
    static func strip(_ remote: String) -> String {
        let utf8 = remote.utf8
        if utf8.first == UInt8(ascii: "["), let close = utf8.firstIndex(of: UInt8(ascii: "]")) {
            return String(remote[utf8.index(after: utf8.startIndex)..<close])
        }
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")), utf8.firstIndex(of: UInt8(ascii: ":")) == colon {
            return String(remote[..<colon])
        }
        return remote
    }
}

/// What an app's backend signs for its installations (HS256 with the app's token secret, set by
/// `PUT /v1/apps/{bundleID}/token-secret`). Any JWT library does the same; this one serves the
/// demo, the tests and Swift backends.
public enum BackendTokens {
    /// Binds `userID` to the installation `installationID` of `bundleID` until `lifetime` from `now` (at most 1 hour).
    public static func userToken(userID: String, installationID: String, bundleID: String, secret: String, now: Date = Date(), lifetime: TimeInterval = 600) -> String {
        BackendToken.sign(["sub": .string(userID), "deviceID": .string(installationID), "aud": .string(bundleID),
                           "exp": .number((now.timeIntervalSince1970 + lifetime).rounded(.down))], secret: secret)
    }

    /// Lets the installation register an update token for `activityID`.
    public static func activityGrant(activityID: String, installationID: String, bundleID: String, secret: String, now: Date = Date(), lifetime: TimeInterval = 600) -> String {
        BackendToken.sign(["activityID": .string(activityID), "deviceID": .string(installationID), "aud": .string(bundleID),
                           "exp": .number((now.timeIntervalSince1970 + lifetime).rounded(.down))], secret: secret)
    }
}

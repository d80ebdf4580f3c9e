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
    /// Installations already looked up, by secret hash, with when: an entry is trusted for
    /// `cacheLifetime` (installations are not revoked one by one today; a restart forgets them all).
    private let known = Mutex([String: (record: InstallationRecord, at: ContinuousClock.Instant)]())
    private static let cacheLifetime: Duration = .seconds(60)

    /// A new installation of `bundleID`: the secret to show once, and the record to store.
    static func make(bundleID: String, now: Date) -> (secret: String, record: InstallationRecord) {
        let secret = secretPrefix + Digest.hex(Digest.randomBytes(20))
        let id = "inst_" + Digest.hex(Digest.randomBytes(12))
        return (secret, InstallationRecord(installationID: id, bundleID: bundleID, secretHash: KeyAuthority.hash(secret), createdAt: now))
    }

    /// Whether an `Authorization` value carries an installation credential (by its prefix; the
    /// value itself is never logged or repeated).
    static func isInstallationCredential(_ header: String?) -> Bool {
        guard let header else { return false }
        let value = header.drop { $0 != " " && $0 != "\t" }.drop { $0 == " " || $0 == "\t" }
        return value.hasPrefix(secretPrefix)
    }

    /// The installation for an `Authorization: Bearer ll_inst_…` value, or a 401 that never repeats it.
    func authenticate(_ header: String?, store: any Store) throws -> InstallationRecord {
        let presented = try KeyAuthority.presentedHash(header)
        let now = ContinuousClock.now
        if let hit = known.withLock({ $0[presented] }), now - hit.at < Self.cacheLifetime { return hit.record }
        let record = try store.write { tx in try tx.installation(secretHash: presented) }
        guard let record, Digest.constantTimeEqual(Array(record.secretHash.utf8), Array(presented.utf8)) else {
            throw APIError(401, "unauthorized", "unknown installation credential: create a new installation with POST /v1/installations")
        }
        known.withLock { cache in
            if cache.count >= 50_000 { cache.removeAll(keepingCapacity: true) }
            cache[presented] = (record, now)
        }
        return record
    }
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
    static func of(_ remote: String, forwardedFor: String?, trustedProxies: [String]) -> String {
        let host = strip(remote)
        guard !trustedProxies.isEmpty, trustedProxies.contains(host), let forwarded = forwardedFor else { return host }
        let last = forwarded.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty || last.utf8.count > 64 ? host : last
    }

    /// `127.0.0.1:5432` → `127.0.0.1`; `[::1]:5432` → `::1`.
    static func strip(_ remote: String) -> String {
        if remote.hasPrefix("["), let close = remote.firstIndex(of: "]") { return String(remote[remote.index(after: remote.startIndex)..<close]) }
        if let colon = remote.lastIndex(of: ":"), remote.firstIndex(of: ":") == colon { return String(remote[..<colon]) }
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

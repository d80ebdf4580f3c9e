import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore

/// What a request's key may act on: an app key on its one app, an admin key on its apps (or on
/// every app when it names none).
extension RequestContext {
    /// Whether the caller's key may act on `bundleID` (a request without a key may: it reached a public route).
    func mayAct(on bundleID: String) -> Bool {
        guard let key else { return true }
        switch key.scope {
        case .admin: return key.apps.map { $0.contains(bundleID) } ?? true
        // An app key made before keys were bound to a bundle (`bundleID` nil) acts on any app until rotated.
        case .app: return key.bundleID.map { $0 == bundleID } ?? true
        }
    }

    /// Refuses a key that may not act on `bundleID`: 403 naming the key's apps, or, with
    /// `hiding`, the same 404 an unknown id gets (so a key cannot learn another app's ids).
    func requireApp(_ bundleID: String, hiding notFound: String? = nil) throws(APIError) {
        guard !mayAct(on: bundleID) else { return }
        if let notFound { throw APIError.notFound(notFound) }
        let allowed = key?.scope == .app ? [key?.bundleID ?? ""] : key?.apps ?? []
        throw APIError(403, "forbidden", "this key acts on \(allowed.joined(separator: ", ")) only, not on \(bundleID.prefix(155))", field: "bundleID")
    }

    /// Whether the caller may see and manage `other`: an admin key of every app may manage every
    /// key; an admin key of some apps, the keys whose apps are all among them.
    func mayManage(_ other: APIKeyRecord) -> Bool {
        guard let key, key.scope == .admin else { return false }
        guard let mine = key.apps else { return true }
        switch other.scope {
        case .app: return other.bundleID.map(mine.contains) ?? false
        case .admin: return other.apps.map { $0.allSatisfy(mine.contains) } ?? false
        }
    }
}

/// API keys: make (bound to an app, or an admin key of some apps), list, revoke, rotate.
extension Service {
    /// The longest grace a rotated key keeps working.
    static let maxRotationGrace = 7 * 86_400

    func createKey(_ c: RequestContext) throws -> Answer {
        var body = try JSONBody(c.request.body)
        let scopeName = try body.string("scope") ?? "app"
        let name = try body.string("name", maxLength: 200)
        let bundleID = try body.string("bundleID", maxLength: 155)
        let apps = try body.strings("apps", maxCount: 1000)
        let expiresAt = try body.date("expiresAt")
        try body.finish()
        guard let scope = KeyScope(rawValue: scopeName) else { throw APIError.invalid("scope", "must be \"app\" or \"admin\", got \"\(scopeName.prefix(20))\"") }
        if let expiresAt, expiresAt <= c.now { throw APIError.invalid("expiresAt", "must be in the future, got \(ISODate.string(expiresAt))") }
        switch scope {
        case .app:
            if apps != nil { throw APIError.invalid("apps", "goes with scope \"admin\"; an app key has one bundleID") }
            if let bundleID { try c.requireApp(bundleID) }
        case .admin:
            if bundleID != nil { throw APIError.invalid("bundleID", "goes with scope \"app\"; an admin key is limited to apps with \"apps\"") }
            if let apps {
                guard !apps.isEmpty else { throw APIError.invalid("apps", "must name at least one app (leave it out for every app)") }
                for app in apps where app.contains(",") { throw APIError.invalid("apps", "\"\(app.prefix(60))\" is not a bundle id") }
                for app in apps { try c.requireApp(app) }
            } else if c.key?.apps != nil {
                throw APIError(403, "forbidden", "an admin key limited to some apps cannot make a key of every app: give \"apps\"", field: "apps")
            }
        }
        return try commit(c) { tx in
            var bound = bundleID
            if scope == .app && bound == nil {
                // Without a bundleID the key is bound to the one app there is; with several, the caller must say which.
                let registered = try tx.apps().filter { c.mayAct(on: $0.bundleID) }
                guard registered.count == 1 else {
                    throw APIError.invalid("bundleID", "an app key is bound to one app: give the bundleID of a registered app (\(registered.count) apps are registered)")
                }
                bound = registered[0].bundleID
            }
            for app in [bound].compactMap({ $0 }) + (apps ?? []) where try tx.app(bundleID: app) == nil {
                throw APIError(404, "unknown-app", "app \(app.prefix(155)) is not registered: POST /v1/apps first", field: apps == nil ? "bundleID" : "apps")
            }
            let made = KeyAuthority.make(scope: scope, name: name, now: c.now, bundleID: bound, apps: apps.map { Array(Set($0)).sorted() }, expiresAt: expiresAt)
            try tx.insertKey(made.record)
            var answer = Answer(201, Self.json(made.record, secret: made.secret))
            answer.shownOnce = ["key"]
            return answer
        }
    }

    /// `GET /v1/keys?limit=&after=`: ids, scopes, apps and dates; never a secret or a hash.
    func listKeys(_ c: RequestContext) throws -> Answer {
        let limit = Int(c.request.queryValue("limit") ?? "100") ?? 0
        guard (1...1000).contains(limit) else { throw APIError.invalid("limit", "must be an integer from 1 to 1000") }
        let after = c.request.queryValue("after")
        if let after { try Self.checkPathParameter("after", after) }
        let page = try store.write { try $0.keys(after: after, limit: limit) }
        var o: JSONObject = ["keys": .array(page.filter(c.mayManage).map { Self.json($0, secret: nil, now: c.now) })]
        if page.count == limit, let last = page.last { o["next"] = .string(last.id) }
        return Answer(200, .object(o))
    }

    /// `DELETE /v1/keys/{keyID}`: refused from now on, on every instance.
    func revokeKey(_ c: RequestContext) throws -> Answer {
        let id = c.param("keyID")
        let answer = try commit(c) { tx in
            guard let record = try tx.key(id: id), c.mayManage(record) else { throw APIError.notFound("key \(id) is not known") }
            if record.scope == .admin, record.apps == nil, record.isUsable(at: c.now) {
                // Nobody could make keys again: the last admin key of every app stays (rotate it instead).
                let others = try tx.keys(after: nil, limit: 1_000_000).filter { $0.id != id && $0.scope == .admin && $0.apps == nil && $0.isUsable(at: c.now) }
                if others.isEmpty { throw APIError.conflict("key \(id) is the last admin key of every app: make or rotate another one first") }
            }
            _ = try tx.revokeKey(id: id, at: c.now)
            var revoked = record
            revoked.revokedAt = revoked.revokedAt ?? c.now
            return Answer(200, Self.json(revoked, secret: nil, now: c.now))
        }
        keys.invalidate()
        return answer
    }

    /// `POST /v1/keys/{keyID}/rotate`: a new key with the same scope, apps and expiry (shown
    /// once); the old one keeps working for `graceSeconds` (default 3600), then is refused.
    func rotateKey(_ c: RequestContext) throws -> Answer {
        let id = c.param("keyID")
        var body = try JSONBody(c.request.body)
        let grace = try body.integer("graceSeconds", in: 0...Self.maxRotationGrace) ?? 3600
        let bundleID = try body.string("bundleID", maxLength: 155)
        try body.finish()
        let answer = try commit(c) { tx in
            guard let old = try tx.key(id: id), c.mayManage(old) else { throw APIError.notFound("key \(id) is not known") }
            guard old.isUsable(at: c.now) else { throw APIError.conflict("key \(id) is revoked or expired: make a new key instead") }
            // An app key from before keys were bound gets a bound successor: the bundleID given, or the only app.
            var bound = old.bundleID
            if let bundleID, bundleID != old.bundleID {
                guard old.scope == .app, old.bundleID == nil else { throw APIError.invalid("bundleID", "only an app key without a bundle can be bound by a rotation") }
                try c.requireApp(bundleID)
                guard try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "app \(bundleID) is not registered", field: "bundleID") }
                bound = bundleID
            } else if old.scope == .app, old.bundleID == nil {
                let registered = try tx.apps().filter { c.mayAct(on: $0.bundleID) }
                guard registered.count == 1 else {
                    throw APIError.invalid("bundleID", "this app key has no bundle: give the bundleID its successor is bound to (\(registered.count) apps are registered)")
                }
                bound = registered[0].bundleID
            }
            let made = KeyAuthority.make(scope: old.scope, name: old.name, now: c.now, bundleID: bound, apps: old.apps, expiresAt: old.expiresAt)
            try tx.insertKey(made.record)
            let until = c.now.addingTimeInterval(Double(grace))
            if grace == 0 { _ = try tx.revokeKey(id: id, at: c.now) } else { _ = try tx.expireKey(id: id, at: until) }
            var o = Self.json(made.record, secret: made.secret).objectValue ?? [:]
            o["previous"] = ["id": .string(id), "validUntil": .string(ISODate.string(min(until, old.expiresAt ?? until)))]
            var answer = Answer(201, .object(o))
            answer.shownOnce = ["key"]
            return answer
        }
        keys.invalidate()
        return answer
    }

    /// A key for answers: the secret only when just made, never the hash.
    static func json(_ k: APIKeyRecord, secret: String?, now: Date = Date()) -> JSONValue {
        var o: JSONObject = ["id": .string(k.id), "scope": .string(k.scope.rawValue), "createdAt": .string(ISODate.string(k.createdAt))]
        if let name = k.name { o["name"] = .string(name) }
        if let bundleID = k.bundleID { o["bundleID"] = .string(bundleID) }
        if let apps = k.apps { o["apps"] = .array(apps.map(JSONValue.string)) }
        if let expiresAt = k.expiresAt { o["expiresAt"] = .string(ISODate.string(expiresAt)) }
        if let revokedAt = k.revokedAt { o["revokedAt"] = .string(ISODate.string(revokedAt)) }
        if let secret {
            o["key"] = .string(secret)
            o["note"] = "shown once: Liveline keeps only its hash"
        } else {
            o["state"] = .string(k.revokedAt != nil ? "revoked" : (k.isUsable(at: now) ? "active" : "expired"))
        }
        return .object(o)
    }
}

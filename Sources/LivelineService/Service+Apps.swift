import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore

/// Apps: their APNs credentials, registered by an admin key (of every app, or of that app).
extension Service {
    func createApp(_ c: RequestContext) throws -> Answer {
        var body = try JSONBody(c.request.body)
        let bundleID = try body.requiredString("bundleID", maxLength: 155)
        let teamID = try body.requiredString("teamID", maxLength: 10)
        let keyID = try body.requiredString("keyID", maxLength: 10)
        let pem = try body.requiredString("key", maxLength: 8192)
        let environment = try body.string("environment") ?? "production"
        let environments = try body.strings("environments", maxCount: 2)
        try body.finish()
        guard bundleID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
            throw APIError.invalid("bundleID", "must be a bundle identifier like com.example.flights")
        }
        if let doubled = PushRequest.doubledSuffix(Substring(bundleID)) {
            throw APIError(400, doubled.code.rawValue, doubled.message, field: "bundleID")
        }
        for (field, value) in [("teamID", teamID), ("keyID", keyID)] where value.utf8.count != 10 || !value.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
            throw APIError.invalid(field, "must be 10 upper-case letters and digits, as Apple's developer account shows it")
        }
        guard environment == "production" || environment == "sandbox" else {
            throw APIError.invalid("environment", "must be \"production\" or \"sandbox\", got \"\(environment.prefix(20))\"")
        }
        let enabled = try Self.enabledEnvironments(environments, default: environment)
        try c.requireApp(bundleID)
        do { _ = try P256PrivateKey(pem: pem) } catch {
            // The key's contents are never repeated: only what kind of problem it has.
            throw APIError.invalid("key", "is not a usable .p8 key: \(error.message)")
        }
        let app = AppRecord(bundleID: bundleID, teamID: teamID, keyID: keyID, keyPEM: vault.seal(pem, bundleID: bundleID), environment: environment, createdAt: c.now, environments: enabled)
        return try commit(c) { tx in
            let existed = try tx.app(bundleID: bundleID) != nil
            try tx.upsertApp(app)
            return Answer(existed ? 200 : 201, Self.json(app))
        }
    }

    func listApps(_ c: RequestContext) throws -> Answer {
        let (limit, after) = try Self.namePage(c)
        let apps = try store.write { try $0.apps() }.filter { c.mayAct(on: $0.bundleID) }.sorted { $0.bundleID < $1.bundleID }
        return Self.paged("apps", apps, key: \.bundleID, after: after, limit: limit, json: Self.json)
    }

    static func json(_ app: AppRecord) -> JSONValue {
        // Never the key.
        ["bundleID": .string(app.bundleID), "teamID": .string(app.teamID), "keyID": .string(app.keyID),
         "environment": .string(app.environment), "createdAt": .string(ISODate.string(app.createdAt)),
         "environments": .array(app.enabledEnvironments.map(JSONValue.string))]
    }
}

// MARK: Token hygiene: the environments an app sends in (TokenHygiene.swift)
extension Service {
    /// `environments` of `POST /v1/apps`: `nil` (only `environment`), or the environments enabled,
    /// which must hold `environment` (the default of tokens registered without one).
    static func enabledEnvironments(_ list: [String]?, default environment: String) throws(APIError) -> [String]? {
        guard let list else { return nil }
        if list.isEmpty { throw APIError.invalid("environments", "must name at least one environment, \"sandbox\" or \"production\"") }
        for e in list where !TokenHygiene.environments.contains(e) {
            throw APIError.invalid("environments", "must hold only \"sandbox\" and \"production\", got \"\(e.prefix(40))\"")
        }
        if Set(list).count != list.count { throw APIError.invalid("environments", "names an environment twice") }
        guard list.contains(environment) else {
            throw APIError.invalid("environments", "must include environment \"\(environment)\", the default of tokens registered without one")
        }
        return list.count == 1 ? nil : list
    }
}

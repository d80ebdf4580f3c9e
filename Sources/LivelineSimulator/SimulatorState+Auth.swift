import Foundation
import LivelineCore
import LivelineCrypto

extension SimulatorState {
    /// The outcome of checking a request's credentials.
    struct AuthResult {
        var reason: APNSReason?
        var teamID: String?
        /// For a topic-specific key, the bundle ids it may push to.
        var topics: [String]?
    }

    /// Checks `authorization` (or the client certificate) and the connection's bindings (§5, §10 step 5).
    mutating func authenticate(_ request: SimulatorRequest, connection: inout ConnectionState, now: Date) -> AuthResult {
        switch connection.authentication {
        case .trusted:
            return AuthResult()
        case .certificate(_, let environment, let valid):
            if !valid { return AuthResult(reason: .badCertificate) }
            if environment != config.environment { return AuthResult(reason: .badCertificateEnvironment) }
            return AuthResult()
        case .token:
            break
        }
        guard let header = request.header(lowercaseASCII: "authorization") else { return AuthResult(reason: .missingProviderToken) }

        let memo: SimulatorMemo.Authorization
        if let last = self.memo.authorization(for: header) {
            // The same header as last time: the same token, check and key (the memo forgets it
            // whenever keys change, and a check depends only on the token and the keys).
            memo = last
        } else {
            guard let tokenString = Self.bearerToken(header) else { return AuthResult(reason: .missingProviderToken) }
            let checked: SimulatorMemo.CheckedToken
            if let hit = self.memo.checkedToken(tokenString) {
                checked = hit
            } else {
                guard let token = try? JWT(parsing: tokenString) else {
                    return AuthResult(reason: .invalidProviderToken)
                }
                var valid = false
                if let key = keysByID[token.keyID], key.teamID == token.teamID {
                    valid = (try? token.verify(with: key.publicKey)) != nil
                }
                checked = SimulatorMemo.CheckedToken(token: token, valid: valid)
                self.memo.remember(checked, for: tokenString)
            }
            memo = SimulatorMemo.Authorization(header: header, token: tokenString, checked: checked, key: keysByID[checked.token.keyID])
            self.memo.remember(memo)
        }
        let tokenString = memo.token
        guard memo.valid, memo.keyFound else { return AuthResult(reason: .invalidProviderToken) }
        if !memo.scope.allows(hostEnvironment(connection)) { return AuthResult(reason: .badEnvironmentKeyIDInToken) }
        if now.timeIntervalSince(memo.issuedAt) > 3600 { return AuthResult(reason: .expiredProviderToken) }

        if let boundTeam = connection.boundTeamID, let boundKey = connection.boundKeyID {
            if boundTeam != memo.teamID { return AuthResult(reason: .invalidProviderToken) }
            if boundKey != memo.keyID, memo.relatedKeyID != boundKey, keysByID[boundKey]?.relatedKeyID != memo.keyID {
                return AuthResult(reason: .unrelatedKeyIDInToken)
            }
            if let env = connection.boundEnvironment, env != hostEnvironment(connection) { return AuthResult(reason: .badEnvironmentKeyIDInToken) }
        }
        if let current = connection.currentToken, current != tokenString {
            if let changed = connection.tokenChangedAt, now.timeIntervalSince(changed) < 20 * 60 {
                return AuthResult(reason: .tooManyProviderTokenUpdates)
            }
        }
        if connection.currentToken != tokenString {
            connection.currentToken = tokenString
            connection.tokenChangedAt = now
        }
        if connection.boundKeyID == nil {
            connection.boundKeyID = memo.keyID
            connection.boundTeamID = memo.teamID
            connection.boundEnvironment = hostEnvironment(connection)
        }
        return AuthResult(teamID: memo.teamID, topics: memo.topics)
    }

    /// The token after a case-insensitive `bearer ` and any spaces; `nil` when there is none.
    static func bearerToken(_ header: String) -> String? {
        let u = header.utf8
        let scheme = Array("bearer".utf8)
        guard u.count > scheme.count + 1 else { return nil }
        var i = u.startIndex
        for c in scheme {
            guard u[i] | 0x20 == c else { return nil }
            i = u.index(after: i)
        }
        guard u[i] == 0x20 else { return nil }
        while i < u.endIndex, u[i] == 0x20 { i = u.index(after: i) }
        var end = u.endIndex
        while end > i, u[u.index(before: end)] == 0x20 { end = u.index(before: end) }
        guard i < end else { return nil }
        return String(header[i..<end])
    }

    /// Whether the authenticated key may push to `bundleID`: `nil` if so, else the reason (§10 step 7).
    func topicReason(bundleID: String, auth: AuthResult, connection: ConnectionState, pushType: PushType) -> APNSReason? {
        topicReason(app: appsByBundle[bundleID], bundleID: bundleID, auth: auth, connection: connection, pushType: pushType)
    }

    /// `topicReason(bundleID:auth:connection:pushType:)` with `appsByBundle[bundleID]` already looked up.
    func topicReason(app: AppRegistration?, bundleID: String, auth: AuthResult, connection: ConnectionState, pushType: PushType) -> APNSReason? {
        switch connection.authentication {
        case .trusted:
            return app == nil ? .badTopic : nil
        case .certificate(let certBundle, _, _):
            if pushType.requiresTokenAuthentication { return .topicDisallowed }
            return certBundle == bundleID ? nil : .badTopic
        case .token:
            guard let app else { return .badTopic }
            if app.teamID != auth.teamID { return .topicDisallowed }
            if let topics = auth.topics, !topics.contains(bundleID) { return .topicDisallowed }
            return nil
        }
    }
}

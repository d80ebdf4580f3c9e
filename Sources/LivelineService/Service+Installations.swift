import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore

/// Installations, user binding and who may act on which activity (docs/security.md).
extension Service {
    /// `POST /v1/installations` (app key): a new installation, its device registered, and its
    /// secret shown once. With `claim` (`deviceID` + a token the service holds for that device), a
    /// device registered before installations existed gets its credential: only that phone knows
    /// its APNs tokens.
    func createInstallation(_ c: RequestContext) async throws -> Answer {
        var body = try JSONBody(c.request.body)
        let bundleID = try body.requiredString("bundleID", maxLength: 155)
        let raw = try body.requiredString("iosVersion", maxLength: 40)
        let frequent = try body.bool("frequentUpdates") ?? false
        var claim = try body.object("claim")
        let claimDevice = try claim?.requiredString("deviceID", maxLength: 200)
        let claimToken = try claim?.requiredString("token", maxLength: 400)
        try claim?.finish()
        try body.finish()
        let ios = try OSVersionNumber.field(raw)
        if let claimDevice { try Self.checkPathParameter("claim.deviceID", claimDevice) }
        if let claimToken { try Self.checkToken(claimToken, field: "claim.token") }
        // An app key is bound to its app: it makes installations of that app only.
        try c.requireApp(bundleID)
        let made = InstallationAuthority.make(bundleID: bundleID, now: c.now)
        let answer = try await commitAsync(c) { tx in
            guard try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "bundleID \(bundleID) is not registered: POST /v1/apps first", field: "bundleID") }
            var record = made.record
            var device = DeviceRecord(deviceID: record.installationID, bundleID: bundleID, iosVersion: ios, userID: nil, frequentUpdates: frequent, updatedAt: c.now, userVerified: false)
            if let claimDevice, let claimToken {
                // One answer for an unknown device, another app's device and a wrong token.
                guard var existing = try tx.device(claimDevice), existing.bundleID == bundleID,
                      try tx.deviceHoldsToken(deviceID: claimDevice, token: claimToken.lowercased()) else {
                    throw APIError(403, "claim-refused", "claim: the service holds no such token for that device of \(bundleID)", field: "claim")
                }
                record.installationID = claimDevice
                existing.iosVersion = ios
                existing.frequentUpdates = frequent
                existing.updatedAt = c.now
                device = existing
            }
            try tx.insertInstallation(record)
            try tx.upsertDevice(device)
            var answer = Self.json(device).objectValue ?? [:]
            answer["installationID"] = .string(record.installationID)
            answer["secret"] = .string(made.secret)
            answer["note"] = "the secret is shown once: keep it in the platform's secure storage and send it as 'Authorization: Bearer'"
            var made = Answer(201, .object(answer))
            made.shownOnce = ["secret"]
            return made
        }
        // A claim gives an id a new secret: the old one is refused from this answer on.
        if let claimDevice { installations.forget(claimDevice) }
        // Committed (not a replay, which runs nothing): the new credential is trusted at once, under
        // the id the answer gives (a claim's device id, or the new one).
        if answer.replayed == nil, let id = answer.json["installationID"]?.stringValue {
            var record = made.record
            record.installationID = id
            installations.remember(record, secret: made.secret)
        }
        return answer
    }

    /// `PUT /v1/apps/{bundleID}/token-secret` (admin): the HS256 secret the app's backend signs
    /// user tokens and activity grants with. The previous one stays valid until the next rotation.
    func putTokenSecret(_ c: RequestContext) throws -> Answer {
        let bundleID = c.param("bundleID")
        var body = try JSONBody(c.request.body.isEmpty ? Array("{}".utf8) : c.request.body)
        let given = try body.string("secret", maxLength: 512)
        try body.finish()
        if let given, given.utf8.count < 32 { throw APIError.invalid("secret", "must be at least 32 characters (or leave it out and the service makes one)") }
        let secret = given ?? Digest.hex(Digest.randomBytes(32))
        return try commit(c) { tx in
            // Another app's id, for an admin key of some apps, answers as an unknown one does.
            guard c.mayAct(on: bundleID), try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "app \(bundleID) is not registered: POST /v1/apps first") }
            try tx.setUserTokenSecret(bundleID: bundleID, secret: vault.sealTokenSecret(secret, bundleID: bundleID), now: c.now)
            var o: JSONObject = ["bundleID": .string(bundleID), "rotated": true,
                                 "note": "sign user tokens and activity grants (HS256 JWTs) with this secret; the previous one stays valid until the next rotation"]
            if given == nil { o["secret"] = .string(secret) }
            var answer = Answer(200, .object(o))
            answer.shownOnce = ["secret"]
            return answer
        }
    }

    /// The device id a device-scoped route may act on: an installation's own id only (any other
    /// id gets the same 404 as an unknown one); an admin key may name any device.
    func ownDevice(_ c: RequestContext, _ deviceID: String) throws -> String {
        if let installation = c.installation, installation.installationID != deviceID {
            throw APIError(404, "unknown-device", "device \(deviceID) is not registered")
        }
        return deviceID
    }

    /// A `deviceID` in a body: an installation's must be its own (or absent); it is never trusted.
    func bodyDevice(_ c: RequestContext, _ given: String?) throws -> String? {
        guard let installation = c.installation else { return given }
        if let given, given != installation.installationID {
            throw APIError.invalid("deviceID", "an installation acts only on itself: leave deviceID out (its credential names the device)")
        }
        return installation.installationID
    }

    /// Binds `userID` with the backend's user token: claims `sub` (the user), `deviceID` (this
    /// installation), `exp` (at most 1 hour ahead), and `aud` (the bundle id) when present.
    func verifyUserToken(_ token: String, userID: String?, installation: InstallationRecord, tx: any StoreTransaction, now: Date) throws -> String {
        let claims = try BackendToken.verify(token, secrets: try tokenSecrets(installation.bundleID, tx), field: "userToken", now: now)
        guard claims["activityID"] == nil, let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw APIError(401, "invalid-user-token", "userToken: needs a sub claim (the user id) and no activityID", field: "userToken")
        }
        guard claims["deviceID"]?.stringValue == installation.installationID else {
            throw APIError(401, "invalid-user-token", "userToken: its deviceID claim is not this installation", field: "userToken")
        }
        if let aud = claims["aud"], aud.stringValue != installation.bundleID {
            throw APIError(401, "invalid-user-token", "userToken: its aud claim is not this app's bundle id", field: "userToken")
        }
        if let userID, userID != subject { throw APIError(401, "invalid-user-token", "userToken: it binds another user than userID", field: "userToken") }
        let bound = try tx.verifiedDeviceCount(userID: subject, excluding: installation.installationID)
        if bound >= configuration.maxInstallationsPerUser {
            throw APIError(409, "user-installation-limit", "user \(subject) is already bound to \(bound) installations (maxInstallationsPerUser); delete one first", field: "userToken")
        }
        return subject
    }

    /// Whether the installation may register for `activityID`: the service push-started it on
    /// this installation, or it already holds a token for it, or the backend granted it, or the id
    /// is in the installation's own namespace (`<installationID>:…`). Otherwise the same 404 as an
    /// unknown activity.
    func mayHold(_ activityID: String, activity: ActivityRecord?, holdsToken: Bool, installation: InstallationRecord, grant: String?, tx: any StoreTransaction, now: Date) throws {
        let id = installation.installationID
        if Self.isOwnNamespace(activityID, installationID: id) { return }
        if let activity, activity.bundleID == installation.bundleID {
            if holdsToken { return }
            if try tx.wasPushStarted(activityID: activityID, deviceID: id, since: activity.startedAt) { return }
        }
        if let grant, activity == nil || activity?.bundleID == installation.bundleID {
            let claims = try BackendToken.verify(grant, secrets: try tokenSecrets(installation.bundleID, tx), field: "grant", now: now)
            guard claims["activityID"]?.stringValue == activityID, claims["deviceID"]?.stringValue == id else {
                throw APIError(401, "invalid-grant", "grant: it names another activity or installation", field: "grant")
            }
            return
        }
        throw Self.unknownActivity(activityID)
    }

    /// Whether the installation holds `activityID` (for taps and receipts).
    func holds(_ activityID: String, installation: InstallationRecord, tx: any StoreTransaction) throws -> Bool {
        let id = installation.installationID
        guard let activity = try tx.activity(activityID), activity.bundleID == installation.bundleID else { return false }
        if try tx.activityToken(activityID: activityID, deviceID: id) != nil { return true }
        return try tx.wasPushStarted(activityID: activityID, deviceID: id, since: activity.startedAt)
    }

    /// App-started activities live under `<installationID>:`; the backend's ids never do.
    static func isOwnNamespace(_ activityID: String, installationID: String) -> Bool {
        activityID.hasPrefix(installationID + ":") && activityID.utf8.count > installationID.utf8.count + 1
    }

    static func isInstallationNamespace(_ activityID: String) -> Bool {
        activityID.hasPrefix("inst_") && activityID.contains(":")
    }

    /// The one answer for an activity that does not exist and one the caller may not touch.
    /// The app's user-token secrets in the clear, newest first.
    func tokenSecrets(_ bundleID: String, _ tx: any StoreTransaction) throws -> [String] {
        try tx.userTokenSecrets(bundleID: bundleID).map { stored throws -> String in
            do { return try vault.openTokenSecret(stored, bundleID: bundleID) } catch {
                // The start checked every secret opens: this is a database changed under a running service.
                throw APIError(503, "secret-unavailable", "the app's user-token secret cannot be opened with this instance's key-encryption key; nothing was changed")
            }
        }
    }

    static func unknownActivity(_ activityID: String) -> APIError { APIError.notFound("activity \(activityID) is not known") }

    /// Deletes interactions past their retention, at most every 10 minutes.
    func applyRetention(_ tx: any StoreTransaction, now: Date) throws {
        let due = lastRetention.withLock { last -> Bool in
            guard now.timeIntervalSince(last) > 600 else { return false }
            last = now
            return true
        }
        if due { _ = try tx.deleteInteractions(before: now.addingTimeInterval(-configuration.interactionRetentionDays * 86_400)) }
    }
}

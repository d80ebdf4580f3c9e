import Foundation
import LivelineAPNS
import LivelineCore
import LivelineStore

/// Token hygiene (issues 24 and 25): each token's APNs environment, the host its pushes go to,
/// what a `BadDeviceToken` means (the build uses the other environment; the token is kept and
/// marked, not deleted), and push-to-start tokens the app stopped reporting.
///
/// The finding codes appear at the start of the reasons the service records, so an operator can
/// search for them (docs/traps.md).
enum TokenHygiene {
    /// A token registered for an environment the app does not send in: refused before APNs is asked.
    static let environmentMismatch = "token-environment-mismatch"
    /// A token APNs' host refused with `BadDeviceToken`: kept, marked, not used until registered again.
    static let refusedByHost = "token-environment-refused"
    /// A push-to-start token the app has not reported for longer than `pushToStartTokenMaxUnseen`.
    static let pushToStartExpired = "push-to-start-token-expired"

    /// The two APNs environments, as tokens, apps and requests name them.
    static let environments = ["sandbox", "production"]

    /// The `environment` member of a registration body: `nil` when absent (the app's default), else
    /// exactly `sandbox` or `production`.
    static func environmentField(_ raw: String?) throws(APIError) -> String? {
        guard let raw else { return nil }
        guard environments.contains(raw) else {
            throw APIError.invalid("environment", "must be \"sandbox\" or \"production\" (the build's aps-environment entitlement), got \"\(raw.prefix(40))\"; leave it out to use the app's default environment")
        }
        return raw
    }

    /// The environment a token's pushes go to: the one its app reported, else the app's default.
    static func environment(of token: TokenRecord, app: AppRecord?) -> String {
        token.environment ?? app?.environment ?? "production"
    }

    static func other(_ environment: String) -> String { environment == "sandbox" ? "production" : "sandbox" }

    /// The reason recorded on a delivery refused before APNs was asked.
    static func mismatch(_ environment: String, app: AppRecord) -> String {
        "\(environmentMismatch): the token belongs to APNs' \(environment) environment, but app \(app.bundleID) sends only in \(app.enabledEnvironments.joined(separator: " and ")); enable it (POST /v1/apps with \"environments\": [\"sandbox\", \"production\"]) or register the token from a build signed for \(app.enabledEnvironments.joined(separator: " or "))"
    }

    /// What a refused token's state says.
    static func refusal(host environment: String) -> String {
        "\(refusedByHost): APNs' \(environment) host refused this token (BadDeviceToken): the build probably uses the other environment (\(other(environment))); the token is kept and not used until the app registers it again"
    }

    /// Why a push-to-start token is not used for a start, or `nil` when it may be.
    static func unusableForStart(_ token: TokenRecord, now: Date, maxUnseen: Duration?) -> String? {
        if let refusal = token.refusal { return refusal }
        if let limit = maxUnseen, now.timeIntervalSince(token.registeredAt) > limit.seconds {
            return "\(pushToStartExpired): the app last reported this push-to-start token at \(ISODate.string(token.registeredAt)), more than \(describe(limit)) ago (pushToStartTokenMaxUnseenDays); it is not used until the app reports it again"
        }
        return nil
    }

    private static func describe(_ d: Duration) -> String {
        let s = d.seconds
        if s >= 86_400 { return "\(JSONValue.javaScriptNumber((s / 86_400 * 100).rounded() / 100)) days" }
        return "\(JSONValue.javaScriptNumber(s.rounded())) seconds"
    }

    /// A token as the device and activity answers show it: prefix, environment, state and why.
    static func json(_ token: TokenRecord, app: AppRecord?, scopeName: String, now: Date, maxUnseen: Duration?) -> JSONValue {
        var o: JSONObject = [scopeName: .string(scopeName == "deviceID" ? token.deviceID : token.scope), "token": .string(Service.prefix(token.token)),
                             "registeredAt": .string(ISODate.string(token.registeredAt)),
                             "environment": .string(environment(of: token, app: app)), "environmentReported": .bool(token.environment != nil)]
        if let app, !app.enabledEnvironments.contains(environment(of: token, app: app)) {
            o["state"] = "mismatch"
            o["reason"] = .string(mismatch(environment(of: token, app: app), app: app))
        } else if let refusal = token.refusal {
            o["state"] = "refused"
            o["reason"] = .string(refusal)
            if let at = token.refusedAt { o["refusedAt"] = .string(ISODate.string(at)) }
        } else if let why = unusableForStart(token, now: now, maxUnseen: maxUnseen) {
            o["state"] = "expired"
            o["reason"] = .string(why)
        } else {
            o["state"] = "active"
        }
        return .object(o)
    }

    /// A `BadDeviceToken` verdict: the token stays, marked refused (unless the app registered
    /// another token, or this one for another environment, since the push was queued).
    static func refuseOutcome(_ row: DeliveryRecord, _ r: APNSResult.Rejection, _ tx: any StoreTransaction) throws -> DeliveryOutcome {
        let bundleID = try tx.send(row.sendID)?.bundleID
        let app = try bundleID.flatMap { try tx.app(bundleID: $0) }
        let host = row.environment ?? app?.environment ?? "production"
        let why = refusal(host: host)
        func failed(_ reason: String) -> DeliveryOutcome {
            DeliveryOutcome(id: row.id, state: .failed, apnsID: r.apnsID, status: r.status, reason: "\(r.reason.rawValue): \(reason)")
        }
        guard let device = row.deviceID else { return failed(why) }
        let current: TokenRecord?
        if row.target == .pushToStart {
            let type = try tx.activity(row.activityID)?.attributesType ?? ""
            current = try tx.pushToStartToken(deviceID: device, attributesType: type)
        } else {
            current = try tx.activityToken(activityID: row.activityID, deviceID: device)
        }
        guard let current, current.token == row.token else { return failed("\(why) (the token was already replaced or removed)") }
        guard environment(of: current, app: app) == host else {
            return failed("\(why) (the app has since registered it for \(environment(of: current, app: app)); not marked)")
        }
        let now = Date()
        if row.target == .pushToStart {
            _ = try tx.refusePushToStartToken(deviceID: device, token: row.token, at: now, reason: why)
        } else {
            _ = try tx.refuseActivityToken(activityID: row.activityID, deviceID: device, token: row.token, at: now, reason: why)
        }
        return failed(why)
    }
}

extension Service {
    /// `GET /v1/devices/{id}`'s push-to-start tokens, each with its environment and state.
    func pushToStartTokensJSON(_ device: DeviceRecord, _ tx: any StoreTransaction, now: Date) throws -> JSONValue {
        let app = try tx.app(bundleID: device.bundleID)
        let tokens = try tx.pushToStartTokens(deviceID: device.deviceID)
        return .array(tokens.map { TokenHygiene.json($0, app: app, scopeName: "attributesType", now: now, maxUnseen: configuration.pushToStartTokenMaxUnseen) })
    }
}

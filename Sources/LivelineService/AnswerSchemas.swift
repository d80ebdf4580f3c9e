import LivelineCore
import LivelineStore

/// The published shape of each route's success answer (`/openapi.json`), declared once beside the
/// route table and keyed by `"METHOD /pattern"`. With `ServiceConfiguration.checkAnswers` on (the
/// project's own tests and the demo run so) every answer is checked against it before it leaves,
/// so a member a handler adds without declaring it here fails the test that produced it.
extension Schema {
    /// An object whose `required` members are always present and `optional` ones sometimes.
    static func record(_ required: [(String, JSONValue)], optional: [(String, JSONValue)] = []) -> JSONValue {
        object(required + optional, required: required.map(\.0))
    }
    static func strings(_ values: String...) -> JSONValue { strings(values) }
    static func strings(_ values: [String]) -> JSONValue { ["type": "string", "enum": .array(values.map(JSONValue.string))] }
    static let stringMap: JSONValue = ["type": "object", "additionalProperties": string]
}

extension Service {
    static var answerSchemas: [String: JSONValue] {
        let s = Schema.string, b = Schema.boolean, i = Schema.integer, date = Schema.dateTime
        let environment = Schema.strings("sandbox", "production")
        let finding = Schema.record([("severity", Schema.strings("error", "warning")), ("code", s), ("path", s), ("message", s)], optional: [("text", s)])
        let tokenHygiene: [(String, JSONValue)] = [("registeredAt", date), ("environment", environment), ("environmentReported", b), ("state", s)]
        let tokenHygieneOptional: [(String, JSONValue)] = [("reason", s), ("refusedAt", date), ("lastSeenAt", date), ("expiresAt", date)]
        let deleted = { (id: String) in Schema.record([(id, s), ("deleted", b)]) }

        // Apps, keys, installations, devices
        let app = Schema.record([("bundleID", s), ("teamID", s), ("keyID", s), ("environment", environment), ("createdAt", date),
                                 ("environments", Schema.array(environment))])
        let key = Schema.record([("id", s), ("scope", Schema.strings("app", "admin")), ("createdAt", date), ("state", Schema.strings("active", "expired", "revoked"))],
                                optional: [("bundleID", s), ("name", s), ("apps", Schema.array(s)), ("expiresAt", date), ("revokedAt", date)])
        let newKey = Schema.record([("id", s), ("scope", Schema.strings("app", "admin")), ("createdAt", date), ("key", s), ("note", s)],
                                   optional: [("bundleID", s), ("name", s), ("apps", Schema.array(s)), ("expiresAt", date),
                                              ("previous", Schema.record([("id", s), ("validUntil", date)])), ("replayNote", s)])
        let deviceMembers: [(String, JSONValue)] = [("deviceID", s), ("bundleID", s), ("iosVersion", s), ("frequentUpdates", b), ("updatedAt", date)]
        let deviceOptional: [(String, JSONValue)] = [("userID", s), ("userVerified", b), ("appBuild", s), ("appVersion", s), ("schemaVersions", Schema.stringMap)]
        let device = Schema.record(deviceMembers, optional: deviceOptional)
        let pushToStartToken = Schema.record([("attributesType", s), ("token", s)] + tokenHygiene, optional: tokenHygieneOptional)
        let installation = Schema.record(deviceMembers + [("installationID", s), ("note", s)], optional: deviceOptional + [("secret", s), ("replayNote", s)])

        // Budgets (Service+Budget.swift)
        let budgetEntry = Schema.record([("activityID", s), ("at", date), ("sendID", i), ("via", Schema.strings("token", "channel")), ("reason", s)],
                                        optional: [("deliveryID", i)])
        let budget = Schema.record([
            ("deviceID", s), ("bundleID", s), ("at", date),
            ("immediate", Schema.record([("budgetPerHour", i), ("frequentUpdates", b), ("spent", i),
                                         ("activities", Schema.array(Schema.record([("activityID", s), ("spent", i), ("remaining", i), ("byToken", i), ("byBroadcast", i)],
                                                                                   optional: [("refillsAt", date)])))])),
            ("pushToStart", Schema.record([("budget", i), ("windowSeconds", i), ("spent", i), ("remaining", i), ("activityIDs", Schema.array(s))],
                                          optional: [("refillsAt", date)])),
            ("lowered", Schema.record([("count", i), ("recent", Schema.array(budgetEntry))], optional: [("more", b)])),
            ("coalesced", Schema.record([("count", i), ("recent", Schema.array(budgetEntry))], optional: [("more", b)])),
        ], optional: [("activityID", s)])

        // Activities: sends, deliveries, per-device status
        let states = Schema.strings(DeliveryState.allCases.map(\.rawValue))
        let target = Schema.strings("token", "push-to-start", "channel")
        let delivery = Schema.record([("id", i), ("sendID", i), ("event", s), ("target", target), ("token", s), ("state", states), ("priority", i),
                                      ("attempts", i), ("updatedAt", date)],
                                     optional: [("deviceID", s), ("apnsID", s), ("status", i), ("reason", s), ("nextAttemptAt", date),
                                                ("displayedAt", date), ("displayed", b), ("note", s)])
        let lifecycle = Schema.record([], optional: ["startRequestedAt", "startAcceptedAt", "tokenRegisteredAt", "endedAt", "dismissedAt", "firstShownAt",
                                                      "lastReceiptAt", "staleAt", "followsChannelSince"].map { ($0, date) } + [("endedBy", s)])
        // Renewal past 8 hours (Service+Renewal.swift): per device, and for the activity.
        let deviceRenewal = Schema.record([("deviceID", s), ("generation", i), ("state", Schema.strings("waiting", "pending", "confirmed", "unconfirmed", "skipped")),
                                           ("requestedAt", date)], optional: [
            ("successor", Schema.record([("sendID", i)], optional: [("confirmedAt", date), ("confirmedBy", s)])),
            ("predecessor", Schema.record([("token", s), ("startedAt", date)], optional: [("endSendID", i)])),
            ("reason", Schema.record([("code", s), ("message", s)])),
        ])
        let renewal = Schema.record([("enabled", b), ("generation", i), ("marginSeconds", Schema.number), ("devices", Schema.array(deviceRenewal))],
                                    optional: [("renewsAt", date)])
        let deviceStatus = Schema.record([("deviceID", s), ("state", s), ("reachable", b), ("lifecycle", lifecycle)], optional: [
            ("iosVersion", s), ("token", s), ("budget", budget),
            ("lastDelivery", Schema.record([("id", i), ("event", s), ("target", target), ("state", states), ("priority", i), ("at", date)],
                                           optional: [("status", i), ("apnsID", s), ("reason", s), ("note", s)])),
            ("receipt", Schema.record([("displayedAt", date), ("deliveryID", i), ("event", s)])),
            ("decodeFailure", Schema.record([("failedAt", date), ("error", s)])),
            ("reason", Schema.record([("code", s), ("message", s)])), ("renewal", deviceRenewal),
            ("channelID", s), ("startedBy", Schema.strings("app")),
        ])
        let activity = Schema.record([
            ("activityID", s), ("bundleID", s), ("attributesType", s), ("startedAt", date), ("tokenCount", i),
            ("tokens", Schema.array(Schema.record([("deviceID", s), ("token", s)] + tokenHygiene, optional: tokenHygieneOptional))),
            ("counts", Schema.record(DeliveryState.allCases.map { ($0.rawValue, i) })),
            ("final", b), ("deliveries", Schema.array(delivery)), ("devices", Schema.array(deviceStatus)),
        ], optional: [("channelID", s), ("endedAt", date), ("renewal", renewal),
                      ("aliases", Schema.array(Schema.record([("alias", s), ("kind", Schema.strings("name", "device"))], optional: [("deviceID", s)])))])
        let olderBuilds = Schema.record([("attributesType", s),
                                         ("checked", Schema.array(Schema.record([("version", s), ("devices", i), ("decodes", b)], optional: [("ignores", Schema.array(s))])))],
                                        optional: [("skipped", i), ("skippedDevices", Schema.array(Schema.record([("deviceID", s), ("appBuild", s), ("schemaVersion", s)])))])
        let skipped = Schema.array(Schema.record([("deviceID", s), ("reason", s)], optional: [("code", s), ("state", s)]))
        let started = Schema.record([("activityID", s), ("event", Schema.strings("start")), ("sendIDs", Schema.array(i)), ("queued", i), ("skipped", skipped),
                                     ("warnings", Schema.array(finding))],
                                    optional: [("olderBuilds", olderBuilds),
                                               ("activityChannel", Schema.record([("channelID", s), ("created", b), ("storagePolicy", i)]))])
        let sent = Schema.record([("activityID", s), ("event", Schema.strings("update", "end")), ("sendID", i), ("queued", i), ("superseded", i), ("downgraded", i),
                                  ("viaChannel", i), ("priority", i), ("warnings", Schema.array(finding))],
                                 optional: [("scheduledFor", date), ("skipped", skipped), ("olderBuilds", olderBuilds)])
        let interaction = Schema.record([("id", i), ("activityID", s), ("idempotencyKey", s), ("createdAt", date), ("webhook", Schema.strings("pending", "delivered", "failed")),
                                         ("attempts", i), ("action", s)],
                                        optional: [("deviceID", s), ("payload", ["type": ["object", "string", "array", "number", "boolean", "null"]]), ("lastError", s)])
        let registeredToken = { (scope: String) in
            Schema.record([(scope, s), ("deviceID", s), ("token", s), ("replaced", b), ("environment", environment)], optional: [("deviceActivityID", s)])
        }

        // Channels and schema versions
        let channel = Schema.record([("channelID", s), ("bundleID", s), ("storagePolicy", i), ("createdAt", date)], optional: [("activityID", s)])
        let schemaVersion = Schema.record([("attributesType", s), ("version", s), ("registeredAt", date), ("retired", b), ("devices", i),
                                           ("builds", Schema.array(Schema.record([("appBuild", s), ("devices", i)])))],
                                          optional: [("retiredAt", date), ("schema", Schema.anyObject), ("restored", b), ("changed", b)])
        let schemaType = Schema.record([("attributesType", s), ("versions", Schema.array(schemaVersion))],
                                       optional: [("unregisteredVersions", Schema.array(Schema.record([("version", s), ("devices", i)])))])
        // A channel bound to a logical activity (Service+ChannelMembers.swift).
        let binding = Schema.record([("activityID", s), ("bundleID", s), ("channelID", s), ("startedAt", date), ("bound", b)], optional: [("attributesType", s)])
        let member = Schema.record([("activityID", s), ("deviceID", s), ("channelID", s), ("joinedAt", date)])
        let page = { (name: String, item: JSONValue) in Schema.record([(name, Schema.array(item))], optional: [("next", s)]) }

        return [
            "GET /healthz": Schema.record([("status", s), ("database", s)]),
            "GET /openapi.json": Schema.record([("openapi", s), ("info", Schema.anyObject), ("paths", Schema.anyObject), ("components", Schema.anyObject)]),
            "POST /v1/apps": app,
            "GET /v1/apps": page("apps", app),
            "POST /v1/keys": newKey,
            "GET /v1/keys": page("keys", key),
            "DELETE /v1/keys/{keyID}": key,
            "POST /v1/keys/{keyID}/rotate": newKey,
            "POST /v1/installations": installation,
            "PUT /v1/apps/{bundleID}/token-secret": Schema.record([("bundleID", s), ("rotated", b), ("note", s)], optional: [("secret", s), ("replayNote", s)]),
            "PUT /v1/devices/{deviceID}": device,
            "GET /v1/devices/{deviceID}": Schema.record(deviceMembers + [("pushToStartTokens", Schema.array(pushToStartToken))], optional: deviceOptional),
            "GET /v1/devices/{deviceID}/budget": budget,
            "DELETE /v1/devices/{deviceID}": deleted("deviceID"),
            "PUT /v1/devices/{deviceID}/push-to-start/{attributesType}": registeredToken("attributesType"),
            "PUT /v1/activities/{activityID}/tokens/{deviceID}": registeredToken("activityID"),
            "DELETE /v1/activities/{activityID}/tokens/{deviceID}": Schema.record([("activityID", s), ("deviceID", s), ("deleted", b)]),
            "POST /v1/activities/{activityID}/interactions": interaction,
            "GET /v1/activities/{activityID}/interactions": page("interactions", interaction),
            "POST /v1/activities/{activityID}/receipts": Schema.record([("activityID", s), ("deviceID", s), ("displayed", b)]),
            "POST /v1/activities/{activityID}/decode-failures": Schema.record([("activityID", s), ("deviceID", s), ("kind", s), ("failedAt", date)]),
            "POST /v1/activities/{activityID}/start": started,
            "POST /v1/activities/{activityID}/update": sent,
            "POST /v1/activities/{activityID}/end": sent,
            "GET /v1/activities/{activityID}": activity,
            "POST /v1/channels": ["anyOf": [channel, Schema.record([("activityID", s), ("bundleID", s), ("channelID", s), ("startedAt", date), ("bound", b), ("channel", channel)],
                                                                   optional: [("attributesType", s)])]],
            "PUT /v1/activities/{activityID}/channel": binding,
            "PUT /v1/activities/{activityID}/channel-members/{deviceID}": member,
            "DELETE /v1/activities/{activityID}/channel-members/{deviceID}": Schema.record([("activityID", s), ("deviceID", s), ("deleted", b)]),
            "GET /v1/channels": page("channels", channel),
            "GET /v1/channels/{channelID}": channel,
            "DELETE /v1/channels/{channelID}": deleted("channelID"),
            "PUT /v1/schemas/{attributesType}/versions/{version}": schemaVersion,
            "GET /v1/schemas": Schema.record([("types", Schema.array(schemaType))]),
            "GET /v1/schemas/{attributesType}": schemaType,
            "DELETE /v1/schemas/{attributesType}/versions/{version}": schemaVersion,
        ]
    }
}

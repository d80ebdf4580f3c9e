import Foundation
import LivelineCore
import LivelineStore

/// The API, declared once: it routes requests and writes `/openapi.json`.
extension Service {
    static var table: [Route] {
        let environment: JSONValue = ["type": "string", "enum": ["sandbox", "production"]]  // a token's APNs environment (TokenHygiene)
        let token = Schema.object([("token", Schema.hexToken), ("environment", environment)], required: ["token"])
        let activityToken = Schema.object([("token", Schema.hexToken), ("attributesType", Schema.string), ("grant", Schema.string), ("environment", environment), ("deviceActivityID", Schema.string)], required: ["token"])
        let content: [(String, JSONValue)] = [
            ("contentState", Schema.anyObject), ("ui", Schema.anyObject), ("alert", Schema.alert), ("staleDate", Schema.dateTime),
            ("relevanceScore", Schema.number),
            ("priority", ["type": "integer", "enum": [5, 10], "description": "10 spends the device's hourly budget; when absent, 10 with an alert and 5 without (before 2026-12: always 10)"]),
            ("olderBuilds", ["type": "string", "enum": ["refuse", "skip"]]),
        ]
        return [
            Route(method: "GET", pattern: "/healthz", scope: nil, summary: "Liveness and database reachability.", success: 200) { s, _ in try s.health() },
            Route(method: "GET", pattern: "/metrics", scope: nil, summary: "Prometheus metrics.", success: 200) { s, _ in try s.metricsText() },
            Route(method: "GET", pattern: "/openapi.json", scope: nil, summary: "This document.", success: 200) { s, _ in Answer(200, s.openAPI()) },
            Route(method: "POST", pattern: "/v1/apps", scope: .admin, summary: "Register an app and its APNs key (the key is stored, never returned).",
                  requestSchema: Schema.object([("bundleID", Schema.string), ("teamID", Schema.string), ("keyID", Schema.string), ("key", Schema.string),
                                                ("environment", ["type": "string", "enum": ["production", "sandbox"]]),
                                                ("environments", Schema.array(["type": "string", "enum": ["production", "sandbox"]]))], required: ["bundleID", "teamID", "keyID", "key"]),
                  success: 201) { s, c in try s.createApp(c) },
            Route(method: "GET", pattern: "/v1/apps", scope: .admin, summary: "List apps (without keys), a page at a time (?limit=, ?after= the previous page's next).", success: 200) { s, c in try s.listApps(c) },
            Route(method: "POST", pattern: "/v1/keys", scope: .admin, summary: "Make an API key (shown once): an app key bound to one app (bundleID), or an admin key of every app or of some (apps).",
                  requestSchema: Schema.object([("scope", ["type": "string", "enum": ["app", "admin"]]), ("name", Schema.string), ("bundleID", Schema.string),
                                                ("apps", Schema.array(Schema.string)), ("expiresAt", Schema.dateTime)]), success: 201) { s, c in try s.createKey(c) },
            Route(method: "GET", pattern: "/v1/keys", scope: .admin, summary: "List keys (?limit=&after=): ids, scopes, apps, dates and state; never a secret.", success: 200) { s, c in try s.listKeys(c) },
            Route(method: "DELETE", pattern: "/v1/keys/{keyID}", scope: .admin, summary: "Revoke a key: refused at once on every instance.", success: 200) { s, c in try s.revokeKey(c) },
            Route(method: "POST", pattern: "/v1/keys/{keyID}/rotate", scope: .admin, summary: "A new key like this one (shown once); this one works for graceSeconds more (default 3600).",
                  requestSchema: Schema.object([("graceSeconds", Schema.integer), ("bundleID", Schema.string)]), success: 201) { s, c in try s.rotateKey(c) },
            Route(method: "POST", pattern: "/v1/installations", scope: .app,
                  summary: "Create an installation (the app key's only power): its id is the device id, its secret (shown once) the credential for the device's own routes. claim: a device registered before installations, proven by a token the service holds for it.",
                  requestSchema: Schema.object([("bundleID", Schema.string), ("iosVersion", Schema.string), ("frequentUpdates", Schema.boolean),
                                                ("claim", Schema.object([("deviceID", Schema.string), ("token", Schema.hexToken)], required: ["deviceID", "token"]))],
                                               required: ["bundleID", "iosVersion"]), success: 201) { s, c in try await s.createInstallation(c) },
            Route(method: "PUT", pattern: "/v1/apps/{bundleID}/token-secret", scope: .admin,
                  summary: "Set or rotate the HS256 secret the app's backend signs user tokens and activity grants with (made and shown once when not given; the previous one stays valid until the next rotation).",
                  requestSchema: Schema.object([("secret", Schema.string)]), success: 200) { s, c in try s.putTokenSecret(c) },
            Route(method: "PUT", pattern: "/v1/devices/{deviceID}", scope: .app, deviceScoped: true,
                  summary: "Register or update the calling installation's device (userID is bound only with a userToken the backend signed).",
                  requestSchema: Schema.object([("bundleID", Schema.string), ("iosVersion", Schema.string), ("userID", Schema.string), ("userToken", Schema.string), ("frequentUpdates", Schema.boolean)]
                                               + [("appBuild", Schema.string), ("appVersion", Schema.string), ("schemaVersions", ["type": "object", "additionalProperties": Schema.string])],
                                               required: ["bundleID", "iosVersion"]), success: 201) { s, c in try await s.putDevice(c) },
            Route(method: "GET", pattern: "/v1/devices/{deviceID}", scope: .admin, summary: "A device.", success: 200) { s, c in try s.getDevice(c) },
            Route(method: "GET", pattern: "/v1/devices/{deviceID}/budget", scope: .admin,
                  summary: "The device's budget ledger: priority-10 pushes this hour per activity (tokens and broadcasts), push-to-starts in the window, what was lowered to 5 and what was coalesced (?activityID= for one activity).",
                  success: 200) { s, c in try s.getDeviceBudget(c) },
            Route(method: "DELETE", pattern: "/v1/devices/{deviceID}", scope: .app, deviceScoped: true, summary: "Forget the calling installation's device and its tokens.", success: 200) { s, c in try await s.deleteDevice(c) },
            Route(method: "PUT", pattern: "/v1/devices/{deviceID}/push-to-start/{attributesType}", scope: .app, deviceScoped: true,
                  summary: "The device's push-to-start token for an attributes type (rotation replaces it).", requestSchema: token, success: 201) { s, c in try await s.putPushToStartToken(c) },
            Route(method: "PUT", pattern: "/v1/activities/{activityID}/tokens/{deviceID}", scope: .app, deviceScoped: true,
                  summary: "The update token of the installation's Live Activity for a logical activity it holds: push-started on it, granted by the backend (grant), or app-started under '<installationID>:' (rotation replaces it).", requestSchema: activityToken,
                  success: 201) { s, c in try await s.putActivityToken(c) },
            Route(method: "DELETE", pattern: "/v1/activities/{activityID}/tokens/{deviceID}", scope: .app, deviceScoped: true,
                  summary: "The activity ended or was dismissed on the device.", success: 200) { s, c in try await s.deleteActivityToken(c) },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/interactions", scope: .app, deviceScoped: true,
                  summary: "A button or toggle tapped in a Live Activity the installation holds (needs Idempotency-Key; payload at most interactionPayloadBytes); delivered once to the webhook.",
                  requestSchema: Schema.object([("action", Schema.string), ("deviceID", Schema.string), ("payload", [:])], required: ["action"]),
                  success: 201) { s, c in try s.postInteraction(c) },
            Route(method: "GET", pattern: "/v1/activities/{activityID}/interactions", scope: .admin, summary: "Interactions of an activity, a page at a time (?limit=, ?after= the previous page's next).", success: 200) { s, c in try s.listInteractions(c) },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/receipts", scope: .app, deviceScoped: true,
                  summary: "The installation displayed the newest content: its delivery becomes displayed (one 404 for unknown, others' and unsent activities).",
                  requestSchema: Schema.object([("deviceID", Schema.string), ("displayedAt", Schema.dateTime)]), success: 200) { s, c in try s.postReceipt(c) },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/decode-failures", scope: .app, deviceScoped: true,
                  summary: "The installation's attributes type failed to decode a content state of an activity it holds: the reason its status gives (one report per device is kept, the newest).",
                  requestSchema: Schema.object([("deviceID", Schema.string), ("error", Schema.string), ("failedAt", Schema.dateTime)], required: ["error"]), success: 201) { s, c in try s.postDecodeFailure(c) },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/start", scope: .admin,
                  summary: "Push-to-start to an audience of devices or users.",
                  requestSchema: Schema.object([("attributesType", Schema.string), ("attributes", Schema.anyObject), ("bundleID", Schema.string), ("channelID", Schema.string),
                                                ("channel", Schema.string), ("channelStoragePolicy", Schema.integer),
                                                ("audience", Schema.object([("deviceIDs", Schema.array(Schema.string)), ("userIDs", Schema.array(Schema.string))])),
                                                ("restart", Schema.boolean), ("renew", Schema.boolean)] + content.filter { $0.0 != "priority" },  // a start is always sent at 10
                                               required: ["alert", "audience"]), success: 202) { s, c in
                let a = try await s.startReachable(c)
                s.dispatcher.wake()
                return a
            },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/update", scope: .admin, summary: "Update every token of the activity (and its channel).",
                  requestSchema: Schema.object(content), success: 202) { s, c in
                let a = try s.update(c)
                s.dispatcher.wake()
                return a
            },
            Route(method: "POST", pattern: "/v1/activities/{activityID}/end", scope: .admin, summary: "End the activity now or at a given time.",
                  requestSchema: Schema.object(content + [("dismissalDate", Schema.dateTime), ("dismissImmediately", Schema.boolean), ("at", Schema.dateTime)]),
                  success: 202) { s, c in
                let a = try s.end(c)
                s.dispatcher.wake()
                return a
            },
            Route(method: "PUT", pattern: "/v1/activities/{activityID}/channel", scope: .admin,
                  summary: "Bind a channel of the app to a new logical activity: its updates and end broadcast on it, reaching activities apps started themselves on that channel (iOS 18).",
                  requestSchema: Schema.object([("channelID", Schema.string), ("attributesType", Schema.string)], required: ["channelID"]), success: 201) { s, c in try s.putActivityChannel(c) },
            Route(method: "PUT", pattern: "/v1/activities/{activityID}/channel-members/{deviceID}", scope: .app, deviceScoped: true,
                  summary: "The installation's app-started activity follows the channel the backend bound to this activity (iOS 18; it holds the activity: grant, push-start or token). Changes no binding; anything else answers as an unknown activity.",
                  requestSchema: Schema.object([("channelID", Schema.string), ("deviceActivityID", Schema.string), ("grant", Schema.string)], required: ["channelID"]),
                  success: 201) { s, c in try await s.putChannelMember(c) },
            Route(method: "DELETE", pattern: "/v1/activities/{activityID}/channel-members/{deviceID}", scope: .app, deviceScoped: true,
                  summary: "The app-started channel activity ended or was dismissed on the device.", success: 200) { s, c in try await s.deleteChannelMember(c) },
            Route(method: "GET", pattern: "/v1/activities/{activityID}", scope: .admin, summary: "Tokens (as prefixes), each push's result, and each device's status (state, lifecycle, last delivery, receipt, and why a push did not show); ?wait=SECONDS waits until every push is final.", success: 200) { s, c in try await s.getActivity(c) },
            Route(method: "POST", pattern: "/v1/channels", scope: .admin, summary: "Create a broadcast channel through APNs (10,000 per app); with activityID it is bound to that new logical activity, whose sends then broadcast on it.",
                  requestSchema: Schema.object([("bundleID", Schema.string), ("storagePolicy", ["type": "integer", "enum": [0, 1]]), ("activityID", Schema.string), ("attributesType", Schema.string)], required: ["bundleID"]),
                  success: 201) { s, c in try await s.createChannel(c) },
            Route(method: "GET", pattern: "/v1/channels", scope: .admin, summary: "List channels (?bundleID=), a page at a time (?limit=, ?after= the previous page's next).", success: 200) { s, c in try s.listChannels(c) },
            Route(method: "GET", pattern: "/v1/channels/{channelID}", scope: .admin, summary: "A channel.", success: 200) { s, c in try s.getChannel(c) },
            Route(method: "DELETE", pattern: "/v1/channels/{channelID}", scope: .admin, summary: "Delete a channel at APNs and here.", success: 200) { s, c in try await s.deleteChannel(c) },
        ]
    }

    /// A cheap round trip to the database; the outbox's depth is on `/metrics`.
    func health() throws -> Answer {
        _ = try store.write { try $0.keyCount() }
        return Answer(200, ["status": "ok", "database": "ok"])
    }

    func metricsText() throws -> Answer {
        let (counts, tokens) = try store.write { tx in (try tx.outboxCounts(), try tx.tokenCount()) }
        return Answer(text: metrics.render(outbox: counts, tokens: tokens))
    }

    /// OpenAPI 3.1, from the route table.
    func openAPI() -> JSONValue {
        var paths = JSONObject()
        let errorSchema = Self.errorSchema
        for route in routes {
            var op: JSONObject = ["summary": .string(route.summary), "operationId": .string(Self.operationID(route))]
            let params = route.segments.filter { $0.hasPrefix("{") }.map { p -> JSONValue in
                ["name": .string(String(p.dropFirst().dropLast())), "in": "path", "required": true, "schema": Schema.string]
            }
            var parameters = params
            if route.method != "GET" {
                parameters.append(["name": "Idempotency-Key", "in": "header", "required": false, "schema": Schema.string,
                                   "description": "A repeated key returns the first answer."])
            }
            if !parameters.isEmpty { op["parameters"] = .array(parameters) }
            if let schema = route.requestSchema {
                op["requestBody"] = ["required": true, "content": ["application/json": ["schema": schema]]]
            }
            let answer = route.pattern == "/metrics" ? ["text/plain": ["schema": Schema.string]] : ["application/json": ["schema": Self.answerSchemas[Self.routeKey(route)] ?? Schema.anyObject]] as JSONValue
            var responses: JSONObject = [String(route.success): ["description": "Success", "content": answer]]
            for code in route.scope == nil ? ["503"] : ["400", "401", "403", "404", "409", "422", "429", "503"] {
                responses[code] = ["description": "Error", "content": ["application/json": ["schema": errorSchema]]]
            }
            op["responses"] = .object(responses)
            if route.scope != nil { op["security"] = [["bearer": []]] }
            var item = paths[route.pattern]?.objectValue ?? JSONObject()
            item[route.method.lowercased()] = .object(op)
            paths[route.pattern] = .object(item)
        }
        return [
            "openapi": "3.1.0",
            "info": ["title": "Liveline service", "version": "1.0.0", "description": "Token registry and durable fan-out for iOS Live Activities."],
            "paths": .object(paths),
            "components": ["securitySchemes": ["bearer": ["type": "http", "scheme": "bearer", "description": "An admin key, an app key (creates installations only) or an installation credential (ll_inst_…, its own device routes only)"]]],
        ]
    }

    /// `"METHOD /pattern"`: how `answerSchemas` names a route.
    static func routeKey(_ r: Route) -> String { "\(r.method) \(r.pattern)" }

    static func operationID(_ r: Route) -> String {
        r.method.lowercased() + r.segments.map { s in
            let word = s.hasPrefix("{") ? "By" + s.dropFirst().dropLast() : String(s)
            return word.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        }.joined()
    }
}

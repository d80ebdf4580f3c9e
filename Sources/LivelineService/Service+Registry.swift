import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore

/// Devices and tokens (apps: Service+Apps.swift; keys: Service+Keys.swift).
extension Service {
    /// `?limit=` (1 to 1000, 100 by default) and `?after=` (the previous page's `next`) of a listing by name.
    static func namePage(_ c: RequestContext) throws -> (limit: Int, after: String?) {
        var limit = 100
        if let text = c.request.queryValue("limit") {
            guard let n = Int(text), (1...1000).contains(n) else { throw APIError.invalid("limit", "must be an integer from 1 to 1000, got '\(text.prefix(20))'") }
            limit = n
        }
        return (limit, c.request.queryValue("after"))
    }

    /// One page of `rows` (sorted by `key`) after `after`, with `next` when more may follow.
    static func paged<Row>(_ name: String, _ rows: [Row], key: KeyPath<Row, String>, after: String?, limit: Int, json: (Row) -> JSONValue) -> Answer {
        let page = rows.filter { after == nil || $0[keyPath: key] > after! }.prefix(limit)
        var o: JSONObject = [name: .array(page.map(json))]
        if page.count == limit, let last = page.last { o["next"] = .string(last[keyPath: key]) }
        return Answer(200, .object(o))
    }

    func putDevice(_ c: RequestContext) async throws -> Answer {
        let deviceID = try ownDevice(c, c.param("deviceID"))
        var body = try JSONBody(c.request.body)
        let bundleID = try body.requiredString("bundleID", maxLength: 155)
        let raw = try body.requiredString("iosVersion", maxLength: 40)
        let userID = try body.string("userID", maxLength: 200)
        let userToken = try body.string("userToken", maxLength: 4096)
        let frequent = try body.bool("frequentUpdates") ?? false
        let build = try AppBuildReport(&body)
        try body.finish()
        try c.requireApp(bundleID)
        let ios = try OSVersionNumber.field(raw)
        let installation = c.installation
        if let installation, installation.bundleID != bundleID {
            throw APIError.invalid("bundleID", "this installation belongs to \(installation.bundleID), not \(bundleID.prefix(155))")
        }
        return try await commitAsync(c) { [self] tx in
            guard try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "bundleID \(bundleID) is not registered: POST /v1/apps first", field: "bundleID") }
            var device = DeviceRecord(deviceID: deviceID, bundleID: bundleID, iosVersion: ios, userID: userID, frequentUpdates: frequent, updatedAt: c.now)
            if let installation {
                // A user is bound only by a token the app's backend signed; without one the userID is
                // kept unverified (audiences by userIDs skip it).
                if let userToken {
                    device.userID = try verifyUserToken(userToken, userID: userID, installation: installation, tx: tx, now: c.now)
                    device.userVerified = true
                } else {
                    device.userVerified = false
                }
            }
            let existed = try tx.device(deviceID) != nil
            try tx.upsertDevice(device)
            try build.save(deviceID: deviceID, tx, now: c.now)
            return Answer(existed ? 200 : 201, build.annotate(Self.json(device), deviceID: deviceID, now: c.now))
        }
    }

    func getDevice(_ c: RequestContext) throws -> Answer {
        guard let device = try store.write({ try $0.device(c.param("deviceID")) }) else { throw APIError.notFound("device \(c.param("deviceID")) is not registered") }
        try c.requireApp(device.bundleID, hiding: "device \(c.param("deviceID")) is not registered")
        var answer = try deviceJSON(device).objectValue ?? [:]
        answer["pushToStartTokens"] = try store.write { tx in try pushToStartTokensJSON(device, tx, now: c.now) }
        return Answer(200, .object(answer))
    }

    func deleteDevice(_ c: RequestContext) async throws -> Answer {
        let deviceID = try ownDevice(c, c.param("deviceID"))
        return try await commitAsync(c) { tx in
            guard try tx.deleteDevice(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered") }
            return Answer(200, ["deviceID": .string(deviceID), "deleted": true])
        }
    }

    static func json(_ d: DeviceRecord) -> JSONValue {
        var o: JSONObject = ["deviceID": .string(d.deviceID), "bundleID": .string(d.bundleID), "iosVersion": .string(d.iosVersion),
                             "frequentUpdates": .bool(d.frequentUpdates), "updatedAt": .string(ISODate.string(d.updatedAt))]
        if let u = d.userID {
            o["userID"] = .string(u)
            o["userVerified"] = .bool(d.userVerified)
        }
        return .object(o)
    }

    private func tokenBody(_ c: RequestContext) throws -> (token: String, attributesType: String?, grant: String?, environment: String?, deviceActivityID: String?) {
        var body = try JSONBody(c.request.body)
        let token = try body.requiredString("token", maxLength: 400)
        let type = try body.string("attributesType", maxLength: 200)
        let grant = try body.string("grant", maxLength: 4096)
        let environment = try TokenHygiene.environmentField(try body.string("environment", maxLength: 40))
        let deviceActivityID = try body.string("deviceActivityID", maxLength: 100)
        try body.finish()
        try Self.checkToken(token)
        return (token.lowercased(), type, grant, environment, deviceActivityID)
    }

    func putPushToStartToken(_ c: RequestContext) async throws -> Answer {
        let (token, extra, grant, environment, deviceActivityID) = try tokenBody(c)
        if deviceActivityID != nil { throw APIError(400, "unknown-field", "deviceActivityID: unknown field (it names an activity's update token)", field: "deviceActivityID") }
        if extra != nil { throw APIError(400, "unknown-field", "attributesType: unknown field (the path names the type)", field: "attributesType") }
        if grant != nil { throw APIError(400, "unknown-field", "grant: unknown field (grants are for update tokens)", field: "grant") }
        let deviceID = try ownDevice(c, c.param("deviceID")), type = c.param("attributesType")
        return try await commitAsync(c) { tx in
            guard let device = try tx.device(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered: PUT /v1/devices/\(deviceID) first") }
            if let version = OSVersionNumber(device.iosVersion), version < OSVersionNumber(17, 2) {
                throw APIError(422, "push-to-start-unsupported", "device \(deviceID) runs iOS \(device.iosVersion); push-to-start needs iOS 17.2 or later")
            }
            let previous = try tx.pushToStartToken(deviceID: deviceID, attributesType: type)
            let record = TokenRecord(scope: type, deviceID: deviceID, token: token, registeredAt: c.now, environment: environment)
            try tx.setPushToStartToken(record)
            return Answer(previous == nil ? 201 : 200, ["deviceID": .string(deviceID), "attributesType": .string(type), "token": .string(Self.prefix(token)),
                                                         "replaced": .bool(previous != nil && previous?.token != token),
                                                         "environment": .string(TokenHygiene.environment(of: record, app: try tx.app(bundleID: device.bundleID)))])
        }
    }

    func putActivityToken(_ c: RequestContext) async throws -> Answer {
        let (token, type, grant, environment, deviceActivityID) = try tokenBody(c)
        let given = c.param("activityID"), deviceID = try ownDevice(c, c.param("deviceID"))
        let answer = try await commitAsync(c) { [self] tx in
            guard let device = try tx.device(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered: PUT /v1/devices/\(deviceID) first") }
            let activityID = try resolveActivityID(given, installation: c.installation, tx)
            let existing = try tx.activity(activityID)
            // Read once: whether the device holds a token decides both who may rotate it and the answer.
            let previous = try tx.activityToken(activityID: activityID, deviceID: deviceID)
            if let installation = c.installation {
                try mayHold(activityID, activity: existing, holdsToken: previous != nil, installation: installation, grant: grant, tx: tx, now: c.now)
            }
            if var activity = existing {
                if let type, type != activity.attributesType, !activity.attributesType.isEmpty {
                    throw APIError.conflict("activity \(activityID) is a \(activity.attributesType), not a \(type)", field: "attributesType")
                }
                if activity.attributesType.isEmpty, let type {
                    activity.attributesType = type
                    try tx.upsertActivity(activity)
                }
            } else {
                // The app started this activity itself: the service learns of it from its token.
                try tx.upsertActivity(ActivityRecord(activityID: activityID, bundleID: device.bundleID, attributesType: type ?? "", channelID: nil, startedAt: c.now))
            }
            if let deviceActivityID { try attachDeviceActivityID(deviceActivityID, to: activityID, bundleID: device.bundleID, deviceID: deviceID, tx, now: c.now) }
            let record = TokenRecord(scope: activityID, deviceID: deviceID, token: token, registeredAt: c.now, environment: environment)
            try tx.setActivityToken(record)
            return Answer(previous == nil ? 201 : 200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "token": .string(Self.prefix(token)),
                                                         "replaced": .bool(previous != nil && previous?.token != token),
                                                         "environment": .string(TokenHygiene.environment(of: record, app: try tx.app(bundleID: device.bundleID)))])
        }
        return answer
    }

    func deleteActivityToken(_ c: RequestContext) async throws -> Answer {
        let given = c.param("activityID"), deviceID = try ownDevice(c, c.param("deviceID"))
        return try await commitAsync(c) { [self] tx in
            let activityID = try resolveActivityID(given, installation: c.installation, tx)
            guard try tx.deleteActivityToken(activityID: activityID, deviceID: deviceID) else {
                throw APIError.notFound("no update token of device \(deviceID) for activity \(activityID)")
            }
            return Answer(200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "deleted": true])
        }
    }
}

/// An iOS version, compared numerically (`17.10` is after `17.2`).
/// A device's iOS version as apps report it: `UIDevice.current.systemVersion` ("18.2", "17.4.1"),
/// `ProcessInfo.operatingSystemVersion` joined with dots ("18.2.0"), or
/// `ProcessInfo.operatingSystemVersionString` ("Version 18.2 (Build 22C152)"), optionally after
/// "iOS ". Anything else is not a version.
struct OSVersionNumber: Comparable, Sendable {
    var parts: [Int]
    init?(_ text: String) {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        for prefix in ["Version ", "iOS "] where rest.hasPrefix(prefix) { rest = rest.dropFirst(prefix.count) }
        if let open = rest.firstIndex(of: " ") {
            // Only a build in parentheses may follow: "18.2 (Build 22C152)".
            let tail = rest[open...].trimmingCharacters(in: .whitespaces)
            guard tail.hasPrefix("(Build "), tail.hasSuffix(")"), tail.count > 8, tail.dropFirst(7).dropLast().allSatisfy({ $0.isLetter || $0.isNumber }) else { return nil }
            rest = rest[..<open]
        }
        let p = rest.split(separator: ".", omittingEmptySubsequences: false).map { $0.allSatisfy(\.isASCII) && !$0.isEmpty && $0.count <= 3 ? Int($0) : nil }
        guard (1...3).contains(p.count), p.allSatisfy({ $0 != nil && $0! >= 0 && $0! < 1000 }) else { return nil }
        parts = p.map { $0! }
    }
    init(_ major: Int, _ minor: Int) { parts = [major, minor] }
    /// `"18.2"`: what the service stores, whichever form the device sent.
    var text: String { parts.map(String.init).joined(separator: ".") }

    /// The `iosVersion` of a request body, stored as `text`, or the 400 that names the forms taken.
    static func field(_ raw: String) throws(APIError) -> String {
        guard let version = OSVersionNumber(raw) else {
            throw APIError.invalid("iosVersion", "must be a version like \"18.2\", \"17.4.1\" or \"Version 18.2 (Build 22C152)\", got \"\(raw.prefix(40))\"")
        }
        return version.text
    }
    static func < (a: OSVersionNumber, b: OSVersionNumber) -> Bool {
        for i in 0..<3 {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }
}

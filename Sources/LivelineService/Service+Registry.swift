import Foundation
import LivelineCore
import LivelineCrypto
import LivelineStore

/// Devices and tokens (apps: Service+Apps.swift; keys: Service+Keys.swift).
extension Service {
    func putDevice(_ c: RequestContext) async throws -> Answer {
        let deviceID = c.param("deviceID")
        var body = try JSONBody(c.request.body)
        let bundleID = try body.requiredString("bundleID", maxLength: 155)
        let ios = try body.requiredString("iosVersion", maxLength: 20)
        let userID = try body.string("userID", maxLength: 200)
        let frequent = try body.bool("frequentUpdates") ?? false
        try body.finish()
        try c.requireApp(bundleID)
        guard OSVersionNumber(ios) != nil else { throw APIError.invalid("iosVersion", "must be a version like \"18.2\" or \"17.4.1\", got \"\(ios.prefix(20))\"") }
        let device = DeviceRecord(deviceID: deviceID, bundleID: bundleID, iosVersion: ios, userID: userID, frequentUpdates: frequent, updatedAt: c.now)
        return try await commitAsync(c) { tx in
            guard try tx.app(bundleID: bundleID) != nil else { throw APIError(404, "unknown-app", "bundleID \(bundleID) is not registered: POST /v1/apps first", field: "bundleID") }
            let existed = try tx.device(deviceID) != nil
            try tx.upsertDevice(device)
            return Answer(existed ? 200 : 201, Self.json(device))
        }
    }

    func getDevice(_ c: RequestContext) throws -> Answer {
        guard let device = try store.write({ try $0.device(c.param("deviceID")) }) else { throw APIError.notFound("device \(c.param("deviceID")) is not registered") }
        try c.requireApp(device.bundleID, hiding: "device \(c.param("deviceID")) is not registered")
        return Answer(200, Self.json(device))
    }

    func deleteDevice(_ c: RequestContext) async throws -> Answer {
        try await commitAsync(c) { tx in
            guard try tx.deleteDevice(c.param("deviceID")) else { throw APIError.notFound("device \(c.param("deviceID")) is not registered") }
            return Answer(200, ["deviceID": .string(c.param("deviceID")), "deleted": true])
        }
    }

    static func json(_ d: DeviceRecord) -> JSONValue {
        var o: JSONObject = ["deviceID": .string(d.deviceID), "bundleID": .string(d.bundleID), "iosVersion": .string(d.iosVersion),
                             "frequentUpdates": .bool(d.frequentUpdates), "updatedAt": .string(ISODate.string(d.updatedAt))]
        if let u = d.userID { o["userID"] = .string(u) }
        return .object(o)
    }

    private func tokenBody(_ c: RequestContext) throws -> (token: String, attributesType: String?) {
        var body = try JSONBody(c.request.body)
        let token = try body.requiredString("token", maxLength: 400)
        let type = try body.string("attributesType", maxLength: 200)
        try body.finish()
        try Self.checkToken(token)
        return (token.lowercased(), type)
    }

    func putPushToStartToken(_ c: RequestContext) async throws -> Answer {
        let (token, extra) = try tokenBody(c)
        if extra != nil { throw APIError(400, "unknown-field", "attributesType: unknown field (the path names the type)", field: "attributesType") }
        let deviceID = c.param("deviceID"), type = c.param("attributesType")
        return try await commitAsync(c) { tx in
            guard let device = try tx.device(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered: PUT /v1/devices/\(deviceID) first") }
            if let version = OSVersionNumber(device.iosVersion), version < OSVersionNumber(17, 2) {
                throw APIError(422, "push-to-start-unsupported", "device \(deviceID) runs iOS \(device.iosVersion); push-to-start needs iOS 17.2 or later")
            }
            let previous = try tx.pushToStartToken(deviceID: deviceID, attributesType: type)
            try tx.setPushToStartToken(TokenRecord(scope: type, deviceID: deviceID, token: token, registeredAt: c.now))
            return Answer(previous == nil ? 201 : 200, ["deviceID": .string(deviceID), "attributesType": .string(type), "token": .string(Self.prefix(token)),
                                                         "replaced": .bool(previous != nil && previous?.token != token)])
        }
    }

    func putActivityToken(_ c: RequestContext) async throws -> Answer {
        let (token, type) = try tokenBody(c)
        let activityID = c.param("activityID"), deviceID = c.param("deviceID")
        let answer = try await commitAsync(c) { tx in
            guard let device = try tx.device(deviceID) else { throw APIError(404, "unknown-device", "device \(deviceID) is not registered: PUT /v1/devices/\(deviceID) first") }
            if var activity = try tx.activity(activityID) {
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
            let previous = try tx.activityToken(activityID: activityID, deviceID: deviceID)
            try tx.setActivityToken(TokenRecord(scope: activityID, deviceID: deviceID, token: token, registeredAt: c.now))
            return Answer(previous == nil ? 201 : 200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "token": .string(Self.prefix(token)),
                                                         "replaced": .bool(previous != nil && previous?.token != token)])
        }
        return answer
    }

    func deleteActivityToken(_ c: RequestContext) async throws -> Answer {
        let activityID = c.param("activityID"), deviceID = c.param("deviceID")
        return try await commitAsync(c) { tx in
            guard try tx.deleteActivityToken(activityID: activityID, deviceID: deviceID) else {
                throw APIError.notFound("no update token of device \(deviceID) for activity \(activityID)")
            }
            return Answer(200, ["activityID": .string(activityID), "deviceID": .string(deviceID), "deleted": true])
        }
    }
}

/// An iOS version, compared numerically (`17.10` is after `17.2`).
struct OSVersionNumber: Comparable, Sendable {
    var parts: [Int]
    init?(_ text: String) {
        let p = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(p.count), p.allSatisfy({ $0 != nil && $0! >= 0 && $0! < 1000 }) else { return nil }
        parts = p.map { $0! }
    }
    init(_ major: Int, _ minor: Int) { parts = [major, minor] }
    static func < (a: OSVersionNumber, b: OSVersionNumber) -> Bool {
        for i in 0..<3 {
            let x = i < a.parts.count ? a.parts[i] : 0, y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y }
        }
        return false
    }
}

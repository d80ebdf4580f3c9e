import Foundation
import LivelineCore

/// What a push carried, as the log keeps it: its `apns-` headers and its payload, bounded, with no
/// secret (the `authorization` header's JWT is never kept) and no device token (the path keeps a prefix).
extension PushRecord {
    /// The most payload bytes kept: APNs takes 4 KB (5 KB for VoIP and broadcasts), so a push it
    /// accepts is kept whole; a bigger one is cut (and rejected `PayloadTooLarge`).
    public static let payloadLimit = 5120
    /// The most headers kept.
    public static let headerLimit = 16
    /// The most characters kept of a header's value.
    public static let headerValueLimit = 256

    /// Whether the body was longer than what was kept.
    public var payloadTruncated: Bool { payload.count < payloadBytes }

    /// The payload as JSON, when it was kept whole and parses.
    public var payloadJSON: JSONValue? {
        guard !payload.isEmpty, !payloadTruncated else { return nil }
        return try? JSONValue.parse(payload)
    }

    /// `aps.alert` of the payload (a string or a title/body object), when it has one.
    public var alert: JSONValue? { payloadJSON?["aps"]?["alert"] }

    /// The first kept header named `name` (lowercase).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The members the inspection API and the dashboard add to a log entry for what was sent:
    /// `headers` (`[{name, value}]`), `payloadBytes`, `payload` (the JSON, when whole and parsable)
    /// or `payloadText` (the kept bytes as text otherwise), `payloadTruncated` when cut, and `alert`.
    public var sentJSON: JSONObject {
        var o: JSONObject = [:]
        if !headers.isEmpty {
            o["headers"] = .array(headers.map { ["name": .string($0.name), "value": .string($0.value)] })
        }
        o["payloadBytes"] = .number(Double(payloadBytes))
        if let json = payloadJSON {
            o["payload"] = json
            if let alert = json["aps"]?["alert"] { o["alert"] = alert }
        } else if !payload.isEmpty {
            o["payloadText"] = .string(String(decoding: payload, as: UTF8.self))
        }
        if payloadTruncated { o["payloadTruncated"] = true }
        return o
    }
}

extension SimulatorState.PushContext {
    /// A context for `request`, keeping what the log shows of it: its method, its `apns-` headers
    /// (bounded) and at most `PushRecord.payloadLimit` bytes of its body. `path` is the path to log
    /// (a device token in it already cut to a prefix).
    init(time: Date, kind: String, request: SimulatorRequest, path: String, apnsID: String) {
        self.init(time: time, kind: kind, method: request.method, path: path, apnsID: apnsID)
        var kept: [SimulatorRequest.Header] = []
        for h in request.headers where kept.count < PushRecord.headerLimit && h.name.hasPrefix("apns-") {
            kept.append(h.value.utf8.count > PushRecord.headerValueLimit && h.value.count > PushRecord.headerValueLimit ? SimulatorRequest.Header(h.name, String(h.value.prefix(PushRecord.headerValueLimit))) : h)
        }
        headers = kept
        payloadBytes = request.body.count
        payload = request.body.count > PushRecord.payloadLimit ? Array(request.body.prefix(PushRecord.payloadLimit)) : request.body
    }
}

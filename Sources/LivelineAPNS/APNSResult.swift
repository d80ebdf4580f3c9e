import Foundation
import LivelineCore

/// How one push ended: exactly one of accepted, rejected, or failed.
///
/// Verdicts are values; only a transport or configuration problem becomes `.failed`.
public enum APNSResult: Sendable, Hashable, CustomStringConvertible {
    /// APNs took the push (200).
    case accepted(Accepted)
    /// APNs answered with an error status and reason.
    case rejected(Rejection)
    /// No verdict: the request was invalid before sending, or the connection failed.
    case failed(APNSClientError)

    /// An accepted push.
    public struct Accepted: Sendable, Hashable {
        /// `apns-id` of the response (APNs echoes the request's or generates one).
        public var apnsID: String?
        /// `apns-unique-id`: sandbox only, the key for Apple's delivery log.
        public var uniqueID: String?
        /// How many times the push was sent, retries included.
        public var attempts: Int

        /// Makes an accepted verdict (for tests and mocks).
        public init(apnsID: String?, uniqueID: String?, attempts: Int = 1) {
            self.apnsID = apnsID
            self.uniqueID = uniqueID
            self.attempts = attempts
        }
    }

    /// A rejected push.
    public struct Rejection: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The `reason` of the JSON body; `unknown`-style raw string when APNs sends a new one.
        public var reason: APNSReason
        /// `apns-id` of the response.
        public var apnsID: String?
        /// For 410: when APNs learned the token was no longer valid (the body's `timestamp`, ms).
        public var timestamp: Date?
        /// How many times the push was sent, retries included.
        public var attempts: Int

        /// Makes a rejection (for tests and mocks).
        public init(status: Int, reason: APNSReason, apnsID: String?, timestamp: Date? = nil, attempts: Int = 1) {
            self.status = status
            self.reason = reason
            self.apnsID = apnsID
            self.timestamp = timestamp
            self.attempts = attempts
        }

        /// What a client may do about it.
        public var policy: APNSRetryPolicy { reason.policy(status: status) }

        /// `timestamp` as the integer of milliseconds APNs sent; a time beyond `Int64`
        /// milliseconds (a broken server's) gives `Int64.max` or `Int64.min` instead of trapping.
        public var timestampMilliseconds: Int64? {
            timestamp.map { date in
                let ms = (date.timeIntervalSince1970 * 1000).rounded()
                return Int64(exactly: ms) ?? (ms > 0 ? .max : .min)
            }
        }
    }

    /// Whether APNs accepted the push.
    public var isAccepted: Bool { if case .accepted = self { true } else { false } }

    /// The `apns-id` of the response, if there was one.
    public var apnsID: String? {
        switch self {
        case .accepted(let a): a.apnsID
        case .rejected(let r): r.apnsID
        case .failed: nil
        }
    }

    public var description: String {
        switch self {
        case .accepted(let a): "accepted apns-id=\(a.apnsID ?? "-")" + (a.uniqueID.map { " apns-unique-id=\($0)" } ?? "")
        case .rejected(let r):
            "rejected \(r.status) \(r.reason) apns-id=\(r.apnsID ?? "-")"
                + (r.timestampMilliseconds.map { " timestamp=\($0)" } ?? "")
        case .failed(let e): "failed: \(e.message)"
        }
    }
}

extension APNSResult {
    /// Reads an APNs response: status, headers and body bytes (`{"reason":…,"timestamp":ms}` on errors).
    public static func parse(status: Int, headers: [(name: String, value: String)], body: [UInt8], attempts: Int = 1, idHeader: String = "apns-id") -> APNSResult {
        func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
        if (200...299).contains(status) {
            return .accepted(Accepted(apnsID: header(idHeader), uniqueID: header("apns-unique-id"), attempts: attempts))
        }
        var reason = APNSReason(rawValue: "")
        var timestamp: Date?
        if !body.isEmpty, let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            if let r = object["reason"] as? String { reason = APNSReason(rawValue: r) }
            if let ms = object["timestamp"] as? NSNumber { timestamp = Date(timeIntervalSince1970: ms.doubleValue / 1000) }
        }
        if reason.rawValue.isEmpty {
            // No JSON reason: keep the status visible as the reason's text.
            reason = APNSReason(rawValue: "HTTP\(status)")
        }
        return .rejected(Rejection(status: status, reason: reason, apnsID: header(idHeader), timestamp: timestamp, attempts: attempts))
    }
}

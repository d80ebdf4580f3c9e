import Foundation
import LivelineAPNS
import LivelineCore
import LivelineCrypto
import LivelineTesting

/// nginx (HTTP/2, TLS with a CA made at test time) configured with `return` locations that answer
/// like APNs: one device path per reason of `APNSReason.table`, an accepting path that checks the
/// authorization and topic headers, broadcast and channel-management paths.
struct APNSLikeNginx {
    static let bundleID = "com.example.flights"
    static let acceptingToken = "0abc0def"
    static let tooManyRequestsToken = "04290429"
    static let slowToken = "05105105"
    static let expiringToken = "0e0e0e0e"
    static let channelID = "dHN0LXNyY2gtY2hubA=="
    static let certificateToken = "0cce0cce"

    let pki: TestPKI
    let server: ServerProcess
    let accessLog: URL

    /// The device token whose location answers with the table's `index`-th reason.
    static func token(forReasonAt index: Int) -> String { String(format: "%08x", 0x1000 + index) }

    /// - Parameters:
    ///   - expiredClaims: requests whose authorization contains this text get 403 ExpiredProviderToken
    ///     on `expiringToken` (the base64url claims of a token with a known `iat`).
    ///   - extra: more server directives (e.g. `keepalive_requests 7;`).
    static func start(pki: TestPKI, maxConcurrentStreams: Int = 128, expiredClaims: String = "-never-", extra: String = "") throws -> APNSLikeNginx {
        let logDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-apns-nginx-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let accessLog = logDirectory.appendingPathComponent("access.log")
        var d = """
            access_log \(accessLog.path);
            default_type application/json;
            \(extra)
            location ^~ /3/device/ {
                add_header apns-id $http_apns_id always;
                return 200;
            }
            location = /3/device/\(acceptingToken) {
                if ($http_authorization !~ "^bearer [A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$") { return 403 '{"reason":"MissingProviderToken"}'; }
                if ($http_apns_topic != "\(bundleID).push-type.liveactivity") { return 400 '{"reason":"BadTopic"}'; }
                if ($http_apns_push_type != "liveactivity") { return 400 '{"reason":"InvalidPushType"}'; }
                add_header apns-id $http_apns_id always;
                add_header apns-unique-id "2f1a6c3e-0000-4000-8000-000000000001" always;
                return 200;
            }
            location = /3/device/\(certificateToken) {
                if ($ssl_client_s_dn !~ "UID=\(pki.clientTopic)") { return 403 '{"reason":"MissingProviderToken"}'; }
                if ($http_apns_topic != "\(pki.clientTopic)") { return 400 '{"reason":"BadTopic"}'; }
                add_header apns-id $http_apns_id always;
                return 200;
            }
            location = /3/device/\(tooManyRequestsToken) { return 429 '{"reason":"TooManyRequests"}'; }
            location = /3/device/\(expiringToken) {
                if ($http_authorization ~ "\(expiredClaims)") { return 403 '{"reason":"ExpiredProviderToken"}'; }
                return 200;
            }
            location = /3/device/\(slowToken) {
                limit_rate 20;
                return 200 '\(String(repeating: "x", count: 400))';
            }
            location = /4/broadcasts/apps/\(bundleID) {
                if ($http_apns_channel_id = "") { return 400 '{"reason":"MissingChannelId"}'; }
                if ($http_apns_topic != "") { return 400 '{"reason":"BadRequestParams"}'; }
                add_header apns-request-id $http_apns_request_id always;
                return 200;
            }
            location = /1/apps/\(bundleID)/channels {
                add_header apns-request-id $http_apns_request_id always;
                if ($request_method = POST) {
                    add_header apns-request-id $http_apns_request_id always;
                    add_header apns-channel-id "\(channelID)" always;
                    return 201;
                }
                if ($http_apns_channel_id = "") { return 400 '{"reason":"MissingChannelId"}'; }
                if ($request_method = DELETE) { return 204; }
                return 200 '{"message-storage-policy":1,"push-type":"LiveActivity"}';
            }
            location = /1/apps/\(bundleID)/all-channels {
                add_header apns-request-id $http_apns_request_id always;
                return 200 '{"channels":["\(channelID)","YW5vdGhlcg=="]}';
            }

            """
        for (index, entry) in APNSReason.table.enumerated() {
            let body = entry.status == 410
                ? "{\"reason\":\"\(entry.reason)\",\"timestamp\":1700000000123}" : "{\"reason\":\"\(entry.reason)\"}"
            d += "location = /3/device/\(token(forReasonAt: index)) { add_header apns-id $http_apns_id always; return \(entry.status) '\(body)'; }\n"
        }
        let server = try ServerProcess.nginx(pki: pki, maxConcurrentStreams: maxConcurrentStreams, extraServerDirectives: d)
        return APNSLikeNginx(pki: pki, server: server, accessLog: accessLog)
    }

    /// Requests nginx logged so far.
    var requestCount: Int {
        ((try? String(contentsOf: accessLog, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    /// The logged request count once it reaches `expected`, or what it is after `limit`. nginx writes
    /// its access log after sending the response, so a client can see the answer before the line.
    func requestCount(reaching expected: Int, within limit: Duration = .seconds(5)) async -> Int {
        // Past the deadline the count is returned as it is, for the caller's expectation to show.
        try? await until("nginx to log \(expected) requests", within: limit) { requestCount >= expected }
        return requestCount
    }

    var environment: APNSConfiguration.Environment {
        .custom(host: "127.0.0.1", port: server.port, caFile: pki.caCertificate.path)
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: accessLog.deletingLastPathComponent())
    }
}

import Foundation
import LivelineSQL

/// The records decoded from rows (LivelineSQL's one row type, whichever database it came from).
/// Times are stored as seconds since 1970 in both.
protocol RecordDecoding {}

extension RecordDecoding {
    func keyRecord(_ row: SQLRow) -> APIKeyRecord {
        let apps = row.string("apps").map { $0.split(separator: ",").map(String.init) }
        return APIKeyRecord(id: row.string("id") ?? "", scope: KeyScope(rawValue: row.string("scope") ?? "") ?? .app,
                            hash: row.string("hash") ?? "", name: row.string("name"), createdAt: date(row, "created_at"),
                            bundleID: row.string("bundle_id"), apps: apps,
                            expiresAt: row.double("expires_at").map(Date.init(timeIntervalSince1970:)),
                            revokedAt: row.double("revoked_at").map(Date.init(timeIntervalSince1970:)))
    }

    func appRecord(_ row: SQLRow) -> AppRecord {
        AppRecord(bundleID: row.string("bundle_id") ?? "", teamID: row.string("team_id") ?? "", keyID: row.string("key_id") ?? "",
                  keyPEM: row.string("key_pem") ?? "", environment: row.string("environment") ?? "", createdAt: date(row, "created_at"),
                  environments: row.string("environments").map { $0.split(separator: ",").map(String.init) })
    }

    func deviceRecord(_ row: SQLRow) -> DeviceRecord {
        DeviceRecord(deviceID: row.string("device_id") ?? "", bundleID: row.string("bundle_id") ?? "", iosVersion: row.string("ios_version") ?? "",
                     userID: row.string("user_id"), frequentUpdates: row.int("frequent_updates") == 1, updatedAt: date(row, "updated_at"),
                     userVerified: row.int("user_verified") == 1)
    }

    func channelRecord(_ row: SQLRow) -> ChannelRecord {
        ChannelRecord(channelID: row.string("channel_id") ?? "", bundleID: row.string("bundle_id") ?? "",
                      storagePolicy: row.int("storage_policy") ?? 0, createdAt: date(row, "created_at"),
                      activityID: row.string("activity_id"))
    }

    func interactionRecord(_ row: SQLRow) -> InteractionRecord {
        InteractionRecord(
            id: row.int64("id") ?? 0, activityID: row.string("activity_id") ?? "", deviceID: row.string("device_id"),
            idempotencyKey: row.string("idempotency_key") ?? "", body: row.bytes("body") ?? [], createdAt: date(row, "created_at"),
            webhookState: row.string("webhook_state") ?? "pending", attempts: row.int("attempts") ?? 0,
            nextAttemptAt: date(row, "next_attempt_at"), lastError: row.string("last_error"))
    }

    func tokenRecord(_ row: SQLRow, scope: String) -> TokenRecord {
        TokenRecord(scope: row.string(scope) ?? "", deviceID: row.string("device_id") ?? "", token: row.string("token") ?? "", registeredAt: date(row, "registered_at"),
                    environment: row.string("environment"), refusedAt: optionalDate(row, "refused_at"), refusal: row.string("refusal"))
    }

    func deliveryRecord(_ row: SQLRow) -> DeliveryRecord {
        DeliveryRecord(
            id: row.int64("id") ?? 0, sendID: row.int64("send_id") ?? 0, activityID: row.string("activity_id") ?? "", event: row.string("event") ?? "",
            deviceID: row.string("device_id"), target: DeliveryTarget(rawValue: row.string("target") ?? "") ?? .token, token: row.string("token") ?? "",
            priority: row.int("priority") ?? 10, note: row.string("note"), state: DeliveryState(rawValue: row.string("state") ?? "") ?? .queued,
            attempts: row.int("attempts") ?? 0, nextAttemptAt: date(row, "next_attempt_at"), apnsID: row.string("apns_id"), status: row.int("status"),
            reason: row.string("reason"), displayedAt: optionalDate(row, "displayed_at"), updatedAt: date(row, "updated_at"),
            environment: row.string("environment"))
    }

    func counts(_ rows: [SQLRow]) -> [DeliveryState: Int] {
        var result: [DeliveryState: Int] = [:]
        for row in rows { if let s = row.string("state").flatMap(DeliveryState.init(rawValue:)) { result[s] = row.int("n") ?? 0 } }
        return result
    }

    func date(_ row: SQLRow, _ column: String) -> Date { Date(timeIntervalSince1970: row.double(column) ?? 0) }
    func optionalDate(_ row: SQLRow, _ column: String) -> Date? { row.double(column).map { Date(timeIntervalSince1970: $0) } }
}

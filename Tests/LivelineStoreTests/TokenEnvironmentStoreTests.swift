import Foundation
import LivelineStore
import LivelineTesting
import Testing

/// Migration 6-token-environment: each token's environment and refusal, the apps' enabled
/// environments and each outbox row's environment, on SQLite and PostgreSQL alike.
@Suite("Store: token environments, refused tokens, outbox environments")
struct TokenEnvironmentStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let bundle = "com.example.flights"

    @Test(arguments: StoreKind.all)
    func environmentsAndRefusals(_ kind: StoreKind) throws {
        try kind.withStore { store in
            try store.write { tx in
                try tx.upsertApp(AppRecord(bundleID: Self.bundle, teamID: "TEAM000001", keyID: "KEY0000001", keyPEM: "pem", environment: "sandbox",
                                           createdAt: Self.t0, environments: ["sandbox", "production"]))
                try tx.upsertDevice(DeviceRecord(deviceID: "d1", bundleID: Self.bundle, iosVersion: "18.2", userID: nil, frequentUpdates: false, updatedAt: Self.t0))
                try tx.setPushToStartToken(TokenRecord(scope: "FlightAttributes", deviceID: "d1", token: "pts-1", registeredAt: Self.t0, environment: "production"))
                try tx.setPushToStartToken(TokenRecord(scope: "VoltraAttributes", deviceID: "d1", token: "pts-2", registeredAt: Self.t0))
                try tx.upsertActivity(ActivityRecord(activityID: "a1", bundleID: Self.bundle, attributesType: "FlightAttributes", channelID: nil, startedAt: Self.t0))
                try tx.setActivityToken(TokenRecord(scope: "a1", deviceID: "d1", token: "upd-1", registeredAt: Self.t0, environment: "sandbox"))
            }
            let app = try #require(try store.write { try $0.app(bundleID: Self.bundle) })
            #expect(app.environments == ["sandbox", "production"])
            #expect(app.enabledEnvironments == ["sandbox", "production"])
            let tokens = try store.write { try $0.pushToStartTokens(deviceID: "d1") }
            #expect(tokens.map(\.scope) == ["FlightAttributes", "VoltraAttributes"])
            #expect(tokens.map(\.environment) == ["production", nil])
            #expect(try store.write { try $0.activityTargets(activityID: "a1") }.first?.token.environment == "sandbox")

            // Refused: kept, marked; only while it is still the same token.
            #expect(try store.write { try $0.refusePushToStartToken(deviceID: "d1", token: "pts-other", at: Self.t0, reason: "r") } == false)
            #expect(try store.write { try $0.refusePushToStartToken(deviceID: "d1", token: "pts-1", at: Self.t0.addingTimeInterval(5), reason: "refused here") })
            #expect(try store.write { try $0.refuseActivityToken(activityID: "a1", deviceID: "d1", token: "upd-1", at: Self.t0, reason: "refused too") })
            let refused = try #require(try store.write { try $0.pushToStartToken(deviceID: "d1", attributesType: "FlightAttributes") })
            #expect(refused.refusal == "refused here" && refused.refusedAt == Self.t0.addingTimeInterval(5) && refused.token == "pts-1")
            #expect(try store.write { try $0.activityToken(activityID: "a1", deviceID: "d1") }?.refusal == "refused too")
            #expect(try store.write { try $0.activityTargets(activityID: "a1") }.first?.token.refusal == "refused too")
            // Registered again: the refusal is gone.
            try store.write { try $0.setPushToStartToken(TokenRecord(scope: "FlightAttributes", deviceID: "d1", token: "pts-1", registeredAt: Self.t0.addingTimeInterval(9), environment: "sandbox")) }
            let again = try #require(try store.write { try $0.pushToStartToken(deviceID: "d1", attributesType: "FlightAttributes") })
            #expect(again.refusal == nil && again.refusedAt == nil && again.environment == "sandbox" && again.registeredAt == Self.t0.addingTimeInterval(9))

            // Each outbox row keeps its environment, in a batch and row by row.
            let rows = (0..<70).map { NewDelivery(deviceID: "d1", target: .pushToStart, token: "pts-\($0)", priority: 10, notBefore: Self.t0, environment: $0 % 2 == 0 ? "production" : nil) }
            _ = try store.write { try $0.insertSend(SendRecord(activityID: "a1", event: "start", bundleID: Self.bundle, body: [], createdAt: Self.t0), deliveries: rows, now: Self.t0) }
            let twice = [NewDelivery(deviceID: "d1", target: .token, token: "upd-1", priority: 10, notBefore: Self.t0, environment: "sandbox"),
                         NewDelivery(deviceID: "d1", target: .token, token: "upd-1", priority: 10, notBefore: Self.t0, environment: "production")]
            _ = try store.write { try $0.insertSend(SendRecord(activityID: "a1", event: "update", bundleID: Self.bundle, body: [], createdAt: Self.t0), deliveries: twice, now: Self.t0) }
            let claimed = try store.write { try $0.claimDue(now: Self.t0, limit: 100, leaseUntil: Self.t0.addingTimeInterval(60)) }
            let starts = claimed.filter { $0.target == .pushToStart }.sorted { Int($0.token.dropFirst(4))! < Int($1.token.dropFirst(4))! }
            #expect(starts.count == 70)
            #expect(starts.map(\.environment) == (0..<70).map { $0 % 2 == 0 ? "production" : nil })
            #expect(claimed.filter { $0.target == .token }.map(\.environment) == ["production"])
        }
    }
}

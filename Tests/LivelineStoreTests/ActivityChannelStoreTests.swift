import Foundation
import LivelineStore
import LivelineTesting
import Testing

/// On-demand channels of logical activities (migration 13-activity-channels), on SQLite and PostgreSQL.
enum ActivityChannelStoreContract {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let bundle = "com.example.flights"

    static func lifecycle(_ store: any Store) throws {
        try store.write { tx in
            try tx.upsertApp(AppRecord(bundleID: bundle, teamID: "TEAM000001", keyID: "KEY0000001", keyPEM: "pem", environment: "sandbox", createdAt: t0))
            // A backend's channel (no activity), two on-demand ones, one whose activity never started.
            try tx.insertChannel(ChannelRecord(channelID: "shared", bundleID: bundle, storagePolicy: 0, createdAt: t0))
            try tx.insertChannel(ChannelRecord(channelID: "ch-a", bundleID: bundle, storagePolicy: 1, createdAt: t0, activityID: "a"))
            try tx.insertChannel(ChannelRecord(channelID: "ch-b", bundleID: bundle, storagePolicy: 0, createdAt: t0, activityID: "b"))
            try tx.insertChannel(ChannelRecord(channelID: "ch-orphan", bundleID: bundle, storagePolicy: 1, createdAt: t0.addingTimeInterval(50), activityID: "never"))
            try tx.upsertActivity(ActivityRecord(activityID: "a", bundleID: bundle, attributesType: "FlightAttributes", channelID: "ch-a", startedAt: t0, endedAt: t0.addingTimeInterval(10)))
            try tx.upsertActivity(ActivityRecord(activityID: "b", bundleID: bundle, attributesType: "FlightAttributes", channelID: "ch-b", startedAt: t0))
            try tx.upsertActivity(ActivityRecord(activityID: "s", bundleID: bundle, attributesType: "FlightAttributes", channelID: "shared", startedAt: t0, endedAt: t0.addingTimeInterval(1)))
        }
        let a = try store.write { try $0.activityChannel(activityID: "a") }
        #expect(a == ChannelRecord(channelID: "ch-a", bundleID: bundle, storagePolicy: 1, createdAt: t0, activityID: "a"))
        #expect(try store.write { try $0.activityChannel(activityID: "s") } == nil, "a backend's channel belongs to no activity")
        #expect(try store.write { try $0.channel("shared") }?.activityID == nil)
        func due(_ at: TimeInterval, started: TimeInterval = -1) throws -> [String] {
            try store.write { try $0.staleActivityChannels(endedBefore: t0.addingTimeInterval(at), startedBefore: t0.addingTimeInterval(started), limit: 10) }.map(\.channelID).sorted()
        }
        #expect(try due(9) == [], "a ended at +10: not yet due at +9")
        #expect(try due(10) == ["ch-a"])
        #expect(try due(60) == ["ch-a", "ch-orphan"], "a channel whose activity is gone is due once as old as the grace")
        #expect(try due(60, started: 0) == ["ch-a", "ch-b", "ch-orphan"], "b started before the cut-off: ActivityKit ended it")
        // Restarted with another channel: the old on-demand one is no longer used.
        try store.write { tx in
            try tx.upsertActivity(ActivityRecord(activityID: "b", bundleID: bundle, attributesType: "FlightAttributes", channelID: "shared", startedAt: t0.addingTimeInterval(5)))
        }
        #expect(try due(20) == ["ch-a", "ch-b"])
        #expect(try store.write { try $0.deleteChannel("ch-a") })
        #expect(try store.write { try $0.activityChannel(activityID: "a") } == nil)
        // One on-demand channel per activity.
        #expect(throws: (any Error).self) {
            try store.write { try $0.insertChannel(ChannelRecord(channelID: "ch-b2", bundleID: bundle, storagePolicy: 1, createdAt: t0, activityID: "b")) }
        }
    }
}

@Suite("Store: on-demand channels of logical activities")
struct ActivityChannelStoreTests {
    @Test("an activity's channel is found by its logical id, due for deletion after its end, and unique per activity", arguments: StoreKind.all)
    func lifecycle(_ kind: StoreKind) throws { try kind.withStore(ActivityChannelStoreContract.lifecycle) }
}

import Foundation
import LivelineCore
import LivelineKit
import Testing

/// The traps app teams keep hitting, each against a real service.
@Suite("LivelineKit: the app-side traps")
struct TrapTests {
    @Test("observers attached late on a background launch: the current tokens are read directly, the streams never yield")
    func lateObservers() async throws {
        let f = try await KitFixture()
        let pts = newToken(), update = newToken()
        // Woken for a token: the values are already there, and nothing will be yielded again.
        let kind = FakeKind(pushToStartToken: pts, activities: [FakeActivity(logicalID: "flight-1", token: update)])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        await uploader.drain()
        #expect(await coordinator.handledEvents == 0)
        #expect(try f.pushToStartToken() == pts.hex)
        #expect(try f.activityToken("flight-1") == update.hex)
        await f.stop()
    }

    @Test("a relaunch without a push-to-start token in memory does not register an empty one; the service keeps the token")
    func pushToStartNotReRegisteredEmpty() async throws {
        let f = try await KitFixture()
        let pts = newToken()
        let first = try f.uploader()
        let launch1 = try f.coordinator(first, kinds: [FakeKind(pushToStartToken: pts)])
        await launch1.start()
        await first.drain()
        await launch1.stop()

        let second = try f.uploader()
        let kind = FakeKind(pushToStartToken: nil)
        let launch2 = try f.coordinator(second, kinds: [kind])
        await launch2.start()
        kind.issuePushToStart(Data())
        await launch2.waitForEvents(1)
        #expect(await second.pending.isEmpty)
        #expect(await second.drain().sent.isEmpty)
        #expect(try f.pushToStartToken() == pts.hex)
        await f.stop()
    }

    @Test("tokens re-delivered on every start and end, and after a relaunch, are sent once")
    func redeliveredSentOnce() async throws {
        let f = try await KitFixture()
        let token = newToken(), pts = newToken()
        let activity = FakeActivity(logicalID: "flight-1", token: token)
        let kind = FakeKind(pushToStartToken: pts, activities: [activity])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        #expect(await uploader.drain().sent.count == 3)
        activity.redeliver(token)
        activity.redeliver(token)
        kind.issuePushToStart(pts)
        await coordinator.waitForEvents(3)
        #expect(await uploader.pending.isEmpty)
        await coordinator.stop()

        let relaunchedUploader = try f.uploader()
        let relaunched = try f.coordinator(relaunchedUploader, kinds: [FakeKind(pushToStartToken: pts, activities: [FakeActivity(id: activity.id, logicalID: "flight-1", token: token)])])
        await relaunched.start()
        #expect(await relaunchedUploader.pending.isEmpty)
        #expect(await relaunchedUploader.drain().sent.isEmpty)
        await f.stop()
    }

    @Test("tokens left on the service by activities that ended while the app was killed are deleted at launch")
    func reconcileAtLaunch() async throws {
        let f = try await KitFixture()
        let gone = FakeActivity(logicalID: "flight-1", token: newToken())
        let stays = FakeActivity(logicalID: "flight-2", token: newToken())
        let uploader = try f.uploader()
        let launch1 = try f.coordinator(uploader, kinds: [FakeKind(activities: [gone, stays])])
        await launch1.start()
        await uploader.drain()
        #expect(try f.activityToken("flight-1") != nil)
        await launch1.stop()

        // Killed; flight-1 ended meanwhile, and one more token was queued but never confirmed.
        await uploader.setActivityToken(newToken().hex, activityID: "flight-3")
        let relaunchedUploader = try f.uploader()
        let relaunched = try f.coordinator(relaunchedUploader, kinds: [FakeKind(activities: [FakeActivity(id: stays.id, logicalID: "flight-2", token: stays.pushToken)])])
        await relaunched.start()
        let report = await relaunchedUploader.drain()
        #expect(report.dropped.isEmpty)
        #expect(try f.activityToken("flight-1") == nil)
        #expect(try f.activityToken("flight-3") == nil)
        #expect(try f.activityToken("flight-2") == stays.pushToken!.hex)
        #expect(await relaunched.runningActivityIDs == ["flight-2"])
        await f.stop()
    }

    @Test("an update token queued before the device is known waits for the device; a device the service lost is registered again")
    func deviceBeforeToken() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        let token = newToken()
        await uploader.setActivityToken(token.hex, activityID: "flight-1")
        // No device yet: nothing may go (the service would answer 404 unknown-device).
        let before = await uploader.drain()
        #expect(before.sent.isEmpty)
        #expect(before.remaining == 1)
        await uploader.registerDevice(KitFixture.device())
        let report = await uploader.drain()
        #expect(report.sent == ["device phone-1", "token of phone-1 for flight-1 (\(token.hex.prefix(8))…)"])

        // The service forgets the device (deleted by an operator): the next token re-registers it.
        #expect(try await f.admin("DELETE", "/v1/devices/\(f.serviceID("phone-1"))").status == 200)
        let rotated = newToken()
        await uploader.setActivityToken(rotated.hex, activityID: "flight-1")
        let again = await uploader.drain()
        #expect(again.remaining == 0)
        #expect(try f.deviceRecord() != nil)
        #expect(try f.activityToken("flight-1") == rotated.hex)
        await f.stop()
    }

    @Test("the 8-hour limit: an activity ActivityKit still lists after 8 hours loses its token")
    func eightHours() async throws {
        let f = try await KitFixture()
        let activity = FakeActivity(logicalID: "flight-1", token: newToken())
        let uploader = try f.uploader()
        let launch1 = try f.coordinator(uploader, kinds: [FakeKind(activities: [activity])])
        await launch1.start()
        await uploader.drain()
        await launch1.stop()
        f.clock.advance(hours: 7.9)
        let launch2 = try f.coordinator(try f.uploader(), kinds: [FakeKind(activities: [activity])])
        await launch2.start()
        #expect(await launch2.runningActivityIDs == ["flight-1"])
        await launch2.stop()
        f.clock.advance(hours: 0.2)
        let uploader3 = try f.uploader()
        let launch3 = try f.coordinator(uploader3, kinds: [FakeKind(activities: [activity])])
        await launch3.start()
        await uploader3.drain()
        #expect(await launch3.runningActivityIDs.isEmpty)
        #expect(try f.activityToken("flight-1") == nil)
        await f.stop()
    }

    @Test("taps carry their idempotency key: never coalesced, never delivered twice")
    func interactions() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [FakeKind(activities: [FakeActivity(logicalID: "flight-1", token: newToken())])])
        await coordinator.start()
        await uploader.drain()
        let tap = Interaction(activityID: "flight-1", action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-1")
        await coordinator.recordInteraction(tap)
        await coordinator.recordInteraction(tap)
        await coordinator.recordInteraction(Interaction(activityID: "flight-1", action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-2"))
        #expect(await uploader.pending.count == 2)
        #expect(await uploader.drain().sent.count == 2)
        // Replayed after delivery (an intent run again): not queued.
        await coordinator.recordInteraction(tap)
        #expect(await uploader.pending.isEmpty)
        #expect(try f.interactions("flight-1").map(\.idempotencyKey).sorted() == ["tap-1", "tap-2"])
        await f.stop()
    }
}

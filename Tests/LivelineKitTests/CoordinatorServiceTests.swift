import Foundation
import LivelineCore
import LivelineKit
import Testing

/// The coordinator and the uploader against a real `liveline serve` on loopback, with ActivityKit
/// faked through the protocols that mirror it.
@Suite("LivelineKit: the coordinator keeps a real service in step")
struct CoordinatorServiceTests {
    @Test("a launch registers the device, the push-to-start token and each activity's token, device first")
    func launchRegistersEverything() async throws {
        let f = try await KitFixture()
        let pts = newToken(), update = newToken()
        let kind = FakeKind(pushToStartToken: pts, activities: [FakeActivity(logicalID: "flight-1", token: update)])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind], authorization: FakeAuthorization(true))
        await coordinator.start()
        let report = await uploader.drain()
        #expect(report.sent.first == "device phone-1")
        #expect(report.sent.count == 3)
        #expect(report.remaining == 0)
        #expect(try f.deviceRecord()?.frequentUpdates == true)
        #expect(try f.pushToStartToken() == pts.hex)
        #expect(try f.activityToken("flight-1") == update.hex)
        await f.stop()
    }

    @Test("rotation: a new update token and a new push-to-start token replace the old ones")
    func rotation() async throws {
        let f = try await KitFixture()
        let activity = FakeActivity(logicalID: "flight-1", token: newToken())
        let kind = FakeKind(pushToStartToken: newToken(), activities: [activity])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        await uploader.drain()
        let rotated = newToken(), rotatedStart = newToken()
        activity.issue(rotated)
        kind.issuePushToStart(rotatedStart)
        await coordinator.waitForEvents(2)
        let report = await uploader.drain()
        #expect(report.sent.count == 2)
        #expect(try f.activityToken("flight-1") == rotated.hex)
        #expect(try f.pushToStartToken() == rotatedStart.hex)
        await f.stop()
    }

    @Test("two activities at once: each logical id gets its own token; ending one leaves the other")
    func twoActivities() async throws {
        let f = try await KitFixture()
        let a = FakeActivity(logicalID: "flight-1", token: newToken())
        let kind = FakeKind(activities: [a])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        let b = FakeActivity(logicalID: "flight-2")
        kind.start(b)
        await coordinator.waitForEvents(1)
        let bToken = newToken()
        b.issue(bToken)
        await coordinator.waitForEvents(2)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == a.pushToken!.hex)
        #expect(try f.activityToken("flight-2") == bToken.hex)
        a.change(to: .ended)
        await coordinator.waitForEvents(3)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        #expect(try f.activityToken("flight-2") == bToken.hex)
        await f.stop()
    }

    @Test("an activity ended on the device loses its token, and its stream yielding again does not bring it back")
    func endedOnDevice() async throws {
        let f = try await KitFixture()
        let token = newToken()
        let activity = FakeActivity(logicalID: "flight-1", token: token)
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [FakeKind(activities: [activity])])
        await coordinator.start()
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == token.hex)
        activity.change(to: .dismissed)
        await coordinator.waitForEvents(1)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        // Trap: the ended activity's token stream yields again.
        activity.redeliver(token)
        activity.issue(newToken())
        await coordinator.waitForEvents(3)
        #expect(await uploader.pending.isEmpty)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        #expect(await coordinator.runningActivityIDs.isEmpty)
        await f.stop()
    }

    @Test("the service down then up: work queued meanwhile is kept and delivered, newest token only")
    func serviceDownThenUp() async throws {
        let f = try await KitFixture()
        let activity = FakeActivity(logicalID: "flight-1", token: newToken())
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [FakeKind(activities: [activity])])
        await coordinator.start()
        await uploader.drain()
        await coordinator.recordInteraction(Interaction(activityID: "flight-1", action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-1"))
        await uploader.drain()

        await f.stopServer()
        let second = newToken(), third = newToken()
        activity.issue(second)
        activity.issue(third)
        await coordinator.waitForEvents(2)
        await coordinator.recordInteraction(Interaction(activityID: "flight-1", action: "boarding-pass", deviceID: "phone-1", idempotencyKey: "tap-2"))
        let down = await uploader.drain(within: .seconds(30))
        #expect(down.sent.isEmpty)
        #expect(down.dropped.isEmpty)
        #expect(down.remaining == 2)
        #expect(down.nextAttempt != nil)

        try f.startServer()
        await uploader.setClient(f.client)
        let up = await uploader.drain(within: .seconds(300))
        #expect(up.remaining == 0)
        #expect(up.sent.count == 2, "the token once (coalesced) and the tap: \(up.sent)")
        #expect(try f.activityToken("flight-1") == third.hex)
        #expect(try f.interactions("flight-1").map(\.idempotencyKey).sorted() == ["tap-1", "tap-2"])
        await f.stop()
    }

    @Test("the app killed mid-upload and relaunched: a new uploader on the same directory finishes, a tap arrives once")
    func killedMidUpload() async throws {
        let f = try await KitFixture()
        let token = newToken()
        let first = try f.uploader()
        await first.registerDevice(KitFixture.device())
        await first.setActivityToken(token.hex, activityID: "flight-1", attributesType: "FlightAttributes")
        await first.postInteraction(Interaction(activityID: "flight-1", action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-1"))
        // The disk as it was when the requests left: the app is killed before it records the answers.
        let snapshot = f.directory.appendingPathComponent("snapshot")
        try FileManager.default.copyItem(at: f.appDirectory, to: snapshot)
        let report = await first.drain()
        #expect(report.sent.count == 3)
        // The installation credential lives outside the queue (the Keychain on iOS): the kill does not take it back.
        let credential = "liveline-installation.json"
        try FileManager.default.copyItem(at: f.appDirectory.appendingPathComponent(credential), to: snapshot.appendingPathComponent(credential))

        let relaunched = try f.uploader(directory: snapshot)
        #expect(await relaunched.pending.count == 3)
        let again = await relaunched.drain()
        #expect(again.remaining == 0)
        #expect(again.dropped.isEmpty)
        #expect(try f.activityToken("flight-1") == token.hex)
        #expect(try f.interactions("flight-1").count == 1)

        // Killed before anything was sent: the relaunch sends it.
        let later = newToken()
        await relaunched.setActivityToken(later.hex, activityID: "flight-1")
        let third = try f.uploader(directory: snapshot)
        #expect(await third.drain().sent.count == 1)
        #expect(try f.activityToken("flight-1") == later.hex)
        await f.stop()
    }

    @Test("two device activities for one logical id: the newest one's token is registered, the survivor's after it ends")
    func duplicates() async throws {
        let f = try await KitFixture()
        let older = FakeActivity(id: "a-older", logicalID: "flight-1", token: newToken())
        let kind = FakeKind(activities: [older])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        await uploader.drain()
        f.clock.advance(.seconds(60))
        let newer = FakeActivity(id: "b-newer", logicalID: "flight-1", token: newToken())
        kind.start(newer)
        await coordinator.waitForEvents(1)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == newer.pushToken!.hex)
        // The newer duplicate ends: deleting would leave the older one without updates.
        newer.change(to: .ended)
        await coordinator.waitForEvents(2)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == older.pushToken!.hex)
        older.change(to: .ended)
        await coordinator.waitForEvents(3)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        await f.stop()
    }

    @Test("Live Activities switched back on: tokens that changed meanwhile without a stream element are read and sent")
    func activitiesReenabled() async throws {
        let f = try await KitFixture()
        let authorization = FakeAuthorization(false)
        let activity = FakeActivity(logicalID: "flight-1", token: newToken())
        let kind = FakeKind(pushToStartToken: newToken(), activities: [activity])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind], authorization: authorization)
        await coordinator.start()
        await uploader.drain()
        authorization.setActivitiesEnabled(false)
        let pts = newToken(), update = newToken()
        kind.replacePushToStartSilently(pts)
        activity.replaceSilently(update)
        authorization.setActivitiesEnabled(true)
        await coordinator.waitForEvents(2)
        await uploader.drain()
        #expect(try f.pushToStartToken() == pts.hex)
        #expect(try f.activityToken("flight-1") == update.hex)
        await f.stop()
    }

    @Test("frequent updates switched on: the device is registered again with it")
    func frequentUpdatesSwitched() async throws {
        let f = try await KitFixture()
        let authorization = FakeAuthorization(false)
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [FakeKind()], authorization: authorization)
        await coordinator.start()
        await uploader.drain()
        #expect(try f.deviceRecord()?.frequentUpdates == false)
        authorization.set(true)
        await coordinator.waitForEvents(1)
        await uploader.drain()
        #expect(try f.deviceRecord()?.frequentUpdates == true)
        await f.stop()
    }
}

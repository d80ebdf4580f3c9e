import Foundation
import LivelineCore
import LivelineKit
import Testing

/// iOS 26 scheduled activities: `.pending` until their start date, their update token later.
@Suite("LivelineKit: a pending (scheduled) activity is tracked and its token registered when it arrives")
struct PendingActivityTests {
    @Test("pending at launch: nothing uploaded for it, not expired while it waits past 8 hours, its token registered once it starts")
    func tokenArrivesLater() async throws {
        let f = try await KitFixture()
        let activity = FakeActivity(logicalID: "flight-1", state: .pending)
        let other = FakeActivity(logicalID: "flight-2", token: newToken())
        let kind = FakeKind(activities: [activity, other])
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [kind])
        await coordinator.start()
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        #expect(try f.activityToken("flight-2") == other.pushToken!.hex)

        // Scheduled 9 hours ahead: an event after 8.5 hours runs the age check, which must leave
        // the pending activity alone (its 8 hours have not begun) and end the other.
        f.clock.advance(.seconds(8 * 3600 + 1800))
        kind.start(FakeActivity(logicalID: "flight-3", token: newToken()))
        await coordinator.waitForEvents(1)
        await uploader.drain()
        #expect(try f.activityToken("flight-2") == nil)

        f.clock.advance(.seconds(1800))
        activity.change(to: .active)
        await coordinator.waitForEvents(2)
        let token = newToken()
        activity.issue(token)
        await coordinator.waitForEvents(3)
        let report = await uploader.drain()
        #expect(report.remaining == 0)
        #expect(try f.activityToken("flight-1") == token.hex)

        // Its 8 hours count from the start: 7 hours on it is still registered, past 8 it is not.
        f.clock.advance(.seconds(7 * 3600))
        other.change(to: .dismissed)
        await coordinator.waitForEvents(4)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == token.hex)
        f.clock.advance(.seconds(3600 + 60))
        other.change(to: .dismissed)
        await coordinator.waitForEvents(5)
        await uploader.drain()
        #expect(try f.activityToken("flight-1") == nil)
        await f.stop()
    }
}

import Foundation
import LivelineCore
import LivelineKit
import Testing

/// The phone's own ActivityKit activity id (`Activity.id`) as an alias of the logical id, from the
/// app side: the coordinator sends it with the update token, taps reported under it reach the
/// logical activity, and a refused alias never costs the token. Against a real `liveline serve`.
@Suite("LivelineKit: the phone's activity id resolves to the logical id")
struct ActivityAliasKitTests {
    @Test("a tap under the phone's activity id, queued before the token, is kept through the 404 and listed under the logical id")
    func tapUnderDeviceID() async throws {
        let f = try await KitFixture()
        let activity = FakeActivity(logicalID: "flight-1")
        let uploader = try f.uploader()
        let coordinator = try f.coordinator(uploader, kinds: [FakeKind(activities: [activity])])
        await coordinator.start()
        await uploader.drain()

        // The widget reports the tap with the only id it knows: ActivityKit's. No token yet, so the
        // service cannot resolve it: 404, kept.
        await coordinator.recordInteraction(Interaction(activityID: activity.id, action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-1"))
        let early = await uploader.drain(within: .seconds(5))
        #expect(early.dropped.isEmpty, "a 404 under the phone's id may resolve later: \(early.dropped)")
        #expect(early.remaining == 1)
        #expect(try f.interactions("flight-1").isEmpty)

        // The token arrives with the phone's id: the alias resolves and the tap follows.
        let token = newToken()
        activity.issue(token)
        await coordinator.waitForEvents(1)
        #expect(await uploader.pending.contains(.activityToken(token: token.hex, activityID: "flight-1", deviceID: "phone-1", attributesType: "FlightAttributes", deviceActivityID: activity.id)))
        let later = await uploader.drain(within: .seconds(600))
        #expect(later.remaining == 0, "\(later)")
        #expect(later.dropped.isEmpty)
        #expect(try f.activityToken("flight-1") == token.hex)
        let taps = try f.interactions("flight-1")
        #expect(taps.map(\.idempotencyKey) == ["tap-1"])
        #expect(taps.first?.activityID == "flight-1")
        let shown = try await f.admin("GET", "/v1/activities/flight-1")
        let aliases = shown.json["aliases"]?.arrayValue ?? []
        #expect(aliases.contains { $0["alias"]?.stringValue?.lowercased() == activity.id.lowercased() && $0["kind"]?.stringValue == "device" }, "\(shown.json)")
        await coordinator.stop()
        await f.stop()
    }

    @Test("a tap under an id that never resolves is dropped once the window has passed, not before")
    func unresolvedWindow() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        await uploader.drain()
        await uploader.postInteraction(Interaction(activityID: UUID().uuidString, action: "check-in", deviceID: "phone-1", idempotencyKey: "tap-lost"))
        let first = await uploader.drain(within: .seconds(600))
        #expect(first.dropped.isEmpty)
        #expect(first.remaining == 1)
        f.clock.advance(hours: 24)
        let late = await uploader.drain(within: .seconds(600))
        #expect(late.remaining == 0)
        #expect(late.dropped.count == 1 && late.dropped[0].contains("404"), "\(late.dropped)")
        await f.stop()
    }

    @Test("an alias already taken still registers the token, without the alias; the same token is not sent again")
    func takenAlias() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        let phoneID = UUID().uuidString
        let first = newToken(), second = newToken()
        await uploader.setActivityToken(first.hex, activityID: "flight-1", attributesType: "FlightAttributes", deviceActivityID: phoneID)
        #expect(await uploader.drain().dropped.isEmpty)
        // The same phone id reported for another activity: the service refuses the alias (409).
        await uploader.setActivityToken(second.hex, activityID: "flight-2", attributesType: "FlightAttributes", deviceActivityID: phoneID)
        let report = await uploader.drain()
        #expect(report.dropped.isEmpty, "\(report.dropped)")
        #expect(report.remaining == 0)
        #expect(try f.activityToken("flight-2") == second.hex)
        #expect(try f.activityToken("flight-1") == first.hex)
        let one = try await f.admin("GET", "/v1/activities/flight-1")
        let two = try await f.admin("GET", "/v1/activities/flight-2")
        #expect(one.json["aliases"]?.arrayValue?.count == 1, "\(one.json)")
        #expect(two.json["aliases"] == nil, "\(two.json)")
        // ActivityKit re-delivers the token: settled, nothing to send.
        await uploader.setActivityToken(second.hex, activityID: "flight-2", attributesType: "FlightAttributes", deviceActivityID: phoneID)
        #expect(await uploader.pending.isEmpty)
        await f.stop()
    }

    @Test("past the service's aliases per activity (409 too-many-aliases) the token still registers")
    func tooManyAliases() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        // Each relaunch of the activity on the phone brings a new Activity.id for the same logical id.
        var last = ""
        for _ in 0..<6 {
            let token = newToken()
            last = token.hex
            await uploader.setActivityToken(last, activityID: "flight-1", attributesType: "FlightAttributes", deviceActivityID: UUID().uuidString)
            let report = await uploader.drain()
            #expect(report.dropped.isEmpty, "\(report.dropped)")
            #expect(try f.activityToken("flight-1") == last)
        }
        let shown = try await f.admin("GET", "/v1/activities/flight-1")
        // The service keeps 4 per installation and activity (docs/service.md): the last two tokens went without theirs.
        #expect(shown.json["aliases"]?.arrayValue?.count == 4, "\(shown.json)")
        await f.stop()
    }

    @Test("an id that is not ActivityKit's (a UUID) is not sent: the service would refuse the token with it")
    func onlyUUIDs() async throws {
        let f = try await KitFixture()
        let uploader = try f.uploader()
        await uploader.registerDevice(KitFixture.device())
        let token = newToken()
        await uploader.setActivityToken(token.hex, activityID: "flight-1", attributesType: "FlightAttributes", deviceActivityID: "sim-activity-7")
        #expect(await uploader.pending.last?.deviceActivityIDForTests == nil)
        #expect(await uploader.drain().dropped.isEmpty)
        #expect(try f.activityToken("flight-1") == token.hex)
        await f.stop()
    }

    @Test("a queue written before deviceActivityID and queuedAt existed still loads and is sent")
    func oldQueueDecodes() async throws {
        let f = try await KitFixture()
        let token = newToken()
        try FileManager.default.createDirectory(at: f.appDirectory, withIntermediateDirectories: true)
        let at = f.clock.now.timeIntervalSinceReferenceDate
        // The registration as this version encodes it (unchanged); the token entry and its
        // PendingUpload as the previous version wrote them, without the new fields.
        let device = String(decoding: try JSONEncoder().encode(KitFixture.device()), as: UTF8.self)
        let old = """
        {"version":1,"sequence":2,"confirmed":{},"delivered":[],"pending":{
        "device|phone-1":{"operation":{"registerDevice":{"_0":\(device)}},"sequence":1,"attempts":0,"notBefore":\(at)},
        "activity|flight-1|phone-1":{"operation":{"activityToken":{"token":"\(token.hex)","activityID":"flight-1","deviceID":"phone-1","attributesType":"FlightAttributes"}},"sequence":2,"attempts":0,"notBefore":\(at)}}}
        """
        try Data(old.utf8).write(to: f.appDirectory.appendingPathComponent("liveline-uploads.json"))
        let uploader = try f.uploader()
        #expect(await uploader.pending.count == 2, "the old queue did not decode")
        let report = await uploader.drain()
        #expect(report.remaining == 0, "\(report)")
        #expect(try f.activityToken("flight-1") == token.hex)
        await f.stop()
    }
}

extension UploadOperation {
    var deviceActivityIDForTests: String? {
        if case .activityToken(_, _, _, _, let alias) = self { alias } else { nil }
    }
}

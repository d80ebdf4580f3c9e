import Foundation
import Testing
@testable import LivelineCore

@Suite("Validation before sending")
struct ValidationTests {
    let now = Date(timeIntervalSince1970: 1_764_424_800)
    let flight = FlightAttributes.example(departure: Date(timeIntervalSince1970: 1_764_432_000))
    var state: FlightAttributes.ContentState { .init(status: .scheduled, gate: "B12", boardingTime: Date(timeIntervalSince1970: 1_764_430_000)) }

    func expectError(_ code: PayloadError.Code, _ fragments: [String], for target: PushRequest.Target = .device, _ build: () throws -> PushRequest) {
        #expect {
            try build().validate(for: target)
        } throws: { error in
            guard let error = error as? PayloadError else { return false }
            let missing = fragments.filter { !error.message.contains($0) }
            if error.code != code || !missing.isEmpty { Issue.record("got \(error.code): \(error.message); missing \(missing)") }
            return error.code == code && missing.isEmpty
        }
    }

    func request(_ push: LiveActivityPush, priority: Priority = .immediate) -> PushRequest {
        .liveActivity(push, bundleID: "com.example.flights", priority: priority)
    }

    @Test("a valid start, update and end pass and return the exact bytes")
    func valid() throws {
        let start = request(try .start(attributes: flight, state: state, alert: "Tracking LL 1234", timestamp: now))
        let bytes = try start.validate()
        #expect(bytes == start.body.serialized())
        try request(try .update(state: state, timestamp: now)).validate()
        try request(try .end(state: state, timestamp: now, dismissal: .at(now.addingTimeInterval(4 * 3600)))).validate()
    }

    @Test("start without alert, attributes-type or attributes")
    func startRequirements() throws {
        var push = try LiveActivityPush.start(attributes: flight, state: state, alert: "x", timestamp: now)
        push.alert = nil
        expectError(.startMissingAlert, ["aps.alert", "drops the push"]) { request(push) }
        push.alert = "x"
        push.attributesType = nil
        expectError(.startMissingAttributesType, ["aps.attributes-type", "FlightAttributes"]) { request(push) }
        push.attributesType = "FlightAttributes"
        push.attributes = nil
        expectError(.startMissingAttributes, ["aps.attributes", "FlightAttributes"]) { request(push) }
    }

    @Test("update without content-state; start-only and end-only fields elsewhere")
    func eventFields() throws {
        expectError(.missingContentState, ["update", "aps.content-state"]) { request(LiveActivityPush(event: .update, timestamp: now)) }
        var update = try LiveActivityPush.update(state: state, timestamp: now)
        update.attributes = ["flightNumber": "LL 1234"]
        expectError(.fieldNotAllowed, ["start pushes only", "update"]) { request(update) }
        update.attributes = nil
        update.startInput = .pushToken
        expectError(.fieldNotAllowed, ["input-push-token", "update"]) { request(update) }
        update.startInput = .none
        update.dismissal = .immediate
        expectError(.fieldNotAllowed, ["dismissal-date", "end pushes only"]) { request(update) }
        let start = try LiveActivityPush.start(attributes: flight, state: state, alert: "x", timestamp: now)
        expectError(.fieldNotAllowed, ["broadcast cannot start"], for: .broadcast) { PushRequest(pushType: .liveActivity, topic: "", body: start.body) }
    }

    @Test("a body over 4096 bytes names its size, the limit and the largest fields; broadcast allows 5120")
    func size() throws {
        let big = String(repeating: "x", count: 4200)
        let push = try LiveActivityPush.update(state: ["gate": "C7", "notes": .string(big)] as JSONObject, timestamp: now)
        expectError(.payloadTooLarge, ["\(push.body.serializedSize) bytes", "limit is 4096 bytes", "aps.content-state.notes (4210 bytes)"]) { request(push) }
        let broadcast = PushRequest(pushType: .liveActivity, topic: "", body: push.body)
        #expect(try broadcast.validate(for: .broadcast).count == push.body.serializedSize)
        let huge = try LiveActivityPush.update(state: ["notes": .string(big + big)] as JSONObject, timestamp: now)
        expectError(.payloadTooLarge, ["limit is 5120 bytes"], for: .broadcast) { PushRequest(pushType: .liveActivity, topic: "", body: huge.body) }
        let voip = PushRequest(pushType: .voip, topic: "com.example.app.voip", body: ["aps": [:], "x": .string(big)])
        #expect(throws: Never.self) { try voip.validate() }
    }

    @Test("apns-collapse-id over 64 bytes")
    func collapseID() throws {
        var r = request(try .update(state: state, timestamp: now))
        r.collapseID = String(repeating: "é", count: 33)
        expectError(.collapseIDTooLong, ["66 bytes", "limit is 64 bytes"]) { r }
        r.collapseID = String(repeating: "a", count: 64)
        try r.validate()
    }

    @Test("non-finite numbers, from a typed state or a raw tree, name their path")
    func nonFinite() throws {
        struct Score: Codable { var home: Double }
        #expect {
            _ = try LiveActivityPush.update(state: Score(home: .nan), timestamp: now)
        } throws: { error in
            (error as? PayloadError)?.code == .nonFiniteNumber && "\(error)".contains("content-state.home")
        }
        var push = try LiveActivityPush.update(state: state, timestamp: now)
        push.contentState?["ratio"] = .number(.infinity)
        expectError(.nonFiniteNumber, ["aps.content-state.ratio", "inf"]) { request(push) }
        push.contentState?["ratio"] = 1
        push.relevanceScore = .nan
        expectError(.nonFiniteNumber, ["relevance-score"]) { request(push) }
    }

    @Test("a content state that does not encode to a JSON object")
    func notAnObject() {
        #expect {
            _ = try LiveActivityPush.update(state: "boarding", timestamp: now)
        } throws: { error in
            (error as? PayloadError)?.code == .encodingFailed && "\(error)".contains("content-state must encode to a JSON object, got string")
        }
    }

    @Test("a dismissal more than 4 hours after the end")
    func dismissalLimit() throws {
        let push = try LiveActivityPush.end(state: state, timestamp: now, dismissal: .at(now.addingTimeInterval(5 * 3600)))
        expectError(.dismissalTooLate, ["5.0 hours after the end", "at most 4 hours"]) { request(push) }
    }

    @Test("priorities that do not fit the push type")
    func priorities() throws {
        expectError(.priorityNotAllowed, ["apns-priority 1", "liveactivity", "10 or 5"]) { request(try .update(state: state, timestamp: now), priority: .low) }
        expectError(.priorityNotAllowed, ["apns-priority 10", "background", "use 5"]) {
            PushRequest.notification(.background(), bundleID: "com.example.flights", priority: .immediate)
        }
        try PushRequest.notification(NotificationPush(alert: "hi"), bundleID: "com.example.flights", priority: .low).validate()
    }

    @Test("topics that do not fit the push type")
    func topics() throws {
        var r = request(try .update(state: state, timestamp: now))
        r.topic = "com.example.flights"
        expectError(.topicMismatch, ["\"com.example.flights\"", "<bundle id>.push-type.liveactivity"]) { r }
        r.topic = ".push-type.liveactivity"
        expectError(.topicMismatch, ["does not fit"]) { r }
        let alert = PushRequest(pushType: .alert, topic: "com.example.flights.push-type.liveactivity", body: ["aps": ["alert": "x"]])
        expectError(.topicMismatch, ["alert", "the bare bundle id"]) { alert }
        let broadcast = PushRequest(pushType: .liveActivity, topic: "", body: try LiveActivityPush.update(state: state, timestamp: now).body)
        try broadcast.validate(for: .broadcast)
    }

    @Test("a bundle id that already ends in .push-type.liveactivity: refused with the bundle id to give instead")
    func doubledSuffix() throws {
        let doubled = PushRequest.liveActivity(try .update(state: state, timestamp: now), bundleID: "com.example.flights.push-type.liveactivity")
        #expect(doubled.topic == "com.example.flights.push-type.liveactivity.push-type.liveactivity")
        expectError(.bundleIDHasSuffix, ["\"com.example.flights.push-type.liveactivity\"", "give the app's own bundle id (\"com.example.flights\")"]) { doubled }
        // Another push type's suffix in front of this one's is as wrong; `.voip` may be a real bundle id's end.
        var widgets = doubled
        widgets.topic = "com.example.flights.push-type.widgets.push-type.liveactivity"
        expectError(.bundleIDHasSuffix, ["ends in \".push-type.widgets\""]) { widgets }
        #expect(PushRequest.doubledSuffix("com.example.flights") == nil)
        try PushRequest.liveActivity(try .update(state: state, timestamp: now), bundleID: "com.example.voip").validate()
        try PushRequest.liveActivity(try .update(state: state, timestamp: now), bundleID: "com.example.push-typed").validate()
    }

    @Test("a body that is not a Live Activity push")
    func malformed() {
        expectError(.malformedBody, ["no \"aps\""]) { PushRequest(pushType: .liveActivity, topic: "a.push-type.liveactivity", body: ["x": 1]) }
        expectError(.malformedBody, ["\"begin\"", "start"]) { PushRequest(pushType: .liveActivity, topic: "a.push-type.liveactivity", body: ["aps": ["event": "begin"]]) }
        expectError(.malformedBody, ["aps.timestamp", "Unix seconds", "string"]) {
            PushRequest(pushType: .liveActivity, topic: "a.push-type.liveactivity", body: ["aps": ["event": "update", "timestamp": "now"]])
        }
    }
}

import Foundation
import Testing
@testable import LivelineCore

/// `PushRequest.validate` as it was before the fast paths: a separate finiteness walk, a full
/// `LiveActivityPush(body:)` for Live Activity fields, then serialization. The fast version must
/// give the same bytes and the same error (code and message) for every request.
enum ReferenceValidation {
    static func validate(_ request: PushRequest, for target: PushRequest.Target) throws(PayloadError) -> [UInt8] {
        try checkNumbers(request.body, path: "")
        if let collapseID = request.collapseID, collapseID.utf8.count > 64 {
            throw PayloadError(.collapseIDTooLong, "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is 64 bytes")
        }
        let pushType = request.pushType
        if let priority = request.priority, !pushType.allowedPriorities.contains(priority) {
            let allowed = pushType.allowedPriorities.map { String($0.rawValue) }.joined(separator: " or ")
            throw PayloadError(.priorityNotAllowed, "apns-priority \(priority.rawValue) is not allowed for \(pushType) pushes; use \(allowed)")
        }
        let topic = request.topic
        if target == .device, let suffix = pushType.topicSuffix {
            let known = PushType.all.compactMap(\.topicSuffix).filter { !$0.isEmpty }
            let fits = suffix.isEmpty ? !known.contains { topic.hasSuffix($0) } : topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count
            if topic.isEmpty || !fits {
                let expected = suffix.isEmpty ? "the bare bundle id" : "<bundle id>\(suffix)"
                throw PayloadError(.topicMismatch, "apns-topic \"\(topic)\" does not fit push type \(pushType); expected \(expected)")
            }
            if !suffix.isEmpty, let error = PushRequest.doubledSuffix(topic.dropLast(suffix.utf8.count)) { throw error }
        }
        if pushType == .liveActivity {
            try LiveActivityPush(body: request.body).validateFields(broadcast: target == .broadcast)
        }
        let bytes = ReferenceJSON.serialize(request.body)
        let limit = request.maxBodyBytes(for: target)
        if bytes.count > limit {
            let largest = PushRequest.largestFields(of: request.body, count: 3).map { "\($0.path) (\($0.bytes) bytes)" }.joined(separator: ", ")
            throw PayloadError(.payloadTooLarge, "the body is \(bytes.count) bytes; the limit is \(limit) bytes. Largest fields: \(largest)")
        }
        return bytes
    }

    static func checkNumbers(_ value: JSONValue, path: String) throws(PayloadError) {
        switch value {
        case .number(let n) where !n.isFinite:
            throw PayloadError(.nonFiniteNumber, "\(path.isEmpty ? "the body" : path) is \(n), which JSON cannot carry: numbers must be finite")
        case .array(let items):
            for (i, item) in items.enumerated() { try checkNumbers(item, path: "\(path)[\(i)]") }
        case .object(let object):
            for member in object { try checkNumbers(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)") }
        default: break
        }
    }

    static func result(_ request: PushRequest, for target: PushRequest.Target) -> Result<[UInt8], PayloadError> {
        do throws(PayloadError) { return .success(try validate(request, for: target)) } catch { return .failure(error) }
    }
}

/// Random Live Activity requests: valid pushes of each event, then zero to three mutations that
/// break (or happen not to break) a rule: wrong JSON types, missing or duplicate fields, fields of
/// another event, dismissal dates around the 4-hour limit, non-finite numbers, bad headers.
struct PushRequestGenerator {
    var random: SeededGenerator
    var values: JSONValueGenerator

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        values = JSONValueGenerator(seed: seed &+ 1000)
    }

    static let apsKeys = [
        "timestamp", "event", "content-state", "attributes", "attributes-type", "alert", "stale-date", "relevance-score",
        "dismissal-date", "input-push-channel", "input-push-token", "sound", "aps",
    ]

    mutating func pick<T>(_ options: [T]) -> T { options.randomElement(using: &random)! }

    mutating func anyValue() -> JSONValue {
        pick([
            .null, .bool(true), .number(1), .number(0), .number(1_800_000_000), .string(""), .string("update"), .string("start"),
            .string("end"), .string("FlightAttributes"), .array([]), .object([:]), .object(["gate": "B12"]), values.value(depth: 3),
        ])
    }

    mutating func request() -> (PushRequest, PushRequest.Target) {
        let t = 1_800_000_000.0
        var aps: [JSONObject.Member] = [
            .init(key: "timestamp", value: .number(t)),
            .init(key: "event", value: .string(pick(["start", "update", "end"]))),
            .init(key: "content-state", value: ["status": "boarding", "gate": "B12", "boardingTime": 799_999_999, "isBoarding": true]),
        ]
        switch aps[1].value.stringValue {
        case "start":
            aps.append(.init(key: "attributes-type", value: "FlightAttributes"))
            aps.append(.init(key: "attributes", value: ["flightNumber": "LL 1234"]))
            aps.append(.init(key: "alert", value: pick([.string("Boarding"), ["title": "LL 1234", "body": "Gate B12"]])))
            if Bool.random(using: &random) { aps.append(.init(key: "input-push-token", value: 1)) }
        case "end":
            if Bool.random(using: &random) {
                let offsets: [Double] = [-5, 0, 60, 14_400, 14_401, 14_400.5, 18_000]
                aps.append(.init(key: "dismissal-date", value: .number(t + pick(offsets))))
            }
        default:
            aps.append(.init(key: "stale-date", value: .number(t + 1800)))
            aps.append(.init(key: "relevance-score", value: 75))
        }
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let key = pick(Self.apsKeys)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: aps.removeAll { $0.key == key }
            case 1: aps.insert(.init(key: key, value: anyValue()), at: Int.random(in: 0...aps.count, using: &random))
            case 2: aps.append(.init(key: key, value: anyValue()))  // a duplicate when the key is there
            default:
                if let i = aps.firstIndex(where: { $0.key == key }) { aps[i].value = anyValue() }
            }
        }
        var root: [JSONObject.Member] = [.init(key: "aps", value: .object(JSONObject(aps)))]
        switch Int.random(in: 0..<12, using: &random) {
        case 0: root = [.init(key: "aps", value: anyValue())] + root
        case 1: root.append(.init(key: "ratio", value: .number(pick([.nan, .infinity, -.infinity, 0.5]))))
        case 2: root.append(.init(key: "x", value: values.value()))
        case 3: root.removeAll()
        default: break
        }
        let body: JSONValue = Int.random(in: 0..<40, using: &random) == 0 ? anyValue() : .object(JSONObject(root))
        // Mostly good headers, so most requests reach the Live Activity rules.
        let good = "com.example.flights.push-type.liveactivity"
        let topic = pick([good, good, good, good, good, good, "com.example.flights", ".push-type.liveactivity", ""])
        let target: PushRequest.Target = Int.random(in: 0..<5, using: &random) == 0 ? .broadcast : .device
        let priority: Priority? = pick([nil, .immediate, .considerate, .considerate, .immediate, .considerate, .low])
        let collapseID: String? = pick([nil, nil, nil, nil, "flight-1234", String(repeating: "c", count: 65)])
        return (PushRequest(pushType: .liveActivity, topic: topic, priority: priority, collapseID: collapseID, body: body), target)
    }
}

@Suite("Validation fast paths")
struct LiveActivityFieldCheckTests {
    @Test("validate gives the reference's bytes or the reference's error for random requests", arguments: [11, 12, 13, 14] as [UInt64])
    func differential(seed: UInt64) {
        var generator = PushRequestGenerator(seed: seed)
        var outcomes: [String: Int] = [:]
        for _ in 0..<1500 {
            let (request, target) = generator.request()
            let expected = ReferenceValidation.result(request, for: target)
            let actual: Result<[UInt8], PayloadError>
            do throws(PayloadError) { actual = .success(try request.validate(for: target)) } catch { actual = .failure(error) }
            if actual != expected {
                Issue.record("\(request.body.jsonString) for \(target): got \(actual), expected \(expected)")
                return
            }
            if case .failure(let error) = expected { outcomes[error.code.rawValue, default: 0] += 1 } else { outcomes["ok", default: 0] += 1 }
        }
        // The generator must reach both verdicts and the Live Activity rules, or this test proves little.
        for code in ["ok", "malformed-body", "field-not-allowed", "missing-content-state", "non-finite-number", "topic-mismatch"] {
            #expect(outcomes[code, default: 0] > 0, "no request ended in \(code): \(outcomes)")
        }
    }

    @Test("the fast check never passes what the full parse rejects, and passes the usual pushes", arguments: [21, 22] as [UInt64])
    func soundness(seed: UInt64) throws {
        var generator = PushRequestGenerator(seed: seed)
        for _ in 0..<2000 {
            let (request, target) = generator.request()
            var numbersFinite = true
            do throws(PayloadError) { try ReferenceValidation.checkNumbers(request.body, path: "") } catch { numbersFinite = false }
            guard numbersFinite else { continue }
            let slow: Bool
            do throws(PayloadError) {
                try LiveActivityPush(body: request.body).validateFields(broadcast: target == .broadcast)
                slow = true
            } catch { slow = false }
            if LiveActivityFieldCheck.passes(request.body, broadcast: target == .broadcast) && !slow {
                Issue.record("fast check passed \(request.body.jsonString) for \(target)")
            }
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let state = FlightAttributes.ContentState(status: .boarding, gate: "B12", boardingTime: now)
        let flight = FlightAttributes.example(departure: now)
        let usual: [(LiveActivityPush, Bool)] = [
            (try .update(state: state, timestamp: now, alert: "Boarding", staleDate: now, relevanceScore: 75), false),
            (try .update(state: state, timestamp: now), true),
            (try .start(attributes: flight, state: state, alert: "Tracking", timestamp: now, input: .pushToken), false),
            (try .end(state: state, timestamp: now, dismissal: .at(now.addingTimeInterval(3600))), true),
            (try .end(state: state, timestamp: now, dismissal: .immediate), false),
            (try .end(state: state, timestamp: now), false),
        ]
        for (push, broadcast) in usual {
            #expect(LiveActivityFieldCheck.passes(push.body, broadcast: broadcast), "\(push.body.jsonString)")
        }
    }

    /// Raw bodies for each Live Activity rule, with the code and a fragment of the message.
    static let rejected: [(JSONValue, PushRequest.Target, PayloadError.Code, String)] = [
        ("update", .device, .malformedBody, "must be a JSON object, got string"),
        (["x": 1], .device, .malformedBody, "no \"aps\" object"),
        (["aps": [1]], .device, .malformedBody, "no \"aps\" object"),
        (["aps": [:]], .device, .malformedBody, "aps.event is missing"),
        (["aps": ["event": 1]], .device, .malformedBody, "aps.event is missing"),
        (["aps": ["event": "begin"]], .device, .malformedBody, "aps.event is \"begin\""),
        (["aps": ["event": "update", "timestamp": "now"]], .device, .malformedBody, "aps.timestamp must be a number"),
        (["aps": ["event": "update", "content-state": [1]]], .device, .malformedBody, "aps.content-state must be an object, got array"),
        (["aps": ["event": "start", "attributes": "x"]], .device, .malformedBody, "aps.attributes must be an object, got string"),
        (["aps": ["event": "start", "attributes-type": 3]], .device, .malformedBody, "aps.attributes-type must be a string, got number"),
        (["aps": ["event": "update", "alert": true]], .device, .malformedBody, "aps.alert must be a string or an object, got boolean"),
        (["aps": ["event": "update", "stale-date": nil]], .device, .malformedBody, "aps.stale-date must be a number"),
        (["aps": ["event": "update", "relevance-score": "high"]], .device, .malformedBody, "aps.relevance-score must be a number, got string"),
        (["aps": ["event": "end", "dismissal-date": "soon"]], .device, .malformedBody, "aps.dismissal-date must be a number"),
        (["aps": ["event": "start", "alert": "x", "attributes-type": "F", "attributes": [:], "content-state": [:]]], .broadcast, .fieldNotAllowed, "broadcast cannot start"),
        (["aps": ["event": "start", "attributes-type": "F", "attributes": [:], "content-state": [:]]], .device, .startMissingAlert, "aps.alert"),
        (["aps": ["event": "start", "alert": "x", "attributes-type": "", "attributes": [:], "content-state": [:]]], .device, .startMissingAttributesType, "attributes-type"),
        (["aps": ["event": "start", "alert": "x", "attributes-type": "F", "content-state": [:]]], .device, .startMissingAttributes, "the static attributes of F"),
        (["aps": ["event": "start", "alert": "x", "attributes-type": "F", "attributes": [:]]], .device, .missingContentState, "a start push needs aps.content-state"),
        (["aps": ["event": "start", "alert": "x", "attributes-type": "F", "attributes": [:], "content-state": [:], "dismissal-date": 1]], .device, .fieldNotAllowed, "dismissal-date belongs to end pushes only, not start"),
        (["aps": ["event": "update"]], .device, .missingContentState, "an update push needs aps.content-state"),
        (["aps": ["event": "update", "content-state": [:], "attributes-type": "F"]], .device, .fieldNotAllowed, "start pushes only, not update"),
        (["aps": ["event": "end", "attributes": [:]]], .device, .fieldNotAllowed, "start pushes only, not end"),
        (["aps": ["event": "update", "content-state": [:], "input-push-channel": "abc"]], .device, .fieldNotAllowed, "input-push-channel belong to start pushes only"),
        (["aps": ["event": "end", "input-push-token": 1]], .device, .fieldNotAllowed, "input-push-token"),
        (["aps": ["event": "update", "content-state": [:], "dismissal-date": 1]], .device, .fieldNotAllowed, "dismissal-date belongs to end pushes only, not update"),
        (["aps": ["event": "end", "timestamp": 1000, "dismissal-date": 16000]], .device, .dismissalTooLate, "4.2 hours after the end"),
        (["aps": ["event": "update", "content-state": ["ratio": .number(.nan)]]], .device, .nonFiniteNumber, "aps.content-state.ratio is nan"),
        (["aps": ["event": "update", "content-state": [:], "relevance-score": .number(-.infinity)]], .device, .nonFiniteNumber, "aps.relevance-score is -inf"),
    ]

    @Test("each Live Activity rule still fails with its code and the reference's message", arguments: rejected)
    func rules(body: JSONValue, target: PushRequest.Target, code: PayloadError.Code, fragment: String) {
        let request = PushRequest(pushType: .liveActivity, topic: target == .device ? "a.push-type.liveactivity" : "", body: body)
        if code != .nonFiniteNumber {  // the fast check assumes finite numbers, checked before it
            #expect(!LiveActivityFieldCheck.passes(body, broadcast: target == .broadcast))
        }
        let expected = ReferenceValidation.result(request, for: target)
        #expect(throws: PayloadError.self) { try request.validate(for: target) }
        do throws(PayloadError) {
            _ = try request.validate(for: target)
        } catch {
            #expect(error.code == code)
            #expect(error.message.contains(fragment), "\(error.message)")
            #expect(.failure(error) == expected)
        }
    }

    /// The rules right next to each failure above, which must pass.
    static let nearMissCases: [(JSONValue, PushRequest.Target)] = [
        (["aps": ["event": "end", "timestamp": 1000, "dismissal-date": 15400]], .device),
        (["aps": ["event": "end", "timestamp": 1000, "dismissal-date": 999]], .device),
        (["aps": ["event": "end", "dismissal-date": 1e9]], .device),
        (["aps": ["event": "update", "content-state": [:], "input-push-token": 2, "input-push-channel": 5]], .device),
        (["aps": ["event": "start", "alert": ["title": "x"], "attributes-type": "F", "attributes": [:], "content-state": [:], "input-push-channel": "c"]], .device),
        (.object(JSONObject([.init(key: "aps", value: ["event": "end"]), .init(key: "aps", value: 1)])), .broadcast),
        (.object(JSONObject([.init(key: "aps", value: .object(JSONObject([
            .init(key: "event", value: "update"), .init(key: "content-state", value: [:]), .init(key: "event", value: 5),
            .init(key: "content-state", value: 5),
        ])))])), .broadcast),
        (["aps": ["event": "end"], "x": .number(1)], .broadcast),
    ]

    @Test("bodies one step from a failure pass", arguments: nearMissCases)
    func nearMisses(body: JSONValue, target: PushRequest.Target) throws {
        let request = PushRequest(pushType: .liveActivity, topic: target == .device ? "a.push-type.liveactivity" : "", body: body)
        #expect(LiveActivityFieldCheck.passes(body, broadcast: target == .broadcast))
        #expect(try request.validate(for: target) == ReferenceJSON.serialize(body))
    }
}

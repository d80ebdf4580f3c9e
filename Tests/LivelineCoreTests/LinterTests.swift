import Foundation
import Testing
@testable import LivelineCore

@Suite("Lint: the silent failures")
struct LinterTests {
    let now = Date(timeIntervalSince1970: 1_764_424_800)
    var ts: JSONValue { .number(1_764_424_800) }
    let goodState: JSONValue = ["status": "delayed", "gate": "C7", "boardingTime": 786_117_600, "delayMinutes": 25, "isBoarding": false]

    func update(_ state: JSONValue, extra: JSONObject = [:]) -> JSONValue {
        var aps: JSONObject = ["timestamp": ts, "event": "update", "content-state": state]
        for m in extra { aps[m.key] = m.value }
        return ["aps": .object(aps)]
    }

    func lint(_ body: JSONValue, schema: ActivitySchema? = FlightAttributes.schema, previous: Date? = nil) -> [LintFinding] {
        Linter(schema: schema, now: now, previousTimestamp: previous).lint(body: body)
    }

    func expectFinding(_ findings: [LintFinding], _ severity: LintFinding.Severity, _ code: LintFinding.Code, path: String, _ fragments: [String]) {
        let match = findings.first { $0.code == code && $0.path == path }
        guard let match else {
            Issue.record("no \(code) at \(path) in \(findings)")
            return
        }
        #expect(match.severity == severity)
        for fragment in fragments { #expect(match.message.contains(fragment), "\(match.message)") }
    }

    @Test("a correct update has no findings")
    func clean() {
        #expect(lint(update(goodState)) == [])
    }

    @Test("a date field holding Unix seconds or milliseconds")
    func unixDates() {
        var state = goodState.objectValue!
        state["boardingTime"] = 1_764_430_000
        expectFinding(lint(update(.object(state))), .warning, .unixDate, path: "aps.content-state.boardingTime", ["Unix seconds", "2056", "Use 786122800"])
        state["boardingTime"] = 1_764_430_000_000
        expectFinding(lint(update(.object(state))), .warning, .millisecondDate, path: "aps.content-state.boardingTime", ["milliseconds", "Use 786122800"])
    }

    @Test("without a schema, date-looking keys and snake_case keys are still caught")
    func heuristics() {
        let findings = lint(update(["departure_time": 1_764_430_000, "gate": "C7"]), schema: nil)
        expectFinding(findings, .warning, .snakeCaseKey, path: "aps.content-state.departure_time", ["departureTime"])
        expectFinding(findings, .warning, .unixDate, path: "aps.content-state.departure_time", ["Unix seconds"])
    }

    @Test("snake_case keys: a required property missing is an error, an optional one a warning")
    func snakeCase() {
        var state = goodState.objectValue!
        state["boardingTime"] = nil
        state["boarding_time"] = 786_117_600
        expectFinding(lint(update(.object(state))), .error, .snakeCaseKey, path: "aps.content-state.boardingTime", ["\"boarding_time\" is there", "no snake_case"])
        var optional = goodState.objectValue!
        optional["gate"] = nil
        optional["gate_number"] = "C7"
        #expect(lint(update(.object(optional))).contains { $0.code == .unknownKey && $0.path == "aps.content-state.gate_number" })
    }

    @Test("missing required keys, wrong JSON types and unknown keys")
    func conformance() {
        var state = goodState.objectValue!
        state["delayMinutes"] = nil
        expectFinding(lint(update(.object(state))), .error, .missingKey, path: "aps.content-state.delayMinutes", ["\"delayMinutes\" (int)"])
        state["delayMinutes"] = "25"
        expectFinding(lint(update(.object(state))), .error, .wrongType, path: "aps.content-state.delayMinutes", ["expected an integer, got string \"25\""])
        state["delayMinutes"] = 2.5
        expectFinding(lint(update(.object(state))), .error, .wrongType, path: "aps.content-state.delayMinutes", ["integer"])
        state["delayMinutes"] = 25
        state["isBoarding"] = 1
        expectFinding(lint(update(.object(state))), .error, .wrongType, path: "aps.content-state.isBoarding", ["true or false"])
        state["isBoarding"] = false
        state["status"] = "late"
        expectFinding(lint(update(.object(state))), .error, .wrongType, path: "aps.content-state.status", ["\"late\" is not one of"])
        state["status"] = "delayed"
        state["boardingTime"] = "2026-11-29T14:00:00Z"
        expectFinding(lint(update(.object(state))), .error, .wrongType, path: "aps.content-state.boardingTime", ["seconds since 2001-01-01"])
        state["boardingTime"] = 786_117_600
        state["terminal"] = "2"
        expectFinding(lint(update(.object(state))), .warning, .unknownKey, path: "aps.content-state.terminal", ["ignored"])
    }

    @Test("a stale-date already past, a timestamp missing, in milliseconds, or not newer")
    func timing() {
        expectFinding(lint(update(goodState, extra: ["stale-date": 1_764_424_000])), .warning, .staleDatePast, path: "aps.stale-date", ["already past", "800 s ago"])
        let noTimestamp: JSONValue = ["aps": ["event": "update", "content-state": goodState]]
        expectFinding(lint(noTimestamp), .warning, .missingTimestamp, path: "aps.timestamp", ["missing"])
        expectFinding(lint(update(goodState), previous: now), .warning, .timestampNotNewer, path: "aps.timestamp", ["not newer", "ignores it"])
        #expect(!lint(update(goodState), previous: now.addingTimeInterval(-1)).contains { $0.code == .timestampNotNewer })
        expectFinding(lint(update(goodState, extra: ["timestamp": 1_764_424_800_000])), .error, .millisecondDate, path: "aps.timestamp", ["Use 1764424800"])
        expectFinding(lint(update(goodState, extra: ["timestamp": 786_117_600])), .warning, .referenceDateInHeader, path: "aps.timestamp", ["since 2001", "Use 1764424800"])
    }

    @Test("start: attributes are checked against the type named by attributes-type; unknown types are reported")
    func start() {
        let body: JSONValue = ["aps": [
            "timestamp": ts, "event": "start", "content-state": goodState, "attributes-type": "FlightAttributes",
            "attributes": ["flightNumber": "LL 1234", "origin": "LIS", "destination": "ZRH", "airline": "Liveline Air"],
            "alert": ["title": "t", "body": "b"],
        ]]
        expectFinding(lint(body, schema: nil), .error, .missingKey, path: "aps.attributes.departure", ["\"departure\" (date)"])
        var other = body.objectValue!
        var aps = other["aps"]!.objectValue!
        aps["attributes-type"] = "PizzaAttributes"
        other["aps"] = .object(aps)
        expectFinding(lint(.object(other), schema: nil), .warning, .unknownAttributesType, path: "aps.attributes-type", ["PizzaAttributes", "FlightAttributes"])
    }

    @Test("invalid pushes and custom keys inside aps")
    func invalid() {
        expectFinding(lint(["aps": ["event": "start", "timestamp": ts]]), .error, .invalidPayload, path: "aps", ["aps.alert"])
        expectFinding(lint(update(goodState, extra: ["flightId": "LL1234"])), .warning, .customKeyInAps, path: "aps.flightId", ["beside aps"])
        expectFinding(lint(["nope": 1]), .error, .invalidPayload, path: "", ["no \"aps\""])
    }

    /// What lint says of an `aps` date field holding no date between 2001 and 2100 in any unit.
    static func implausible(_ value: String, _ key: String) -> String {
        let window = key == "dismissal-date" ? "before 2100" : "between 2001 and 2100"
        let unit = key == "dismissal-date" ? "aps.dismissal-date is Unix seconds (any past value dismisses at once)" : "aps.\(key) is Unix seconds"
        return "\(value) is no date \(window), read as Unix seconds, Unix milliseconds or seconds since 2001; \(unit)"
    }

    @Test("an aps date that is no date between 2001 and 2100 in any unit is an error, and the only finding for that field", arguments: [
        ("timestamp", 1.2e29, "1.2e+29"),
        ("timestamp", 1.7644248e18, "1764424800000000000"),     // nanoseconds
        ("timestamp", 5e9, "5000000000"),                       // 2128 as Unix seconds, 2159 since 2001
        ("timestamp", 5e12, "5000000000000"),                   // 2128 as Unix milliseconds
        ("timestamp", -1, "-1"),
        ("timestamp", -1e30, "-1e+30"),
        ("stale-date", -1e30, "-1e+30"),
        ("stale-date", 1.2e29, "1.2e+29"),
        ("dismissal-date", 1.2e29, "1.2e+29"),
    ])
    func implausibleHeaderDates(key: String, value: Double, shown: String) {
        let event = key == "dismissal-date" ? "end" : "update"
        let body: JSONValue = ["aps": .object([key == "timestamp" ? "stale-date" : "timestamp": ts, key: .number(value), "event": .string(event), "content-state": goodState])]
        let findings = lint(body, previous: now.addingTimeInterval(-60)).filter { $0.path == "aps.\(key)" }
        #expect(findings == [LintFinding(.error, .implausibleDate, path: "aps.\(key)", Self.implausible(shown, key))])
    }

    @Test("plausible aps dates keep the unit heuristics; a past dismissal-date is no error (it dismisses at once)", arguments: [
        ("timestamp", 4.0e12, LintFinding.Code.millisecondDate),       // 2096 in milliseconds
        ("timestamp", 786_117_600, .referenceDateInHeader),
        ("stale-date", 1_764_424_000, .staleDatePast),
        ("dismissal-date", 0, nil),
        ("dismissal-date", 1_764_424_799, nil),
    ] as [(String, Double, LintFinding.Code?)])
    func plausibleHeaderDates(key: String, value: Double, code: LintFinding.Code?) {
        let event = key == "dismissal-date" ? "end" : "update"
        let body: JSONValue = ["aps": .object([key == "timestamp" ? "stale-date" : "timestamp": ts, key: .number(value), "event": .string(event), "content-state": goodState])]
        #expect(lint(body).filter { $0.path == "aps.\(key)" }.map(\.code) == (code.map { [$0] } ?? []))
    }

    @Test("a content-state date that is no date between 2001 and 2100 in any unit is an error (with and without a schema), but still decodes",
          arguments: [(1.2e29, "1.2e+29"), (1.7644248e18, "1764424800000000000"), (-5, "-5"), (2e11, "200000000000")])
    func implausibleContentStateDates(value: Double, shown: String) {
        var state = goodState.objectValue!
        state["boardingTime"] = .number(value)
        let expected = LintFinding(.error, .implausibleDate, path: "aps.content-state.boardingTime",
            "\(shown) is no date between 2001 and 2100, read as Unix seconds, Unix milliseconds or seconds since 2001; ActivityKit reads dates as seconds since 2001-01-01")
        #expect(lint(update(.object(state))).filter { $0.path == expected.path } == [expected])
        #expect(lint(update(.object(state)), schema: nil).filter { $0.path == expected.path } == [expected])
        #expect(FlightAttributes.schema.decodingError(contentState: .object(state)) == nil)
        #expect(!expected.isDecodingFailure)
    }

    @Test("Unix seconds of a date beyond Int64 saturate instead of trapping, as a body with \"timestamp\": 1e30 re-encodes")
    func unixSecondsSaturate() throws {
        #expect(ReferenceDate.unixSeconds(Date(timeIntervalSince1970: 1e30)) == .max)
        #expect(ReferenceDate.unixSeconds(Date(timeIntervalSince1970: -1e30)) == .min)
        #expect(ReferenceDate.unixSeconds(Date(timeIntervalSince1970: 1_764_424_800.9)) == 1_764_424_800)
        let push = try LiveActivityPush(body: ["aps": ["timestamp": 1e30, "event": "update", "content-state": goodState]])
        #expect(push.body["aps"]?["timestamp"] == .number(Double(Int64.max)))
        #expect(lint(update(goodState, extra: ["timestamp": -1e30]), previous: now).map(\.code) == [.implausibleDate])
    }

    @Test("findings list errors before warnings")
    func ordering() {
        var state = goodState.objectValue!
        state["terminal"] = "2"
        state["delayMinutes"] = nil
        let findings = lint(update(.object(state)))
        #expect(findings.map(\.severity) == [.error, .warning])
    }
}

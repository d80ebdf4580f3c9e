import Foundation
import LivelineCore
import Testing

/// `liveline fixtures`: the contract between the server and the app, checked on the app's side.
@Suite("liveline fixtures writes what the service pushes, and the app's type decodes it")
struct FixturesCommandTests {
    @Test("FlightAttributes: every fixture decodes with the Swift type under ActivityKit's rules; dates are seconds since 2001")
    func flightAttributes() async throws {
        let out = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await CLI.run(["fixtures", "--type", "FlightAttributes", "--out", out.path, "--module", "FlightTracker"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let states = files.filter { $0.hasPrefix("content-state-") }
        // Typical, optionals left out, edges, and each status besides the first.
        #expect(states.count == 3 + FlightAttributes.Status.allCases.count - 1)
        for status in FlightAttributes.Status.allCases.dropFirst() { #expect(states.contains("content-state-status-\(status.rawValue).json")) }
        let decoder = JSONDecoder()  // ActivityKit's: dates as seconds since 2001
        for file in files where file.hasSuffix(".json") {
            let data = try Data(contentsOf: out.appendingPathComponent(file))
            if file.hasPrefix("attributes-") {
                #expect(throws: Never.self, "\(file)") { _ = try decoder.decode(FlightAttributes.self, from: data) }
            } else {
                #expect(throws: Never.self, "\(file)") { _ = try decoder.decode(FlightAttributes.ContentState.self, from: data) }
            }
        }
        let typical = try decoder.decode(FlightAttributes.ContentState.self, from: Data(contentsOf: out.appendingPathComponent("content-state-typical.json")))
        #expect(typical.boardingTime == ISO8601DateFormatter().date(from: "2026-12-01T18:00:00Z"))
        let omitted = try JSONValue.parse(Array(Data(contentsOf: out.appendingPathComponent("content-state-optionals-omitted.json"))))
        #expect(omitted["gate"] == nil)
        let attributes = try JSONValue.parse(Array(Data(contentsOf: out.appendingPathComponent("attributes-typical.json"))))
        #expect(attributes[ActivitySchema.activityIDKey] == nil, "the service's own key is not part of the app's contract")

        let test = try String(contentsOf: out.appendingPathComponent("FlightAttributesFixtureTests.swift"), encoding: .utf8)
        #expect(test.contains("@testable import FlightTracker"))
        #expect(test.components(separatedBy: "func test").count - 1 == files.count - 1)
        #expect(test.contains("decode(FlightAttributes.ContentState.self, ##\"{\"status\":\"delayed\""))
    }

    @Test("a schema file: date ranges become two numbers, optionals and enumerations are covered; no type, a usage error")
    func schemaFile() async throws {
        let out = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let schema = out.appendingPathComponent("delivery.json")
        try Data(#"""
        {"name": "DeliveryAttributes",
         "attributes": {"orderID": "string", "placedAt": "date"},
         "contentState": {"stage": {"enum": ["packed", "onTheWay", "delivered"]}, "window": "dateRange", "courier": "string?", "stops": "[int]"}}
        """#.utf8).write(to: schema)
        let result = try await CLI.run(["fixtures", "--schema", schema.path, "--out", out.appendingPathComponent("fixtures").path])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let dir = out.appendingPathComponent("fixtures")
        let typical = try JSONValue.parse(Array(Data(contentsOf: dir.appendingPathComponent("content-state-typical.json"))))
        #expect(typical["window"]?.arrayValue?.allSatisfy { $0.numberValue != nil } == true)
        #expect(typical["window"]?.arrayValue?.count == 2)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("content-state-stage-delivered.json").path))
        let test = try String(contentsOf: dir.appendingPathComponent("DeliveryAttributesFixtureTests.swift"), encoding: .utf8)
        #expect(test.contains("@testable import Delivery"))

        let usage = try await CLI.run(["fixtures", "--out", dir.path])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("--type NAME or --schema FILE"))
    }

    @Test("--check: current fixtures pass; a renamed field, a new enumeration case and a hand-edited file each fail, naming the file and the field")
    func checkMode() async throws {
        let out = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        func schema(_ contentState: String) throws -> String {
            let file = out.appendingPathComponent("delivery-\(UUID().uuidString.prefix(6)).json")
            try Data("""
            {"name": "DeliveryAttributes", "attributes": {"orderID": "string"}, "contentState": \(contentState)}
            """.utf8).write(to: file)
            return file.path
        }
        let v1 = try schema(#"{"stage": {"enum": ["packed", "onTheWay"]}, "eta": "date"}"#)
        let dir = out.appendingPathComponent("fixtures").path
        let written = try await CLI.run(["fixtures", "--schema", v1, "--out", dir])
        #expect(written.status == 0, "\(written.stderr)")

        let current = try await CLI.run(["fixtures", "--schema", v1, "--check", dir])
        #expect(current.status == 0, "\(current.stdout)\n\(current.stderr)")
        #expect(current.stdout.contains("are what the service pushes now"))

        // The server renames a field and adds a case; the app's committed fixtures still say the old thing.
        let v2 = try schema(#"{"stage": {"enum": ["packed", "onTheWay", "delivered"]}, "arrival": "date"}"#)
        let drifted = try await CLI.run(["fixtures", "--schema", v2, "--check", dir])
        #expect(drifted.status == 1)
        #expect(drifted.stderr.contains("[fixture-drift]") && drifted.stderr.contains("--out \(dir)"))
        #expect(drifted.stdout.contains("changed: content-state-typical.json: eta is gone"))
        #expect(drifted.stdout.contains("arrival is new"))
        #expect(drifted.stdout.contains("missing: content-state-stage-delivered.json"))
        #expect(drifted.stdout.contains("changed: DeliveryAttributesFixtureTests.swift"))
        let nothingWritten = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(!nothingWritten.contains("content-state-stage-delivered.json"), "--check wrote a file")

        // A committed file edited by hand (a date as Unix seconds) is drift too; key order is not.
        let typical = dir + "/content-state-typical.json"
        let object = try #require(try JSONValue.parse(Array(Data(contentsOf: URL(fileURLWithPath: typical)))).objectValue)
        let reordered = JSONObject(Array(object.reversed()))
        try Data(JSONValue.object(reordered).serialized()).write(to: URL(fileURLWithPath: typical))
        #expect(try await CLI.run(["fixtures", "--schema", v1, "--check", dir]).status == 0)
        var edited = object
        edited["eta"] = 1_764_612_000
        try Data(JSONValue.object(edited).serialized()).write(to: URL(fileURLWithPath: typical))
        let hand = try await CLI.run(["fixtures", "--schema", v1, "--check", dir])
        #expect(hand.status == 1)
        #expect(hand.stdout.contains("changed: content-state-typical.json: eta was 1764612000, now"))

        let both = try await CLI.run(["fixtures", "--schema", v1, "--out", dir, "--check", dir])
        #expect(both.status == 64)
        let noDir = try await CLI.run(["fixtures", "--schema", v1, "--check", out.appendingPathComponent("nowhere").path])
        #expect(noDir.status == 1 && noDir.stderr.contains("no such directory"))
    }
}

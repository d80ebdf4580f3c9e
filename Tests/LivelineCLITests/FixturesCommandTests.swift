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
}

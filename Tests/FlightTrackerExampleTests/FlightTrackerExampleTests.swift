import FlightTrackerShared
import Foundation
import LivelineCore
import LivelineProcess
import LivelineTesting
import Testing

/// The flight-tracker example: its shared attributes type against what the service pushes, and
/// its backend script's refusals.
@Suite("Examples/FlightTracker: the shared type decodes what liveline pushes; the backend refuses missing settings")
struct FlightTrackerExampleTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let schemaFile = package.appendingPathComponent("Examples/FlightTracker/FlightActivityAttributes.schema.json")

    @Test("the schema file and the type's schema describe the guide's FlightActivityAttributes, name for name")
    func schema() throws {
        let file = try ActivitySchema(json: JSONValue.parse(Array(Data(contentsOf: Self.schemaFile))))
        #expect(file == FlightActivityAttributes.schema)
        #expect(FlightActivityAttributes.schema.name == FlightActivityAttributes.attributesType)
        // The guide's names (../shared/seeds/000_*.txt), exactly.
        func names(_ type: ActivitySchema.FieldType) -> [String] { if case .object(let fields) = type { fields.map(\.name).sorted() } else { [] } }
        #expect(names(file.contentState) == ["boardingTime", "delayMinutes", "flightStatus", "gateNumber", "isBoarding"])
        #expect(names(file.attributes) == ["airline", "destination", "flightNumber", "origin", "scheduledDeparture"])
        // And the type encodes exactly those keys.
        let departure = Date(timeIntervalSinceReferenceDate: 818_000_000)
        #expect(try JSONValue(encoding: FlightActivityAttributes.example(scheduledDeparture: departure)).objectValue?.keys.sorted() == names(file.attributes))
        #expect(try JSONValue(encoding: FlightActivityAttributes.story(departure: departure)[0].state).objectValue?.keys.sorted() == names(file.contentState))
    }

    @Test("each state of the story, encoded as ActivityKit decodes it: dates in seconds since 2001, lint-clean; the guide's Unix seconds are flagged")
    func story() throws {
        let departure = try #require(ISO8601DateFormatter().date(from: "2026-12-01T18:00:00Z"))
        let story = FlightActivityAttributes.story(departure: departure)
        #expect(story.map(\.name) == ["start", "gate", "boarding"])
        for step in story {
            let json = try JSONValue(encoding: step.state)
            #expect(FlightActivityAttributes.schema.checkContentState(json).isEmpty, "\(step.name): \(FlightActivityAttributes.schema.checkContentState(json))")
            #expect(json["boardingTime"]?.numberValue == step.state.boardingTime.timeIntervalSinceReferenceDate)
            #expect(try json.decode(FlightActivityAttributes.ContentState.self) == step.state)
        }
        let attributes = FlightActivityAttributes.example(scheduledDeparture: departure)
        let json = try JSONValue(encoding: attributes)
        #expect(json["scheduledDeparture"]?.numberValue == departure.timeIntervalSinceReferenceDate)
        #expect(FlightActivityAttributes.schema.checkAttributes(json).isEmpty)
        // The guide's payload example sends boardingTime as Unix seconds: it decodes, as 2054.
        let guide = try JSONValue.parse(Array(#"{"flightStatus": "Boarding Now", "gateNumber": "B7", "boardingTime": 1700003600, "delayMinutes": 15, "isBoarding": true}"#.utf8))
        #expect(try guide.decode(FlightActivityAttributes.ContentState.self).boardingTime > departure.addingTimeInterval(20 * 365 * 86400))
        #expect(FlightActivityAttributes.schema.checkContentState(guide).contains { $0.path.hasSuffix("boardingTime") }, "lint names the Unix-seconds date")
    }

    @Test("the logical id: the backend's and the app's are the same, from the attributes as the device encodes them")
    func logicalID() throws {
        let departure = try #require(ISO8601DateFormatter().date(from: "2026-12-01T18:00:00Z"))
        let attributes = FlightActivityAttributes.example(scheduledDeparture: departure)
        #expect(FlightActivityAttributes.logicalID(flightNumber: attributes.flightNumber, scheduledDeparture: departure) == "flight-GA2025-2026-12-01")
        #expect(FlightActivityAttributes.logicalID(attributes: try JSONValue(encoding: attributes)) == "flight-GA2025-2026-12-01")
        #expect(FlightActivityAttributes.logicalID(attributes: ["name": "some-name"]) == nil)
    }

    @Test("liveline fixtures with the example's schema: every pushed file decodes with FlightActivityAttributes")
    func fixtures() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("flight-tracker-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await ProcessRunner.run(BuiltProduct.path("liveline"), ["fixtures", "--schema", Self.schemaFile.path, "--out", out.path])
        #expect(result.status == 0, "\(result.stdoutText)\n\(result.stderrText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.contains("content-state-typical.json"), "\(files)")
        #expect(files.contains { $0.hasPrefix("attributes-") }, "\(files)")
        for file in files {
            let data = try Data(contentsOf: out.appendingPathComponent(file))
            if file.hasPrefix("attributes-") {
                #expect(throws: Never.self, "\(file)") { _ = try JSONDecoder().decode(FlightActivityAttributes.self, from: data) }
            } else {
                #expect(throws: Never.self, "\(file)") { _ = try JSONDecoder().decode(FlightActivityAttributes.ContentState.self, from: data) }
            }
        }
        let typical = try JSONDecoder().decode(FlightActivityAttributes.ContentState.self, from: Data(contentsOf: out.appendingPathComponent("content-state-typical.json")))
        #expect(typical.boardingTime == ISO8601DateFormatter().date(from: "2026-12-01T18:00:00Z"))
    }

    @Test("flight-tracker-backend: --help prints usage; a missing LIVELINE_URL or LIVELINE_ADMIN_KEY, or a bad --token-wait, exits 64, naming it")
    func backendSettings() async throws {
        let binary = BuiltProduct.path("flight-tracker-backend")
        let help = try await ProcessRunner.run(binary, ["--help"], environment: [:])
        #expect(help.status == 0)
        #expect(help.stdoutText.contains("usage: flight-tracker-backend"))
        let noURL = try await ProcessRunner.run(binary, [], environment: ["LIVELINE_ADMIN_KEY": "k"])
        #expect(noURL.status == 64)
        #expect(noURL.stderrText.contains("LIVELINE_URL is not set"))
        let noKey = try await ProcessRunner.run(binary, [], environment: ["LIVELINE_URL": "http://127.0.0.1:9"])
        #expect(noKey.status == 64)
        #expect(noKey.stderrText.contains("LIVELINE_ADMIN_KEY is not set"))
        let unknown = try await ProcessRunner.run(binary, ["--bogus"], environment: [:])
        #expect(unknown.status == 64)
        let settings = ["LIVELINE_URL": "http://127.0.0.1:9", "LIVELINE_ADMIN_KEY": "k"]
        for wait in ["soon", "-1", "7200"] {
            let bad = try await ProcessRunner.run(binary, ["--token-wait", wait], environment: settings)
            #expect(bad.status == 64, "--token-wait \(wait)")
            #expect(bad.stderrText.contains("--token-wait: not a number of seconds from 0 to 3600: \(wait)"))
        }
    }
}

import Foundation
import LivelineBrowser
import LivelineCore
import LivelinePreview
import LivelineTesting
import Testing

/// `liveline preview --template FILE`: a team's own type drawn from its design template, and
/// `liveline template swiftui`, which writes the same design as the widget's views.
@Suite("liveline preview --template")
struct PreviewTemplateCommandTests {
    static let schema = #"{"name": "RideAttributes", "attributes": {"driver": "string"}, "contentState": {"stage": "string", "minutes": "int"}}"#
    static let template = #"""
        {"attributesType": "RideAttributes", "schema": "ride.schema.json",
         "layout": {"lockScreen": {"activityBackgroundTint": "#102030",
                                   "content": {"type": "VStack", "props": {"style": {"padding": 16}}, "children": [
                                     {"type": "Text", "props": {"style": {"color": "#FFFFFF"}}, "children": [{"bind": "attributes.driver"}, " is coming"]},
                                     {"if": {"equals": [{"bind": "state.stage"}, "arrived"]},
                                      "then": {"type": "Text", "props": {"style": {"color": "#FFFFFF"}}, "children": "Outside now"},
                                      "else": {"type": "Text", "props": {"style": {"color": "#FFFFFF"}}, "children": ["In ", {"bind": "state.minutes"}, " min"]}}]}},
                    "island": {"compact": {"leading": {"type": "Symbol", "props": {"name": "car"}},
                                           "trailing": {"type": "Text", "children": [{"bind": "state.minutes"}, "m"]}},
                               "minimal": {"type": "Symbol", "props": {"name": "car"}}}}}
        """#

    static func files() throws -> URL {
        let dir = try CLI.temporaryDirectory()
        try Data(schema.utf8).write(to: dir.appendingPathComponent("ride.schema.json"))
        try Data(template.utf8).write(to: dir.appendingPathComponent("ride.template.json"))
        try Data(#"{"aps": {"event": "start", "timestamp": 1767250000, "attributes-type": "RideAttributes", "attributes": {"driver": "Ana"}, "content-state": {"stage": "coming", "minutes": 4}}}"#.utf8)
            .write(to: dir.appendingPathComponent("start.json"))
        try Data(#"{"aps": {"event": "update", "timestamp": 1767250100, "content-state": {"stage": "arrived", "minutes": 0}}}"#.utf8)
            .write(to: dir.appendingPathComponent("arrived.json"))
        return dir
    }

    @Test("a start body and an update (its type from the template, its attributes given) are drawn through the template, and the pages name it")
    func drawsOwnType() async throws {
        let dir = try Self.files()
        defer { try? FileManager.default.removeItem(at: dir) }
        let template = dir.appendingPathComponent("ride.template.json").path
        let out = dir.appendingPathComponent("out")
        let result = try await TestBrowsers.withSlot("liveline preview --template") {
            try await CLI.run(["preview", dir.appendingPathComponent("start.json").path, dir.appendingPathComponent("arrived.json").path,
                               "--out", out.path, "--template", template, "--attributes", #"{"driver": "Ana"}"#])
        }
        #expect(result.status == 0, "\(result.stderr)")
        let start = try String(contentsOf: out.appendingPathComponent("start/index.html"), encoding: .utf8)
        let arrived = try String(contentsOf: out.appendingPathComponent("arrived/index.html"), encoding: .utf8)
        #expect(start.contains("Drawn: RideAttributes through its template (\(template))"))
        #expect(start.contains(">Ana is coming<") && start.contains(">In 4 min<") && start.contains(">4m<") && !start.contains("Outside now"))
        #expect(arrived.contains(">Ana is coming<") && arrived.contains(">Outside now<") && !arrived.contains("In 0 min"))
        let png = try PNGImage(png: Array(try Data(contentsOf: out.appendingPathComponent("arrived/lock-screen.png"))))
        #expect(png.width > 300 && png.height > 60)
    }

    @Test("a bad template, or a body of another type, exits 1 naming the problem and writes nothing")
    func refuses() async throws {
        let dir = try Self.files()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.template.json")
        try Data(Self.template.replacingOccurrences(of: "state.minutes", with: "state.eta").utf8).write(to: bad)
        let flight = dir.appendingPathComponent("flight.json")
        try Data(#"{"aps": {"event": "update", "timestamp": 1, "attributes-type": "FlightAttributes", "content-state": {"status": "boarding"}}}"#.utf8).write(to: flight)
        let out = dir.appendingPathComponent("out").path
        let cases: [([String], String)] = [
            (["preview", dir.appendingPathComponent("start.json").path, "--out", out, "--template", bad.path],
             #"'--template' template \#(bad.path): layout.lockScreen.content.children[1].else.children[1].bind: unknown binding "state.eta": RideAttributes's content state has stage, minutes"#),
            (["preview", flight.path, "--out", out, "--template", dir.appendingPathComponent("ride.template.json").path],
             "aps.attributes-type is 'FlightAttributes', not 'RideAttributes'"),
            (["preview", flight.path, "--out", out, "--template", dir.appendingPathComponent("none.json").path], "none.json: cannot be read"),
        ]
        for (args, message) in cases {
            let result = try await CLI.run(args)
            #expect(result.status == 1, "\(args): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out + "/index.html"))
        }
    }

    @Test("liveline template swiftui writes the views; --check passes on the example's checked-in views and fails on a stale file")
    func swiftUI() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = try await CLI.run(["template", "swiftui", "Examples/FlightTracker/FlightActivity.template.json", "--import", "FlightTrackerShared",
                                         "--out", "Examples/FlightTracker/Widget/FlightActivityViews.swift", "--check"], in: root)
        #expect(example.status == 0, "\(example.stderr)")
        let dir = try Self.files()
        defer { try? FileManager.default.removeItem(at: dir) }
        let printed = try await CLI.run(["template", "swiftui", dir.appendingPathComponent("ride.template.json").path])
        #expect(printed.status == 0 && printed.stdout.contains("@MainActor struct RideAttributesDesign {"), "\(printed.stderr)")
        #expect(printed.stdout.contains("if (context.state.stage == \"arrived\") {") && printed.stdout.contains("Text(\"\\(context.attributes.driver) is coming\")"))
        let stale = dir.appendingPathComponent("Views.swift")
        try Data("// old\n".utf8).write(to: stale)
        let check = try await CLI.run(["template", "swiftui", dir.appendingPathComponent("ride.template.json").path, "--out", stale.path, "--check"])
        #expect(check.status == 1 && check.stderr.contains("is not what"), "\(check.stderr)")
    }
}

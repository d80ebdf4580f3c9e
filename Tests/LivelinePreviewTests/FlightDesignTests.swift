import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// The flight tracker's one design: the template file the preview draws is the one the example's
/// widget views are generated from, and both copies derived from it are current.
@Suite struct FlightDesignTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static func file(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
    static let views = "Examples/FlightTracker/Widget/FlightActivityViews.swift"

    @Test("the preview's compiled-in template and schema are the example's files (scripts/generate-flight-design.sh)")
    func compiledInCopies() throws {
        #expect(try FlightDesign.templateJSON + "\n" == Self.file(FlightDesign.path), "regenerate: scripts/generate-flight-design.sh")
        #expect(try FlightDesign.schemaJSON + "\n" == Self.file(FlightDesign.schemaPath), "regenerate: scripts/generate-flight-design.sh")
        // The file read from disk (its schema from beside it) is the same design.
        let loaded = try LayoutTemplate.load(file: Self.root.appendingPathComponent(FlightDesign.path).path)
        let compiled = try FlightDesign.template()
        #expect(loaded.schema == FlightDesign.schema && loaded.layout == compiled.layout)
    }

    @Test("the widget's views are what the generator writes from the template today")
    func widgetViewsGenerated() throws {
        let template = try LayoutTemplate.load(file: Self.root.appendingPathComponent(FlightDesign.path).path)
        let swift = try SwiftUIGenerator.swift(template, imports: ["FlightTrackerShared"], source: FlightDesign.path)
        let checkedIn = try Self.file(Self.views)
        #expect(swift == checkedIn, "\(Self.views) is out of date with \(FlightDesign.path): run scripts/generate-flight-design.sh")
        // The widget uses the generated design for every region, and draws nothing of its own.
        let widget = try Self.file("Examples/FlightTracker/Widget/FlightActivityWidget.swift")
        for region in ["lockScreen", "expandedLeading", "expandedTrailing", "expandedCenter", "expandedBottom", "compactLeading", "compactTrailing", "minimal",
                       "lockScreenBackgroundTint", "keylineTint"] {
            #expect(widget.contains("design.\(region)"), "the widget does not draw design.\(region)")
        }
        #expect(!widget.contains("Text(") && !widget.contains("Image("), "the widget draws views of its own beside the design")
    }

    @Test("the generated views carry the design's per-state texts and colours")
    func generatedPerState() throws {
        let swift = try Self.file(Self.views)
        for text in ["\"Boards in {time}\"", "\"Boarding now\"", "\"Boarding at gate \\(context.state.gateNumber)\"", "\"May be out of date\"",
                     "\"Not departing\"", "\"Flight cancelled\"", "\"xmark.circle.fill\"", "\"#0B1220\"", "\"#38BDF8\"", "if context.isStale {",
                     "case \"waiting\":", "FlightActivityAttributesButton(id: \"check-in\", context: context)"] {
            #expect(swift.contains(text), "\(text) is missing from \(Self.views)")
        }
    }

    @Test("the generator refuses what it cannot write the same way, naming the path")
    func generatorLimits() throws {
        let schema: JSONValue = ["name": "T", "contentState": ["n": "int"]]
        let cases: [(JSONValue, String)] = [
            (["lockScreen": ["type": "ZStack"]], "layout.lockScreen.type: ZStack is not written to SwiftUI by the generator"),
            (["lockScreen": ["type": "Text", "props": ["style": ["opacity": 0.5]], "children": "x"]], "layout.lockScreen.props.style.opacity: style opacity"),
            (["lockScreen": ["type": "Button", "children": ["type": "Text", "children": "x"]]], "layout.lockScreen.id: a Button needs an id"),
            (["lockScreen": ["type": "Timer", "props": ["endAtMs": 5]]], "the generator writes a countdown to a bound date"),
        ]
        for (layout, message) in cases {
            let template = try LayoutTemplate(json: ["attributesType": "T", "schema": schema, "layout": layout], name: "t.json", directory: nil)
            let error = #expect(throws: TemplateError.self) { try SwiftUIGenerator.swift(template, imports: [], source: "t.json") }
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
        }
    }

    /// The example's day (`FlightActivityAttributes.story`), drawn as the preview draws the example's type.
    static func draw(_ state: JSONValue, at: Date, stale: Bool = false) throws -> PreviewDocument {
        let attributes: JSONValue = ["flightNumber": "GA 2025", "origin": "BLR", "destination": "BOM", "airline": "GeekyAir",
                                     "scheduledDeparture": .number(Fixtures.departure.timeIntervalSinceReferenceDate)]
        return try ActivityPreview.document(attributesType: "FlightActivityAttributes", attributes: attributes, contentState: state,
                                            options: PreviewOptions(at: at, timeZone: TimeZone(secondsFromGMT: 0)!, stale: stale))
    }

    static func state(_ status: String, gate: String, boarding: Date, delay: Int = 0, isBoarding: Bool = false) -> JSONValue {
        ["flightStatus": .string(status), "gateNumber": .string(gate), "boardingTime": .number(boarding.timeIntervalSinceReferenceDate),
         "delayMinutes": .number(Double(delay)), "isBoarding": .bool(isBoarding)]
    }

    @Test("FlightActivityAttributes is drawn through the template file, and the page says so")
    func exampleTypeThroughTheFile() throws {
        let boarding = Fixtures.departure.addingTimeInterval(-45 * 60)
        let start = try Self.draw(Self.state("Scheduled", gate: "TBD", boarding: boarding), at: boarding.addingTimeInterval(-3600))
        #expect(start.html.contains("Drawn: FlightActivityAttributes through its template (Examples/FlightTracker/FlightActivity.template.json)"))
        let lock = try #require(start.fragments[.lockScreen])
        #expect(lock.contains(">Scheduled<") && lock.contains(">Boards in 1:00:00<") && lock.contains(">TBD<") && lock.contains(">GA 2025 · GeekyAir<"))
        #expect(start.fragments[.islandExpanded]?.contains(">Check In<") == true)
        // The gate change: the guide's own status text, the delay, the later boarding time.
        let late = boarding.addingTimeInterval(15 * 60)
        let gate = try #require(try Self.draw(Self.state("Gate Changed", gate: "B7", boarding: late, delay: 15), at: boarding).fragments[.lockScreen])
        #expect(gate.contains(">Gate Changed<") && gate.contains(">+15 min<") && gate.contains(">08:30<") && gate.contains(">Boards in 15:00<"))
        // Boarding Now: boarding at the gate, no countdown, no check-in any more.
        let now = try Self.draw(Self.state("Boarding Now", gate: "B7", boarding: late, delay: 15, isBoarding: true), at: late)
        #expect(now.fragments[.lockScreen]?.contains(">Boarding<") == true && now.fragments[.islandExpanded]?.contains(">Boarding at gate B7<") == true)
        #expect(!now.html.contains("Boards in") && !now.html.contains(">Check In<") && now.html.contains(">Boarding Pass<"))
        // After departure: the departure time with the delay, no boarding of any kind.
        let air = try Self.draw(Self.state("Departed", gate: "B7", boarding: late, delay: 15), at: Fixtures.departure.addingTimeInterval(3600))
        #expect(air.fragments[.lockScreen]?.contains(">DEPARTED<") == true && air.fragments[.lockScreen]?.contains(">09:15<") == true)
        #expect(!air.html.contains("Boarding Pass") && !air.html.contains("Boards in"))
    }

    @Test("the demo and the pages name the design each built-in type is drawn through")
    func designNames() throws {
        #expect(ActivityPreview.design(of: "FlightActivityAttributes") == "FlightActivityAttributes through its template (Examples/FlightTracker/FlightActivity.template.json)")
        #expect(ActivityPreview.design(of: "FlightAttributes")?.hasPrefix("FlightAttributes through its template (Examples/FlightTracker/FlightActivity.template.json") == true)
        #expect(ActivityPreview.design(of: "RideAttributes") == nil)
        let page = try Self.draw(Self.state("Scheduled", gate: "TBD", boarding: Fixtures.departure), at: Fixtures.departure.addingTimeInterval(-7200)).html
        #expect(page.contains("Drawn: " + ActivityPreview.design(of: "FlightActivityAttributes")!))
    }
}

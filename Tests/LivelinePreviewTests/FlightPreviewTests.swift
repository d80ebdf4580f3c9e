import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// The flight tracker at each step of the demo's story, the server-driven fixtures in docs/, and the
/// errors for what cannot be drawn.
@Suite struct FlightPreviewTests {
    static let utc = TimeZone(secondsFromGMT: 0)!

    @Test("each step of the flight story renders through its template, from the device's state", arguments: 0..<5)
    func story(index: Int) throws {
        let steps = try Fixtures.story()
        let step = steps[index]
        let attributes = try #require(steps[0].body["aps"]?["attributes"])
        let state = try #require(step.body["aps"]?["content-state"])
        let at = step.at.addingTimeInterval(60)
        let document = try ActivityPreview.document(attributesType: "FlightAttributes", attributes: attributes, contentState: state,
                                                    options: PreviewOptions(at: at, timeZone: Self.utc))
        #expect(document.warnings.isEmpty)
        #expect(document.boxes.count == 4)
        let lock = try #require(document.fragments[.lockScreen])
        let landed = step.state.status == .landed
        for text in [">LIS<", ">ZRH<", ">LL 1234 · Liveline Air<", ">\(step.status)<", ">\(step.state.gate ?? "—")<", ">GATE<",
                     landed ? ">DEPARTED<" : ">BOARDING<"] {
            #expect(lock.contains(text), "\(text) missing in step \(step.title)")
        }
        #expect(lock.contains(">+25 min<") == (step.state.delayMinutes > 0))
        #expect(lock.contains("data-symbol=\"figure.walk\"") == step.state.isBoarding)
        let left = Int(step.state.boardingTime.timeIntervalSince(at).rounded(.up))
        if !step.state.isBoarding && !landed {
            // With hours once an hour or more is left, as iOS draws the template's timer.
            let time = left >= 3600 ? String(format: "%d:%02d:%02d", left / 3600, left / 60 % 60, left % 60) : String(format: "%d:%02d", left / 60, left % 60)
            let countdown = left > 0 ? "Boards in \(time)" : "Boarding now"
            #expect(lock.contains(">\(countdown)<"), "\(countdown) missing in step \(step.title)")
        }
        #expect(lock.contains("Boards in") == (!step.state.isBoarding && !landed))
        // The template's tint and keyline.
        #expect(document.box(.lockScreen)?.background == "#0B1220")
        #expect(document.fragments[.islandMinimal]?.contains("box-shadow:0 0 0 1px rgba(56,189,248,0.6)") == true)
        #expect(document.box(.islandCompact)?.content.count == 2 && document.box(.islandExpanded)?.content.count == 4)
    }

    @Test("the start push's whole APNs body renders, and so does its uiJsonData form")
    func apnsBodies() throws {
        let steps = try Fixtures.story()
        let typed = try ActivityPreview.document(apnsBody: Array(steps[0].body.serialized()), options: PreviewOptions(at: steps[0].at))
        #expect(typed.fragments[.lockScreen]?.contains(">Scheduled<") == true)
        // The same state sent as server-driven UI: drawn as the device decodes it.
        let content = try FlightTemplate(timeZone: Self.utc).contentState(attributes: Fixtures.attributes, state: steps[2].state)
        let body: JSONValue = ["aps": ["event": "update", "timestamp": 1, "content-state": ["uiJsonData": .string(content.uiJsonData)]]]
        let voltra = try ActivityPreview.document(apnsBody: Array(body.serialized()), options: PreviewOptions(at: steps[2].at))
        #expect(voltra.warnings.isEmpty)
        #expect(voltra.fragments[.lockScreen]?.contains(">Delayed 25 min<") == true)
        #expect(voltra.box(.lockScreen)?.background == "#0B1220")
    }

    @Test("docs/ui-boarding.json renders without warnings")
    func boardingFixture() throws {
        let bytes = try [UInt8](Data(contentsOf: Fixtures.docs.appendingPathComponent("ui-boarding.json")))
        let layout = try LayoutForm.parse(bytes)
        let at = Date(timeIntervalSince1970: 1_767_255_900)  // 08:25 UTC, five minutes before the countdown ends
        for dark in [false, true] {
            let document = ActivityPreview.document(layout: layout, warnings: VoltraDecoder.lint(layout).map(\.description),
                                                    options: PreviewOptions(at: at, dark: dark))
            #expect(document.warnings.isEmpty)
            let lock = try #require(document.fragments[.lockScreen])
            #expect(lock.contains(">LIS<") && lock.contains(">ZRH<") && lock.contains(">Boards in 5:00<"))
            #expect(lock.contains("data-symbol=\"airplane\" title=\"airplane\" style=\"width:29.47px;height:26.88px;color:#38BDF8;justify-content:flex-start;flex-shrink:0\"><svg"))
            // The JSON form joins a Text's array of strings.
            #expect(document.fragments[.islandCompact]?.contains(">Gate B12</span>") == true)
            #expect(document.box(.lockScreen)?.background == "#0B1220")
        }
    }

    @Test("the wire example in docs/ui.md renders what the device would, with its warnings on the page")
    func docsWireExample() throws {
        let markdown = try String(contentsOf: Fixtures.docs.appendingPathComponent("ui.md"), encoding: .utf8)
        let line = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("$ echo '{\"v\":1") })
        let json = try #require(line.split(separator: "'").dropFirst().first)
        let decoded = try VoltraDecoder.lint(json: Array(json.utf8))
        let document = ActivityPreview.document(layout: decoded.layout, warnings: decoded.issues.map(\.description),
                                                options: PreviewOptions(at: Date(timeIntervalSince1970: 0)))
        #expect(document.warnings.count == 2)
        #expect(document.fragments[.lockScreen]?.contains(">hi</span>") == true)
        #expect(document.html.contains("<section class=\"ll-warnings\">") && document.html.contains("unknown component id 42"))
        // The JSON form it decodes to, as printed in the docs, draws the same text.
        let form = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("{ \"lockScreen\": {") })
        let formJSON = try #require(form.components(separatedBy: "   (printed").first)
        let same = ActivityPreview.document(layout: try LayoutForm.parse(Array(formJSON.utf8)), warnings: [],
                                            options: PreviewOptions(at: Date(timeIntervalSince1970: 0)))
        #expect(same.fragments[.lockScreen]?.contains(">hi</span>") == true)
    }

    @Test("the DSL example in docs/ui.md renders")
    func docsDSLExample() throws {
        let boarding = Date(timeIntervalSince1970: 1_767_256_200)
        let layout = UILayout {
            LockScreen(backgroundTint: "#0B1220") {
                VStack(alignment: .leading, spacing: 6) {
                    HStack { Text("LIS").font(size: 28, weight: .heavy); Spacer(); Symbol("airplane", tint: "#38BDF8"); Spacer(); Text("ZRH").font(size: 28, weight: .heavy) }
                    Timer(end: boarding, running: "Boards in {time}", completed: "Boarding").fontSize(13).foregroundColor("#94A3B8")
                }
                .padding(16)
            }
            CompactTrailing { Text("Gate B12") }
            Minimal(keylineTint: .cyan) { Symbol("airplane") }
        }
        let document = ActivityPreview.document(layout: layout, warnings: [], options: PreviewOptions(at: boarding.addingTimeInterval(-90)))
        #expect(document.fragments[.lockScreen]?.contains(">Boards in 1:30<") == true)
        #expect(document.fragments[.islandCompact]?.contains(">Gate B12<") == true)
        #expect(document.fragments[.islandMinimal]?.contains("rgba(60,211,254,0.6)") == true)  // cyan, dark variant
    }

    @Test("what cannot be drawn is refused with an error naming the problem", arguments: [
        (#"{"aps":{"content-state":{"x":1},"attributes-type":"RideAttributes","attributes":{}}}"#,
         "no preview template for attributes type 'RideAttributes' and its content state has no uiJsonData; supported: FlightActivityAttributes, FlightAttributes"),
        (#"{"aps":{"content-state":{"status":"boarding"}}}"#, "names no aps.attributes-type and its content state has no uiJsonData"),
        (#"{"aps":{"content-state":{"uiJsonData":"aGVsbG8="}}}"#, "content-state.uiJsonData cannot be decoded: uiJsonData is not a brotli stream"),
        (#"{"aps":{"content-state":{"uiJsonData":5}}}"#, "content-state.uiJsonData is 5, not a string"),
        (#"{"aps":{"alert":"hi"}}"#, "the APNs body has no aps.content-state object"),
        (#"{"aps":{"content-state":{},"attributes-type":7}}"#, "aps.attributes-type is 7, not a string"),
        (#"{"apns":{}}"#, "the APNs body has no \"aps\" object"),
        (#"{"aps":"#, "the APNs body is not valid JSON"),
        (#"{"aps":{"content-state":{"status":"boarding","boardingTime":788000000,"delayMinutes":0,"isBoarding":true},"attributes-type":"FlightAttributes"}}"#,
         "FlightAttributes needs its attributes to be drawn"),
        (#"{"aps":{"content-state":{"status":"late","boardingTime":788000000,"delayMinutes":0,"isBoarding":false},"attributes-type":"FlightAttributes","attributes":{"flightNumber":"LL 1","origin":"LIS","destination":"ZRH","airline":"A","departure":0}}}"#,
         "the FlightAttributes payload would not decode on the device, so it cannot be drawn: error: aps.content-state.status: \"late\" is not one of"),
        (#"{"aps":{"content-state":{"status":"boarding"},"attributes-type":"FlightAttributes"}}"#,
         "the FlightAttributes payload would not decode on the device, so it cannot be drawn: error: aps.content-state.boardingTime: required key"),
    ])
    func errors(body: String, message: String) throws {
        let error = #expect(throws: PreviewError.self) {
            try ActivityPreview.document(apnsBody: Array(body.utf8), options: PreviewOptions(at: Date(timeIntervalSince1970: 0)))
        }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "no error")")
    }

    @Test("a boarding time sent as Unix seconds draws as the device shows it (2057), with the lint warning on the page")
    func unixSecondsWarn() throws {
        let steps = try Fixtures.story()
        let attributes = try #require(steps[0].body["aps"]?["attributes"])
        var state = try #require(steps[0].body["aps"]?["content-state"]?.objectValue)
        state["boardingTime"] = .number(Fixtures.departure.timeIntervalSince1970 - 2400)
        let document = try ActivityPreview.document(attributesType: "FlightAttributes", attributes: attributes, contentState: .object(state),
                                                    options: PreviewOptions(at: steps[0].at, timeZone: Self.utc))
        let warning = try #require(document.warnings.first)
        #expect(warning.contains("aps.content-state.boardingTime") && warning.contains("unix-date"), "\(warning)")
        #expect(document.html.contains(CSS.escape(warning)))
        // Read as seconds since 2001 the number lands in 2057, so the countdown runs for decades.
        let hours = Int(Date(timeIntervalSinceReferenceDate: Fixtures.departure.timeIntervalSince1970 - 2400).timeIntervalSince(steps[0].at)) / 3600
        #expect(hours > 200_000 && document.fragments[.lockScreen]?.contains("Boards in \(hours):") == true)
    }

    @Test("a layout built in code past the depth limit is drawn empty, with the limit as a warning")
    func pastTheLimits() {
        var element = UIElement(.text, children: .text("deep"))
        for _ in 0..<100 { element = UIElement(.vStack, children: .single(element)) }
        let document = ActivityPreview.document(layout: UILayout(regions: [.lockScreen: .element(element)]), warnings: ["w"],
                                                options: PreviewOptions(at: Date(timeIntervalSince1970: 0)))
        #expect(document.warnings.count == 2 && document.warnings[0] == "w")
        #expect(document.warnings[1].hasPrefix("not drawn: layout nests more than \(LayoutLimits.maxDepth) levels deep"))
        #expect(!document.html.contains(">deep<") && document.boxes.count == 4)
    }

    @Test("a doubling payload within the limit expands in every preview; a Text with an array draws empty")
    func movedFromLayoutLimits() throws {
        var entries = [#"{"t":0,"c":"x"}"#]
        for i in 1..<13 { entries.append(#"{"t":12,"c":[{"$r":\#(i - 1)},{"$r":\#(i - 1)}]}"#) }
        let json = #"{"v":1,"ls":{"$r":12},"e":[\#(entries.joined(separator: ","))]}"#
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        #expect(!UIPreview(now: Date(timeIntervalSince1970: 0)).text(decoded.layout, surface: .lockScreen).isEmpty)
        let lock = try #require(ActivityPreview.document(layout: decoded.layout, warnings: [],
                                                         options: PreviewOptions(at: Date(timeIntervalSince1970: 0), presentations: [.lockScreen])).fragments[.lockScreen])
        #expect(Fixtures.count(">x</span>", in: lock) == 4096)
        let array = try VoltraDecoder.decode(json: Array(#"{"v":1,"ls":{"t":0,"c":["Gate ","B12"]}}"#.utf8))
        #expect(UIPreview(now: Date(timeIntervalSince1970: 0)).lines(.lockScreen, of: array.layout).allSatisfy { $0.isEmpty })
    }
}

import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

@Suite struct UIPreviewTests {
    static let utc = TimeZone(secondsFromGMT: 0)!
    static let departure = Fixtures.departure
    static let states = Fixtures.states
    static let expected: [(status: String, gate: String, clock: String)] = [
        ("Scheduled", "—", "08:30"), ("Delayed 45 min", "B12", "09:15"), ("Boarding", "B12", "08:30"),
    ]

    /// The flight tracker's state `index`, sent and decoded as the device would.
    static func decodedFlight(_ index: Int) throws -> DecodedUI {
        let content = try FlightTemplate(timeZone: utc).contentState(attributes: Fixtures.attributes, state: states[index],
                                                                     mode: .compatible)
        return try VoltraDecoder.decode(base64: content.uiJsonData)
    }

    static func element(_ form: String) throws -> UIElement {
        try #require(LayoutForm.parse(Array(#"{"lockScreen":\#(form)}"#.utf8))[.lockScreen])
    }

    @Test("text previews of the flight states show route, gate, status and the countdown", arguments: 0..<3)
    func flightText(index: Int) throws {
        let decoded = try Self.decodedFlight(index)
        let state = Self.states[index]
        // Five minutes before boarding.
        let preview = UIPreview(now: state.boardingTime.addingTimeInterval(-300), timeZone: Self.utc)
        let lock = preview.text(decoded, surface: .lockScreen)
        let expected = Self.expected[index]
        for word in ["LIS", "ZRH", "GATE", expected.gate, expected.clock, "[sf:airplane]"] {
            #expect(lock.contains(word), "\(word) missing in\n\(lock)")
        }
        #expect(lock.replacingOccurrences(of: "\n│", with: " ").contains(expected.status.split(separator: " ")[0]))
        // In 44 columns a row's texts are cut with "…" rather than broken over lines.
        #expect(lock.contains("Boards") == !state.isBoarding, "\(lock)")
        #expect(!lock.contains("Liveline\n") && !lock.contains("│                 Air"), "\(lock)")
        #expect(lock.contains("[sf:figure.walk]") == state.isBoarding)
        #expect(lock.contains("Lock Screen · \(Self.clock(state.boardingTime.addingTimeInterval(-300)))"))
        #expect(lock.contains("tint #0B1220"))
        #expect(!lock.contains("Dynamic Island"))

        let island = preview.text(decoded, surface: .island)
        #expect(!island.contains("Lock Screen"))
        let expanded = try #require(island.components(separatedBy: "Dynamic Island · expanded").last)
        for word in ["LIS", "ZRH", expected.status, "GATE \(expected.gate)", expected.clock] {
            #expect(expanded.contains(word), "\(word) missing in\n\(expanded)")
        }
        #expect(expanded.contains(state.isBoarding ? "Boarding at gate B12" : "Boards in 5:00"))
        let compact = try #require(island.components(separatedBy: "Dynamic Island · minimal").first)
        #expect(compact.contains("[sf:airplane]"))
        // Compact trailing shows the time left itself (a "Boards in" there would be cut to "Boards…").
        #expect(compact.contains(state.isBoarding ? "B12" : "5:00") && !compact.contains("Boards"), "\(compact)")
        #expect(island.contains("minimal · keyline #38BDF8"))
    }

    static func clock(_ date: Date) -> String {
        let s = Int(date.timeIntervalSince1970) % 86400
        return String(format: "%02d:%02d", s / 3600, s / 60 % 60)
    }

    @Test("every line fits the width, at any width, and the output is the same every time",
          arguments: [24, 30, 44, 80])
    func fitsWidth(width: Int) throws {
        for index in 0..<3 {
            let decoded = try Self.decodedFlight(index)
            let preview = UIPreview(width: width, now: Self.departure, timeZone: Self.utc)
            let text = preview.text(decoded)
            for line in text.split(separator: "\n") {
                #expect(TextBlock.columns(line) <= width, "\(line)")
            }
            #expect(text == preview.text(try Self.decodedFlight(index)))
        #expect(text == UIPreview.text(decoded.layout, width: width, now: Self.departure))
            // The frames close: as many bottom corners as top corners.
            #expect(text.filter { $0 == "╭" }.count == text.filter { $0 == "╰" }.count)
        }
    }

    @Test("the time zone moves the Lock Screen clock, nothing else")
    func timeZone() throws {
        let decoded = try Self.decodedFlight(1)
        let now = Self.departure.addingTimeInterval(-3600)  // 08:00 UTC
        let utc = UIPreview(now: now, timeZone: Self.utc).text(decoded)
        let tokyo = UIPreview(now: now, timeZone: TimeZone(secondsFromGMT: 9 * 3600)!).text(decoded)
        #expect(utc.contains("Lock Screen · 08:00"))
        #expect(tokyo.contains("Lock Screen · 17:00"))
        #expect(utc.replacingOccurrences(of: "08:00", with: "17:00") == tokyo)
    }

    @Test("timers resolve against now", arguments: [
        // endAtMs is 2026-01-01T09:00:00Z; now is 08:55:00.5.
        (#""endAtMs":1767258000000"#, "5:00"),
        (#""endAtMs":1767258000000,"textTemplates":{"running":"Boards in {time}","completed":"Gone"}"#, "Boards in 5:00"),
        (#""endAtMs":1767257000000,"textTemplates":{"running":"Boards in {time}","completed":"Gone"}"#, "Gone"),
        (#""endAtMs":1767257000000"#, "0:00"),
        (#""endAtMs":1767265200000"#, "125:00"),
        (#""endAtMs":1767265200000,"showHours":true"#, "2:05:00"),
        (#""endAtMs":1767258000000,"textStyle":"relative""#, "5 min, 0 sec"),
        (#""startAtMs":1767257000000,"direction":"up""#, "11:40"),
        // A finished timer's completed template shows the device's resting "0:00" whichever way it counted.
        (#""startAtMs":1767257000000,"durationMs":60000,"direction":"up","textTemplates":{"completed":"done in {time}"}"#, "done in 0:00"),
        (#""durationMs":90000"#, "1:30"),
        // A finished timer with hours rests at 0:00:00 in its completed template (0:00 before).
        (#""endAtMs":1767257000000,"showHours":true,"textTemplates":{"completed":"Done {time}"}"#, "Done 0:00:00"),
        (#""endAtMs":1767257000000,"textStyle":"relative","textTemplates":{"completed":"Done {time}"}"#, "Done 0s"),
        // A relative date counts on past its date, and names days beyond 24 hours.
        (#""endAtMs":1767257000000,"textStyle":"relative""#, "11 min, 40 sec"),
        (#""endAtMs":1767351300500,"textStyle":"relative""#, "1 day, 2 hr"),
        (#""endAtMs":1768553700500,"textStyle":"relative""#, "2 wk, 1 day"),
    ])
    func timers(props: String, shown: String) throws {
        let timer = try Self.element(#"{"type":"Timer","props":{\#(props)}}"#)
        let preview = UIPreview(now: Date(timeIntervalSince1970: 1_767_257_700.5), timeZone: Self.utc)
        #expect(preview.lines(timer, width: 40) == [shown])
    }

    @Test("progress views and gauges fill by value or by time", arguments: [
        (#"{"type":"LinearProgressView","props":{"value":25}}"#, "█████░░░░░░░░░░░░░░░"),
        (#"{"type":"LinearProgressView","props":{"value":3,"maximumValue":4}}"#, "███████████████░░░░░"),
        (#"{"type":"LinearProgressView","props":{"startAtMs":1767257000000,"endAtMs":1767258000000}}"#, "██████████████░░░░░░"),
        (#"{"type":"LinearProgressView","props":{"startAtMs":1767257000000,"endAtMs":1767258000000,"countDown":true}}"#, "██████░░░░░░░░░░░░░░"),
        (#"{"type":"Gauge","props":{"value":0.5}}"#, "██████████░░░░░░░░░░"),
        (#"{"type":"Gauge","props":{"value":150,"minimumValue":100,"maximumValue":200,"gaugeStyle":"accessoryCircular"}}"#, "◑ 50%"),
        (#"{"type":"CircularProgressView","props":{"value":100}}"#, "● 100%"),
        (#"{"type":"CircularProgressView","props":{"value":-5}}"#, "○ 0%"),
    ])
    func progress(form: String, shown: String) throws {
        let element = try Self.element(form)
        let preview = UIPreview(now: Date(timeIntervalSince1970: 1_767_257_700), timeZone: Self.utc)
        #expect(preview.lines(element, width: 20) == [shown])
    }

    @Test("stacks lay out side by side and top to bottom; spacers push apart; text wraps")
    func stacks() throws {
        let row = try Self.element(#"""
            {"type":"HStack","children":[{"type":"Symbol","props":{"name":"car.fill"}},{"type":"Text","children":"Arriving"},
              {"type":"Spacer"},{"type":"Text","children":"2 min"}]}
            """#)
        let preview = UIPreview(now: Self.departure)
        #expect(preview.lines(row, width: 30) == ["[sf:car.fill] Arriving   2 min"])
        // Short of room, a text in a row is cut on one line, never broken inside a name.
        let named = try Self.element(#"""
            {"type":"HStack","children":[{"type":"Symbol","props":{"name":"airplane"}},{"type":"Text","children":"LL 1234 · Liveline Air"},
              {"type":"Spacer"},{"type":"Text","children":"Scheduled"}]}
            """#)
        #expect(preview.lines(named, width: 36) == ["[sf:airplane] LL 1234 · …  Scheduled"])
        let label = try Self.element(#"{"type":"Label","props":{"title":"Boarding","systemImage":"figure.walk"}}"#)
        #expect(preview.lines(label, width: 12) == ["[sf:figure.…", "Boarding"])
        // A crowded row keeps a few columns for each text; the symbol gives way.
        let crowded = try Self.element(#"""
            {"type":"HStack","children":[{"type":"Text","children":"LIS"},{"type":"Spacer"},{"type":"Symbol","props":{"name":"airplane"}},
              {"type":"Spacer"},{"type":"Text","children":"ZRH"}]}
            """#)
        #expect(preview.lines(crowded, width: 16) == ["LIS  [sf:a…  ZRH"])
        #expect(preview.lines(crowded, width: 30) == ["LIS      [sf:airplane]     ZRH"])
        let column = try Self.element(#"""
            {"type":"VStack","props":{"alignment":"trailing"},"children":[{"type":"Text","children":"ZRH"},{"type":"Text","children":"Zurich Airport"}]}
            """#)
        #expect(preview.lines(column, width: 30) == ["           ZRH", "Zurich Airport"])
        let wrapped = try Self.element(#"{"type":"Text","props":{"numberOfLines":2},"children":"one two three four five six"}"#)
        #expect(preview.lines(wrapped, width: 9) == ["one two", "three…"])
        let boxed = try Self.element(#"""
            {"type":"GroupBox","props":{"label":{"type":"Text","children":"Gate"}},"children":[{"type":"Text","children":"B12"},{"type":"Divider"},
              {"type":"Toggle","props":{"title":"Notify","defaultValue":true}}]}
            """#)
        #expect(preview.lines(boxed, width: 16) == ["╭─ Gate ───────╮", "│ B12          │", "│ ──────────── │", "│ [x] Notify   │", "╰──────────────╯"])
        let padded = try Self.element(#"{"type":"Text","props":{"style":{"padding":16,"borderWidth":1}},"children":"Hi"}"#)
        #expect(preview.lines(padded, width: 20) == ["┌──────┐", "│      │", "│  Hi  │", "│      │", "└──────┘"])
    }

    @Test("each component draws as a text mock", arguments: [
        (#"{"type":"Button","id":"b","children":[{"type":"Text","children":"Check in"}]}"#, ["[ Check in ]"]),
        (#"{"type":"Button","id":"b"}"#, ["[ Button ]"]),
        (#"{"type":"Label","props":{"title":"Walk to gate","systemImage":"figure.walk"}}"#, ["[sf:figure.walk]", "Walk to gate"]),
        (#"{"type":"Image","props":{"source":{"assetName":"logo"}}}"#, ["[img:logo]"]),
        (#"{"type":"Image","props":{"source":{"base64":"AAAA"}}}"#, ["[img]"]),
        (#"{"type":"Image","props":{"fallback":{"type":"Text","children":"no image"}}}"#, ["no image"]),
        (#"{"type":"Toggle","id":"t","props":{"title":"Alerts","defaultValue":false}}"#, ["[ ] Alerts"]),
        (#"{"type":"ZStack","children":[{"type":"Text","children":"..........."},{"type":"Text","children":"ZZ"}]}"#, ["....ZZ....."]),
        (#"{"type":"Chart","children":[{"type":"BarMark","props":{"data":[{"x":"a","y":1},{"x":"b","y":4},{"x":"c","y":8}]}}]}"#, ["[chart] ▁▄█"]),
        (#"{"type":"Chart","children":[{"type":"SectorMark","props":{"data":[{"value":3,"category":"won"},{"value":1,"category":"lost"}]}}]}"#,
         ["[chart] won 75%,", "lost 25%"]),
        (#"{"type":"LinearProgressView","props":{"value":50,"label":{"type":"Text","children":"Upload"},"currentValueLabel":{"type":"Text","children":"5 of 10"}}}"#,
         ["Upload", "██████████░░░░░░░░░░", "5 of 10"]),
        (#"{"type":"Gauge","props":{"value":0.25,"minimumValueLabel":{"type":"Text","children":"E"},"maximumValueLabel":{"type":"Text","children":"F"}}}"#,
         ["E ████░░░░░░░░░░░░ F"]),
        (#"{"type":"CircularProgressView","props":{"value":70,"currentValueLabel":{"type":"Text","children":"7/10"}}}"#, ["◕ 7/10"]),
        (#"{"type":"HStack","children":[{"type":"Text","children":"a"},{"type":"Divider"},{"type":"VStack","children":[{"type":"Text","children":"b"},{"type":"Text","children":"c"}]}]}"#,
         ["a │ b", "  │ c"]),
        (##"{"type":"LinearGradient","props":{"colors":["#000","#fff"]},"children":[{"type":"Text","children":"on gradient"}]}"##, ["on gradient"]),
        (#"{"type":"Link","props":{"destination":"/x"},"children":[{"type":"Text","children":"Open"}]}"#, ["Open"]),
        (#"{"type":"Text","props":{"style":{"opacity":0}},"children":"hidden"}"#, []),
        (#"{"type":"Text","props":{"style":{"paddingHorizontal":8,"marginLeft":16}},"children":"in"}"#, ["   in"]),
    ])
    func components(form: String, shown: [String]) throws {
        let element = try Self.element(form)
        #expect(UIPreview(now: Self.departure).lines(element, width: 20) == shown)
    }

    @Test("wide characters count two columns; cutting and wrapping respect that")
    func columns() {
        #expect(TextBlock.columns("abc") == 3)
        #expect(TextBlock.columns("東京") == 4)
        #expect(TextBlock.columns("✈️") == 2)
        #expect(TextBlock.columns("é") == 1)
        #expect(TextBlock.truncate("東京国際空港", to: 7) == "東京国…")
        #expect(TextBlock.wrap("a verylongword b", to: 5) == ["a", "very…", "b"])
        #expect(TextBlock.wrap("[sf:figure.walk] Boarding", to: 12) == ["[sf:figure.…", "Boarding"])
        #expect(TextBlock(["ab", "東"]).framed().lines == ["┌────┐", "│ ab │", "│ 東 │", "└────┘"])
    }

    @Test("an unknown component renders nothing and does not break the rest")
    func unknownComponent() throws {
        let json = #"{"v":1,"ls":{"t":11,"c":[{"t":99,"c":"boom"},{"t":0,"c":"kept"}]},"isl_min":{"t":42,"p":{"n":"x"}},"isl_cmp_l":{"t":77}}"#
        let decoded = try VoltraDecoder.decode(json: Array(json.utf8))
        #expect(decoded.issues.filter { $0.kind == .unknownComponent }.count == 3)
        let preview = UIPreview(now: Self.departure)
        let text = preview.text(decoded)
        #expect(text.contains("kept") && !text.contains("boom"))
        #expect(preview.lines(.islandMinimal, of: decoded.layout).isEmpty)
        let minimal = try #require(text.components(separatedBy: "Dynamic Island · minimal").last?.components(separatedBy: "\n\n").first)
        #expect(minimal.split(separator: "\n").dropFirst().allSatisfy { $0.allSatisfy { " ╭╮╰╯│─".contains($0) } }, "\(minimal)")
        // A payload where nothing is known: every surface drawn, all empty.
        let nothing = try VoltraDecoder.decode(json: Array(#"{"v":1,"ls":{"t":500,"c":"boom"}}"#.utf8))
        let empty = preview.text(nothing, surface: .lockScreen)
        #expect(empty.split(separator: "\n").dropFirst().dropLast().allSatisfy { $0 == "│" + String(repeating: " ", count: 42) + "│" }, "\(empty)")
        let page = ActivityPreview.document(layout: nothing.layout, warnings: [], options: PreviewOptions(at: Self.departure)).html
        #expect(!page.contains("boom"))
    }

    @Test("hostile numbers neither crash the preview nor blow it up")
    func hostileNumbers() throws {
        let layout = try LayoutForm.parse(Array(#"""
            {"lockScreen":{"type":"VStack","props":{"spacing":1e300,"style":{"padding":1e300,"margin":-1e300,"width":1e300}},"children":[
              {"type":"Text","props":{"numberOfLines":1e300,"style":{"paddingVertical":1e300}},"children":"text"},
              {"type":"HStack","props":{"spacing":1e300},"children":[{"type":"Spacer","props":{"minLength":1e300}},{"type":"Text","children":"x"}]},
              {"type":"Timer","props":{"endAtMs":1e300,"showHours":true}},
              {"type":"Timer","props":{"startAtMs":-1e300,"direction":"up","textStyle":"relative"}},
              {"type":"Timer","props":{"durationMs":-1e300}},
              {"type":"LinearProgressView","props":{"value":1e308,"maximumValue":1e-308}},
              {"type":"Gauge","props":{"value":-1e308,"minimumValue":1e308,"maximumValue":-1e308,"gaugeStyle":"accessoryCircular"}},
              {"type":"Chart","children":[{"type":"LineMark","props":{"data":[{"x":1,"y":1e308},{"x":2,"y":-1e308},{"x":3,"y":0}]}},
                                          {"type":"SectorMark","props":{"data":[{"value":1e308,"category":"a"},{"value":1e308,"category":"b"}]}}]}]}}
            """#.utf8))
        let preview = UIPreview(now: Self.departure)
        let text = preview.text(layout, surface: .lockScreen)
        let lines = text.split(separator: "\n")
        #expect(lines.count < 60, "\(text)")
        #expect(lines.allSatisfy { TextBlock.columns($0) <= 44 })
        #expect(text.hasPrefix("╭─ Lock Screen"))
        let html = ActivityPreview.document(layout: layout, warnings: [], options: PreviewOptions(at: Self.departure)).html
        #expect(html.count < 40_000)
    }

    @Test("a tree as deep as the limit (chained shared elements) is drawn; 900 levels are refused when decoded")
    func deepTree() throws {
        func payload(_ levels: Int) -> [UInt8] {
            let entries = (0..<levels).map { $0 < levels - 1 ? #"{"t":11,"c":{"$r":\#($0 + 1)}}"# : #"{"t":0,"c":"deep"}"# }
            return Array(#"{"v":1,"ls":{"$r":0},"e":[\#(entries.joined(separator: ","))]}"#.utf8)
        }
        let decoded = try VoltraDecoder.decode(json: payload(LayoutLimits.maxDepth))
        let preview = UIPreview(now: Self.departure)
        #expect(preview.lines(.lockScreen, of: decoded.layout) == ["deep"])
        #expect(ActivityPreview.document(layout: decoded.layout, warnings: [], options: PreviewOptions(at: Self.departure)).html.contains(">deep<"))
        let error = #expect(throws: UIError.self) { try VoltraDecoder.decode(json: payload(900)) }
        #expect(error?.message.contains("more than \(LayoutLimits.maxDepth) levels deep (at e[64])") == true)
    }

    @Test("the supplemental small family is drawn with all, not with lock or island")
    func smallFamily() throws {
        let layout = try LayoutForm.parse(Array(#"{"supplementalActivityFamilies":{"small":{"type":"Text","children":"Gate B12"}}}"#.utf8))
        let preview = UIPreview(now: Self.departure)
        #expect(preview.text(layout).contains("╭─ Small family"))
        #expect(preview.text(layout).contains("│ Gate B12"))
        #expect(!preview.text(layout, surface: .lockScreen).contains("Gate B12"))
        #expect(!preview.text(layout, surface: .island).contains("Gate B12"))
    }
}

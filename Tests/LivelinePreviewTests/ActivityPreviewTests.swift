import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// The HTML previews: boxes, sizes, text, symbols, colours, timers, stale state, escaping.
@Suite struct ActivityPreviewTests {
    static let at = Date(timeIntervalSince1970: 1_767_257_700)  // 2026-01-01 08:55 UTC

    static func document(_ form: String, dark: Bool = false, at: Date = at, presentations: [Presentation] = Presentation.allCases) throws
        -> PreviewDocument
    {
        let layout = try LayoutForm.parse(Array(form.utf8))
        return ActivityPreview.document(layout: layout, warnings: VoltraDecoder.lint(layout).map(\.description),
                                        options: PreviewOptions(at: at, dark: dark, presentations: presentations))
    }

    /// The fragment's box element's opening tag.
    static func boxTag(_ document: PreviewDocument, _ presentation: Presentation) throws -> String {
        let fragment = try #require(document.fragments[presentation])
        let start = try #require(fragment.range(of: "data-ll-box=\"\(presentation.rawValue)\""))
        let open = try #require(fragment[..<start.lowerBound].range(of: "<div", options: .backwards))
        let end = try #require(fragment[start.upperBound...].firstIndex(of: ">"))
        return String(fragment[open.lowerBound...end])
    }

    static let boarding = """
        {"lockScreen":{"type":"Text","children":"Gate B12"},"island":{"compact":{"leading":{"type":"Symbol","props":{"name":"airplane"}},
         "trailing":{"type":"Text","children":"B12"}},"minimal":{"type":"Symbol","props":{"name":"airplane"}},
         "expanded":{"leading":{"type":"Text","children":"LIS"},"trailing":{"type":"Text","children":"ZRH"},
                     "center":{"type":"Text","children":"On time"},"bottom":{"type":"Text","children":"Boarding at gate B12"}}}}
        """

    @Test("every presentation has its box, at the HIG's sizes, in the page and in its own fragment")
    func boxes() throws {
        let document = try Self.document(Self.boarding)
        #expect(document.boxes.map(\.presentation) == Presentation.allCases)
        for box in document.boxes {
            let tag = try Self.boxTag(document, box.presentation)
            #expect(tag.contains("width:\(CSS.px(box.width))") && tag.contains("height:\(CSS.px(box.height))"), "\(tag)")
            #expect(box.selector == "[data-ll-box=\"\(box.presentation.rawValue)\"]")
            #expect(Fixtures.count("data-ll-box=\"\(box.presentation.rawValue)\"", in: document.html) == 1)
            for other in Presentation.allCases where other != box.presentation {
                #expect(document.fragments[box.presentation]?.contains("data-ll-box=\"\(other.rawValue)\"") == false)
            }
            #expect(document.html.contains(document.fragments[box.presentation] ?? "-"))
        }
        #expect(document.box(.islandCompact).map { ($0.width, $0.height) } ?? (0, 0) == (230.66, 36.67))
        #expect(document.box(.islandMinimal).map { ($0.width, $0.height) } ?? (0, 0) == (36.67, 36.67))
        let lock = try #require(document.box(.lockScreen))
        #expect(lock.width == 371 && (84...160).contains(lock.height))
        let expanded = try #require(document.box(.islandExpanded))
        #expect(expanded.width == 371 && (84...160).contains(expanded.height))
        // Heights that follow the content are whole points, so a 3× capture is whole pixels.
        #expect(lock.height == lock.height.rounded() && expanded.height == expanded.height.rounded())
        // Regions where content is drawn: compact leading left of the camera, trailing right of it.
        let compact = try #require(document.box(.islandCompact)).content
        #expect(compact.map(\.name) == ["island.compact.leading", "island.compact.trailing"])
        #expect(compact.map(\.x) == [0, 178.33] && compact.allSatisfy { $0.width == 52.33 })
        #expect(expanded.content.map(\.name) == ["island.expanded.leading", "island.expanded.trailing", "island.expanded.center", "island.expanded.bottom"])
        for region in expanded.content {
            #expect(region.x >= 0 && region.y >= 0 && region.x + region.width <= expanded.width + 0.01 && region.y + region.height <= expanded.height + 0.01)
            #expect(document.html.contains("data-ll-region=\"\(region.name)\""))
        }
        // Only what was asked, in that order; the stylesheet is in the page and the same for every document.
        let island = try Self.document(Self.boarding, dark: true, presentations: [.islandMinimal, .islandCompact])
        #expect(island.boxes.map(\.presentation) == [.islandMinimal, .islandCompact] && island.fragments.count == 2)
        #expect(!island.html.contains("data-ll-box=\"lock-screen\""))
        #expect(island.stylesheet == document.stylesheet && document.html.contains(document.stylesheet))
        #expect(ActivityPreview.stylesheet == document.stylesheet)
    }

    @Test("the Lock Screen grows with its content between 84 and 160 points")
    func lockHeight() throws {
        let small = try #require(try Self.document(#"{"lockScreen":{"type":"Text","children":"Hi"}}"#).box(.lockScreen))
        #expect(small.height == 84)
        let rows = (0..<12).map { #"{"type":"Text","children":"Row \#($0)"}"# }
        let tall = try #require(try Self.document(#"{"lockScreen":{"type":"VStack","children":[\#(rows.joined(separator: ","))]}}"#).box(.lockScreen))
        #expect(tall.height == 160)
        let five = rows.prefix(5).joined(separator: ",")
        let medium = try #require(try Self.document(#"{"lockScreen":{"type":"VStack","props":{"style":{"padding":16}},"children":[\#(five)]}}"#).box(.lockScreen))
        #expect(medium.height > 84 && medium.height < 160)
        // A stack's font size applies to the texts in it: four 28-point lines, no gaps (Voltra's stacks space by 0 unless asked).
        let big = try #require(try Self.document(#"{"lockScreen":{"type":"VStack","props":{"style":{"fontSize":28}},"children":[\#(rows.prefix(4).joined(separator: ","))]}}"#).box(.lockScreen))
        let lines: Double = 4 * 28 * 1.2, gaps: Double = 0
        #expect(big.height == (lines + gaps).rounded(.up))
    }

    @Test("the page needs nothing from outside and runs no script")
    func selfContained() throws {
        let html = try Self.document(Self.boarding).html
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for banned in ["<script", "<link", "@import", "http:", "https:", "src=\"//", "@font-face"] {
            #expect(!html.contains(banned), "\(banned)")
        }
    }

    @Test("text truncates with an ellipsis on one line in the Island, honours lineLimit, and never breaks inside a word")
    func truncation() throws {
        let document = try Self.document("""
            {"lockScreen":{"type":"VStack","children":[{"type":"Text","props":{"numberOfLines":2},"children":"A long departure board message"},
              {"type":"Text","props":{"numberOfLines":1},"children":"One line only"},{"type":"Text","children":"Wraps freely"}]},
             "island":{"compact":{"trailing":{"type":"Text","children":"Boards in 5:00"}}}}
            """)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(lock.contains("-webkit-line-clamp:2"))
        #expect(lock.contains("white-space:nowrap;text-overflow:ellipsis;overflow:hidden\">One line only<"))
        #expect(lock.contains("<span class=\"ll-text\">Wraps freely</span>"))
        let compact = try #require(document.fragments[.islandCompact])
        #expect(compact.contains("white-space:nowrap;text-overflow:ellipsis;overflow:hidden\">Boards in 5:00<"))
        // Words wrap only at spaces: no rule anywhere lets a line break inside a word.
        #expect(document.stylesheet.contains(".ll-text{display:block;flex:0 1 auto;white-space:pre-wrap;overflow-wrap:normal;word-break:normal}"))
        for rule in ["break-all", "break-word", "overflow-wrap:anywhere", "hyphens:auto"] { #expect(!document.html.contains(rule)) }
    }

    @Test("SF Symbol names draw as an icon, or as a labelled placeholder", arguments: [
        "airplane", "airplane.departure", "airplane.arrival", "clock", "clock.fill", "timer", "door.left.hand.open", "bag.fill", "suitcase",
        "suitcase.rolling.fill", "car.fill", "shippingbox", "shippingbox.fill", "box.truck.fill", "bicycle", "figure.walk", "sportscourt",
        "soccerball", "basketball.fill", "flag.checkered", "flag.fill", "checkmark", "checkmark.circle", "checkmark.circle.fill", "xmark",
        "xmark.circle.fill", "exclamationmark.triangle.fill", "bell", "bell.fill", "location.fill", "map", "mappin.and.ellipse", "person.fill",
        "star.fill", "heart", "bolt.fill", "house.fill",
    ])
    func knownSymbols(name: String) throws {
        let lock = try #require(try Self.document(#"{"lockScreen":{"type":"Symbol","props":{"name":"\#(name)","size":30}}}"#).fragments[.lockScreen])
        #expect(lock.contains("<span class=\"ll-sym\" data-symbol=\"\(name)\""), "\(lock)")
        // The frame SF Symbols take at 30 pt (SymbolMetrics), the stand-in's ink stretched over the symbol's ink box in it.
        let box = SymbolMetrics.box(name, size: 30)
        #expect(lock.contains("<svg viewBox=\"") && lock.contains("preserveAspectRatio=\"none\" width=\"\(CSS.number(box.ink.width))\"") && lock.contains("<path d=\""))
        #expect(lock.contains("width:\(CSS.px(box.width));height:\(CSS.px(box.height))") && box.width > 30 && box.height > 27)
        #expect(!lock.contains("ll-sym-missing"))
    }

    @Test("filled and outlined variants differ; unknown names get a placeholder naming them")
    func symbolVariants() throws {
        #expect(ElementRenderer.symbol("star.fill", weight: nil).contains("fill=\"currentColor\""))
        #expect(!ElementRenderer.symbol("star", weight: nil).contains("fill=\"currentColor\""))
        #expect(ElementRenderer.symbol("checkmark.circle.fill", weight: nil).contains("<mask id=\"ll-k-checkmark-circle-fill\">"))
        // A filled clock's hands are cut out of its face; the outlined one draws them.
        #expect(ElementRenderer.symbol("clock.fill", weight: nil).contains("<mask id=\"ll-f-clock-fill\">"))
        #expect(!ElementRenderer.symbol("clock", weight: nil).contains("<mask"))
        #expect(ElementRenderer.symbol("star", weight: "bold") != ElementRenderer.symbol("star", weight: "thin"))
        let scaled = try #require(try Self.document(#"{"lockScreen":{"type":"HStack","children":[{"type":"Symbol","props":{"name":"car.fill","scale":"large"}},{"type":"Symbol","props":{"name":"car","scale":"small","size":20}}]}}"#).fragments[.lockScreen])
        // car (not measured): ink 0.92 of the point size, 0.08 each side and 0.06 above and below; 30 pt large, 16 pt small.
        #expect(scaled.contains("width:32.4px;height:31.2px") && scaled.contains("width:17.28px;height:16.64px"), "\(scaled)")
        // heart (measured): 0.97 × 0.90 of the size, so at 30 pt a frame 33.9 wide with ink 29.1 × 26.97.
        let heart = try #require(try Self.document(#"{"lockScreen":{"type":"Symbol","props":{"name":"heart.fill","size":30}}}"#).fragments[.lockScreen])
        #expect(heart.contains("width:33.9px;height:30.57px") && heart.contains("width=\"29.1\" height=\"26.97\""), "\(heart)")
        let lock = try #require(try Self.document(#"{"lockScreen":{"type":"Symbol","props":{"name":"cup.unknown.thing"}}}"#).fragments[.lockScreen])
        #expect(lock.contains("class=\"ll-sym ll-sym-missing\" data-symbol=\"cup.unknown.thing\""))
        #expect(lock.contains("<span class=\"ll-sym-label\">cup</span>") && !lock.contains("<svg"))
        let label = try #require(try Self.document(#"{"lockScreen":{"type":"Label","props":{"title":"Walk to gate","systemImage":"figure.walk"}}}"#).fragments[.lockScreen])
        #expect(label.contains("data-symbol=\"figure.walk\"><svg") && label.contains(">Walk to gate</span>"))
    }

    @Test("light and dark: the Lock Screen's default background and text, system colours; the Island is always dark")
    func appearance() throws {
        let form = #"{"lockScreen":{"type":"Text","props":{"style":{"color":"red"}},"children":"Late"},"island":{"minimal":{"type":"Text","props":{"style":{"color":"red"}},"children":"!"}}}"#
        let light = try Self.document(form), dark = try Self.document(form, dark: true)
        #expect(light.box(.lockScreen)?.background == "#FFFFFF" && dark.box(.lockScreen)?.background == "#000000")
        #expect(try Self.boxTag(light, .lockScreen).contains("background:#FFFFFF;color:#000000"))
        #expect(try Self.boxTag(dark, .lockScreen).contains("background:#000000;color:#FFFFFF"))
        #expect(light.fragments[.lockScreen]?.contains("color:#FF383C") == true)
        #expect(dark.fragments[.lockScreen]?.contains("color:#FF4245") == true)
        for document in [light, dark] {
            #expect(document.box(.islandMinimal)?.background == "#000000")
            #expect(document.fragments[.islandMinimal]?.contains("color:#FF4245") == true)
        }
        #expect(light.fragments[.lockScreen]?.hasPrefix("<div class=\"ll-preview ll-light\"") == true)
        #expect(dark.fragments[.lockScreen]?.hasPrefix("<div class=\"ll-preview ll-dark\"") == true)
    }

    @Test("the background tint is drawn over the default background, and the box says which colour to expect", arguments: [
        ("#0B1220", false, "#0B1220"), ("#FF000080", false, "#FF7F7F"), ("#FF000080", true, "#800000"), ("rgba(0, 0, 255, 0.25)", false, "#BFBFFF"),
        ("nonsense", false, "#FFFFFF"),
    ])
    func tint(tint: String, dark: Bool, expected: String) throws {
        let document = try Self.document(#"{"lockScreen":{"content":{"type":"Text","children":"x"},"activityBackgroundTint":"\#(tint)"}}"#, dark: dark)
        let box = try #require(document.box(.lockScreen))
        #expect(box.background == expected)
        #expect(try Self.boxTag(document, .lockScreen).contains("background:\(expected)"))
    }

    @Test("timers are drawn at the given instant, as SwiftUI formats them", arguments: [
        (300.0, "Boards in 5:00"), (59.4, "Boards in 1:00"), (3 * 3600.0 + 5, "Boards in 180:05"), (-1, "Boarding"),
    ])
    func timers(left: Double, shown: String) throws {
        let end = Int((Self.at.timeIntervalSince1970 + left) * 1000)
        let document = try Self.document(#"""
            {"lockScreen":{"type":"Timer","props":{"endAtMs":\#(end),"textTemplates":{"running":"Boards in {time}","completed":"Boarding"}}}}
            """#)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(lock.contains(">\(shown)</span>"), "\(lock)")
        #expect(lock.contains("font-variant-numeric:tabular-nums"))
        #expect(lock.contains("data-end-ms=\"\(end)\""))
    }

    @Test("progress and gauges fill by value or by the instant")
    func progress() throws {
        let start = Int(Self.at.timeIntervalSince1970 * 1000) - 60_000, end = start + 240_000
        let document = try Self.document("""
            {"lockScreen":{"type":"VStack","children":[{"type":"LinearProgressView","props":{"value":30}},
              {"type":"LinearProgressView","props":{"startAtMs":\(start),"endAtMs":\(end)}},
              {"type":"Gauge","props":{"value":0.5,"gaugeStyle":"accessoryCircularCapacity"}},
              {"type":"CircularProgressView","props":{"value":3,"maximumValue":4}}]}}
            """)
        let lock = try #require(document.fragments[.lockScreen])
        #expect(Fixtures.count("data-fraction=\"0.3\"", in: lock) == 1)
        #expect(Fixtures.count("data-fraction=\"0.25\"", in: lock) == 1)
        #expect(lock.contains("data-fraction=\"0.5\"") && lock.contains("data-fraction=\"0.75\""))
        #expect(lock.contains("width:30%") && lock.contains("width:25%"))
    }

    @Test("controls: switches, buttons, images by name and gradients")
    func controls() throws {
        let lock = try #require(try Self.document("""
            {"lockScreen":{"type":"VStack","children":[{"type":"Toggle","props":{"defaultValue":true,"title":"Alerts"}},{"type":"Toggle"},
              {"type":"Button","props":{"buttonStyle":"borderedProminent"},"children":[{"type":"Text","children":"Check in"}]},
              {"type":"Button","props":{"buttonStyle":"plain"},"children":[{"type":"Text","children":"Later"}]},
              {"type":"Image","props":{"source":{"assetName":"logo"},"style":{"width":30,"height":20}}},
              {"type":"LinearGradient","props":{"colors":"red|#0000FF","startPoint":"leading","endPoint":"trailing"}}]}}
            """).fragments[.lockScreen])
        #expect(lock.contains("data-on=\"true\"") && lock.contains("ll-switch ll-on\" style=\"background:#34C759\""))
        #expect(lock.contains("data-on=\"false\"") && lock.contains("ll-switch\" style=\"background:rgba(120,120,128,0.2)\""))
        #expect(lock.contains("<span class=\"ll-button\" style=\"background:#0088FF;color:#FFFFFF;flex-shrink:0\">"))
        #expect(lock.contains("<span class=\"ll-button\" style=\"background:none;padding:0;font-weight:inherit;flex-shrink:0\">"))
        #expect(lock.contains("data-asset=\"logo\"") && lock.contains("width:30px;height:20px") && lock.contains(">logo</span>"))
        #expect(lock.contains("background:linear-gradient(90deg,#FF383C,#0000FF)"))
    }

    @Test("stacks keep SwiftUI's alignment and spacing; spacers and fills grow along the stack")
    func stacks() throws {
        let lock = try #require(try Self.document("""
            {"lockScreen":{"type":"VStack","props":{"alignment":"leading","spacing":10},"children":[
              {"type":"HStack","children":[{"type":"Text","children":"LIS"},{"type":"Spacer"},{"type":"Text","children":"ZRH"}]},
              {"type":"HStack","props":{"alignment":"top"},"children":[{"type":"Text","children":"a"},{"type":"Text","children":"b"}]},
              {"type":"Text","children":"c"},{"type":"Text","children":"d"}]}}
            """).fragments[.lockScreen])
        // The row with a Spacer takes the whole width (and so does its stack); the spacer grows, at least 8 points.
        #expect(lock.contains("<div class=\"ll-v\" style=\"align-items:flex-start;align-self:stretch\">"))
        #expect(lock.contains("<div class=\"ll-h\" style=\"align-items:center;align-self:stretch\">"))
        #expect(lock.contains("<div class=\"ll-spacer\" style=\"flex:1 1 0;min-width:8px\"></div>"))
        #expect(lock.contains("<div class=\"ll-h\" style=\"align-items:flex-start\">"))
        #expect(Fixtures.count("height:10px", in: lock) == 3)
        // No spacing by default: Voltra gives its stacks 0, not SwiftUI's 8.
        #expect(lock.contains(">a</span><span class=\"ll-text\">b<"))
    }

    @Test("fonts: size, weight, Inter Display from 20 points, monospaced digits, design")
    func fonts() throws {
        let lock = try #require(try Self.document("""
            {"lockScreen":{"type":"VStack","children":[{"type":"Text","props":{"style":{"fontSize":28,"fontWeight":"800"}},"children":"LIS"},
              {"type":"Text","props":{"style":{"fontSize":13,"fontWeight":"bold","fontVariant":["tabular-nums"]}},"children":"12"},
              {"type":"Text","props":{"style":{"fontFamily":"Menlo"}},"children":"m"}]}}
            """).fragments[.lockScreen])
        #expect(lock.contains("font-size:28px;font-family:var(--ll-display);font-weight:800"))
        #expect(lock.contains("font-size:13px;font-family:var(--ll-text);font-weight:700;font-variant-numeric:tabular-nums"))
        #expect(lock.contains("font-family:var(--ll-mono)"))
        // A small text inside a large-type stack goes back to the Text face; a named family is kept.
        let nested = try #require(try Self.document("""
            {"lockScreen":{"type":"VStack","props":{"style":{"fontSize":24}},"children":[{"type":"Text","props":{"style":{"fontSize":12}},"children":"s"},
              {"type":"Text","props":{"style":{"fontFamily":"Courier","fontSize":30}},"children":"m"}]}}
            """).fragments[.lockScreen])
        #expect(nested.contains("font-size:24px;font-family:var(--ll-display)") && nested.contains("font-size:12px;font-family:var(--ll-text)"))
        #expect(nested.contains("font-family:var(--ll-mono);font-weight:400;font-size:30px\""))
        #expect(!nested.contains("font-size:30px;font-family:var(--ll-display)"))
        let css = Stylesheet.css
        #expect(css.contains("--ll-text:-apple-system,BlinkMacSystemFont,\"SF Pro Text\",\"Inter\""))
        #expect(css.contains("--ll-display:-apple-system,BlinkMacSystemFont,\"SF Pro Display\",\"Inter Display\""))
    }

    @Test("payload strings cannot inject markup, script, styles or requests")
    func injection() throws {
        let document = try Self.document(#"""
            {"lockScreen":{"type":"VStack","id":"x\" onclick=\"alert(1)","children":[
              {"type":"Text","props":{"style":{"color":"red;background:url(https://evil.example/x)","fontFamily":"x';}</style><script>alert(1)</script>"}},
               "children":"<script>alert('hi')</script> & co"},
              {"type":"Symbol","props":{"name":"\"><img src=x onerror=alert(1)>","tintColor":"expression(alert(1))"}},
              {"type":"Image","props":{"source":{"assetName":"</span><script>"}}},
              {"type":"Image","props":{"source":{"base64":"\"><script>"}}},
              {"type":"Text","props":{"style":{"backgroundColor":"linear-gradient(90deg, #000, url(https://evil.example/y))"}},"children":"g"},
              {"type":"Text","props":{"style":{"width":"calc(1px);background:url(x)","transform":[{"rotate":"1deg;x:url(y)"}]}},"children":"w"},
              {"type":"Link","props":{"destination":"javascript:alert(1)"},"children":[{"type":"Text","children":"go"}]}]},
             "island":{"minimal":{"type":"Text","props":{"style":{"backgroundColor":"linear-gradient(90deg, #000, #fff)"}},"children":"<b>"}}}
            """#)
        let html = document.html
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(&#39;hi&#39;)&lt;/script&gt; &amp; co"))
        #expect(html.contains("&lt;/span&gt;&lt;script&gt;") && html.contains("data-symbol=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\""))
        #expect(html.contains("data-id=\"x&quot; onclick=&quot;alert(1)\""))
        // What is drawn refers to nothing outside (the warnings under it quote the bad values, escaped).
        let markup = Presentation.allCases.compactMap { document.fragments[$0] }.joined()
        #expect(!markup.contains("evil.example") && !markup.contains("expression(") && !html.contains("href=") && !html.contains("<a "))
        // A link's destination is only named (the preview opens nothing).
        #expect(markup.contains("title=\"javascript:alert(1)\""))
        // The only url() is the page's own symbol masks.
        #expect(markup.components(separatedBy: "url(").dropFirst().allSatisfy { $0.hasPrefix("#ll-k-") || $0.hasPrefix("#ll-f-") })
        #expect(markup.contains("background:linear-gradient(90deg, #000, #fff)"))
        #expect(!markup.contains("calc(") && !markup.contains("1deg;"))
        #expect(document.warnings.contains { $0.contains("evil.example") } && html.contains("<section class=\"ll-warnings\">"))
    }

    @Test("the stale state is marked on the box and the page")
    func stale() throws {
        let steps = try Fixtures.story()
        let start = Array(steps[0].body.serialized())
        let fresh = try ActivityPreview.document(apnsBody: start, options: PreviewOptions(at: steps[0].at))
        #expect(!fresh.html.contains("data-stale") && !fresh.html.contains("<span class=\"ll-stale-badge\""))
        // The start's stale date is an hour after departure.
        let late = try ActivityPreview.document(apnsBody: start, options: PreviewOptions(at: Fixtures.departure.addingTimeInterval(3601)))
        #expect(try Self.boxTag(late, .lockScreen).contains("data-stale=\"true\""))
        #expect(late.html.contains("<span class=\"ll-stale-badge\">stale"))
        #expect(late.fragments[.lockScreen]?.hasPrefix("<div class=\"ll-preview ll-light ll-is-stale\"") == true)
        let asked = try Self.document(#"{"lockScreen":{"type":"Text","children":"x"}}"#)
        #expect(!asked.html.contains("data-stale"))
    }
}

import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// Layouts measured on the device: element boxes read off Voltra's SwiftUI snapshots of its
/// positioning examples (a 402 × 150-point view, dark slate, PNGs at 3x; each box found by its
/// fill and border colours, divided by 3). The same layouts drawn by the preview in Chromium must
/// put each box within 1.5 points of where the device drew it.
///
/// Measured with a small PNG reader (zlib + the five filters) over
/// `example/__tests__/ios/__image_snapshots__/ios/*.png` of callstackincubator/voltra @be4e2af.
@Suite struct VoltraSnapshotTests {
    /// One measured layout: the element `box`'s centre and size (its fill, inside a 2-point border)
    /// as the device drew it, in points from the view's top-left corner.
    struct Measured: Sendable, CustomStringConvertible {
        var name: String
        var layout: String
        var centre: (x: Double, y: Double)
        var fill: (width: Double, height: Double)
        var description: String { name }
    }

    static let box = ##""id":"box","props":{"style":{%@"width":80,"height":60,"borderRadius":8,"borderWidth":2,"borderColor":"#FFFFFF","backgroundColor":"#3B82F6"}},"children":[{"type":"Text","props":{"style":{"color":"white","fontSize":12}},"children":"Box"}]"##

    static func layout(_ alignment: String, _ position: String) -> String {
        #"{"type":"ZStack","props":{"alignment":"\#(alignment)"},"children":[{"type":"VStack",\#(box.replacingOccurrences(of: "%@", with: position))}]}"#
    }

    static let measured: [Measured] = [
        // static-positioning.png: fill 162–239.7 × 46–103.7, border to 160–241.7 × 44–105.7: centred, left/top 100 ignored.
        Measured(name: "static ignores left and top", layout: layout("center", #""position":"static","left":100,"top":100,"#),
                 centre: (201, 75), fill: (78, 58)),
        // relative-positioning-basic.png: fill 182–259.7 × 56–113.7: the centred box moved by (+20, +10).
        Measured(name: "relative offsets by left and top", layout: layout("topLeading", #""position":"relative","left":20,"top":10,"#),
                 centre: (221, 85), fill: (78, 58)),
        // relative-positioning-negative.png: fill 147–224.7 × 31–88.7: moved by (−15, −15).
        Measured(name: "relative offsets by negative values", layout: layout("center", #""position":"relative","left":-15,"top":-15,"#),
                 centre: (186, 60), fill: (78, 58)),
        // absolute-positioning-basic.png: fill 11–88.7 × 21–78.7: its centre at (50, 50) in the view.
        Measured(name: "absolute puts the centre at left and top", layout: layout("topLeading", #""position":"absolute","left":50,"top":50,"#),
                 centre: (50, 50), fill: (78, 58)),
        // The same with no position: absolute is the default.
        Measured(name: "left and top without a position are absolute", layout: layout("topLeading", #""left":50,"top":50,"#),
                 centre: (50, 50), fill: (78, 58)),
    ]

    @Test("positioning as the device draws it: static, relative, absolute by the centre", arguments: measured)
    func positioning(_ case_: Measured) async throws {
        let parsed = try LayoutForm.parse(Array(#"{"lockScreen":\#(case_.layout)}"#.utf8))
        let document = ActivityPreview.document(layout: parsed, warnings: [], options: PreviewOptions(at: Date(timeIntervalSince1970: 0), presentations: [.lockScreen]))
        let fragment = try #require(document.fragments[.lockScreen])
        // The device's view: 402 × 150, the layout's root filling it.
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}\(document.stylesheet)
            [data-ll-box]{width:402px!important;height:150px!important;border-radius:0!important}</style></head><body>\(fragment)
            <script>
            const frame = document.querySelector("[data-ll-box]").getBoundingClientRect();
            const r = document.querySelector("[data-id=box]").getBoundingClientRect();
            const pre = document.createElement("pre"); pre.id = "ll-measured";
            pre.textContent = JSON.stringify([{x: r.left - frame.left, y: r.top - frame.top, w: r.width, h: r.height}]);
            document.body.appendChild(pre);
            </script></body></html>
            """
        let measured = try #require(try await BrowserLayoutTests.render(page).first)
        let x = measured["x"]?.numberValue ?? -1, y = measured["y"]?.numberValue ?? -1
        let w = measured["w"]?.numberValue ?? 0, h = measured["h"]?.numberValue ?? 0
        // The preview's border is inside its 80 × 60 box, the device's fill is that box less the 2-point stroke's half... compare centres and outer sizes.
        #expect(abs(x + w / 2 - case_.centre.x) <= 1.5 && abs(y + h / 2 - case_.centre.y) <= 1.5,
                "\(case_.name): centre (\(x + w / 2), \(y + h / 2)), the device (\(case_.centre.x), \(case_.centre.y))")
        #expect(abs(w - (case_.fill.width + 2)) <= 3 && abs(h - (case_.fill.height + 2)) <= 3, "\(case_.name): \(w) × \(h)")
    }

    @Test("absolute positions are in the parent: three boxes in a bordered 230 × 200 stack, centred in a 402 × 200 view")
    func absoluteCorners() async throws {
        // absolute-positioning-corners.png (402 × 200 pt): the stack's border spans x 86–315.7; the boxes' fills
        // (50 × 40, opacity 0.9) are at 91–140.7 × 10–49.7, 261–310.7 × 150–189.7 and 176–225.7 × 80–119.7,
        // centres (116, 30), (286, 170), (201, 100): (30, 30), (200, 170), (115, 100) from the stack's corner.
        func box(_ id: String, _ x: Int, _ y: Int) -> String {
            ##"{"type":"VStack","id":"\##(id)","props":{"style":{"position":"absolute","left":\##(x),"top":\##(y),"width":50,"height":40,"borderRadius":6,"backgroundColor":"#3B82F6"}},"children":[{"type":"Text","props":{"style":{"fontSize":8}},"children":"\##(x),\##(y)"}]}"##
        }
        let form = ##"{"lockScreen":{"type":"VStack","props":{"style":{"width":230,"height":200,"borderColor":"#FFFFFF","borderWidth":1}},"children":[{"type":"ZStack","props":{"alignment":"topLeading"},"children":[\##(box("a", 30, 30)),\##(box("b", 200, 170)),\##(box("c", 115, 100))]}]}}"##
        let document = ActivityPreview.document(layout: try LayoutForm.parse(Array(form.utf8)), warnings: [],
                                                options: PreviewOptions(at: Date(timeIntervalSince1970: 0), presentations: [.lockScreen]))
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}\(document.stylesheet)
            [data-ll-box]{width:402px!important;height:200px!important;border-radius:0!important}</style></head><body>\(document.fragments[.lockScreen] ?? "")
            <script>
            const frame = document.querySelector("[data-ll-box]").getBoundingClientRect();
            const out = ["a", "b", "c"].map(id => { const r = document.querySelector(`[data-id=${id}]`).getBoundingClientRect();
              return {x: r.left - frame.left + r.width / 2, y: r.top - frame.top + r.height / 2}; });
            const pre = document.createElement("pre"); pre.id = "ll-measured"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
            </script></body></html>
            """
        let measured = try await BrowserLayoutTests.render(page)
        let device: [(Double, Double)] = [(116, 30), (286, 170), (201, 100)]
        #expect(measured.count == 3)
        for (entry, centre) in zip(measured, device) {
            let x = entry["x"]?.numberValue ?? -1, y = entry["y"]?.numberValue ?? -1
            #expect(abs(x - centre.0) <= 1.5 && abs(y - centre.1) <= 1.5, "centre (\(x), \(y)), the device (\(centre.0), \(centre.1))")
        }
    }

    @Test("stacks: no spacing unless asked (Voltra passes 0), the style's gap exactly, the spacing prop over the gap")
    func stackSpacing() throws {
        let lock = try #require(try ActivityPreviewTests.document(#"""
            {"lockScreen":{"type":"VStack","children":[
              {"type":"HStack","children":[{"type":"Text","children":"Gate"},{"type":"Text","children":"B12"}]},
              {"type":"HStack","props":{"style":{"gap":20}},"children":[{"type":"Text","children":"a"},{"type":"Text","children":"b"}]},
              {"type":"HStack","props":{"spacing":4,"style":{"gap":20}},"children":[{"type":"Text","children":"c"},{"type":"Text","children":"d"}]}]}}
            """#, presentations: [.lockScreen]).fragments[.lockScreen])
        #expect(lock.contains(">Gate</span><span class=\"ll-text\">B12<"), "\(lock)")  // the phone shows "GateB12"
        #expect(lock.contains(">a</span><i class=\"ll-gap\" style=\"width:20px\"></i><span class=\"ll-text\">b<"), "\(lock)")
        #expect(!lock.contains("gap:20px"))  // no CSS gap on top of the spacing
        #expect(lock.contains(">c</span><i class=\"ll-gap\" style=\"width:4px\"></i><span class=\"ll-text\">d<"), "\(lock)")
    }

    @Test("SF Symbol stand-ins for the names Voltra's examples use, each pointing its own way")
    func symbols() throws {
        let names = ["chevron.right", "chevron.left", "chevron.up", "chevron.down", "forward.fill", "backward.fill", "photo", "wifi",
                     "battery.100", "battery.25", "battery.0", "arrow.up.right", "location.north.fill", "goforward"]
        for name in names {
            #expect(Symbols.resolve(name) != nil, "\(name) has no stand-in")
        }
        func paths(_ name: String) -> String { (Symbols.resolve(name)?.parts ?? []).map { $0.svg(filled: false) }.joined() }
        // Diagonal, not straight up; north, not the tilted location arrow; each battery level its own.
        #expect(paths("arrow.up.right") != paths("arrow.up") && paths("arrow.up.right").contains("M6 18L18 6"))
        #expect(paths("location.north") != paths("location"))
        #expect(Set(["battery.100", "battery.75", "battery.50", "battery.25", "battery.0"].map(paths)).count == 5)
        #expect(Set(["chevron.right", "chevron.left", "chevron.up", "chevron.down"].map(paths)).count == 4)
    }

    @Test("Markdown in text is drawn as the device draws it: bold, italic, strikethrough, code, links; the markers take no room")
    func markdown() throws {
        #expect(InlineMarkdown.html("Gate **B12** · *now* ~~C7~~ `LL1` [map](https://x.example)")
                == "Gate <b class=\"ll-md\">B12</b> · <i class=\"ll-md\">now</i> <s class=\"ll-md\">C7</s> <code class=\"ll-md\">LL1</code> <span class=\"ll-md-link\">map</span>")
        #expect(InlineMarkdown.plain("Gate **B12** · *now*") == "Gate B12 · now")
        // Unpaired markers and markup stay as typed, escaped.
        #expect(InlineMarkdown.html("5 * 3 <b>") == "5 * 3 &lt;b&gt;")
        #expect(InlineMarkdown.html("**<script>**") == "<b class=\"ll-md\">&lt;script&gt;</b>")
        let text = UIPreview(now: Date(timeIntervalSince1970: 0)).text(try LayoutForm.parse(Array(#"{"lockScreen":{"type":"Text","children":"Gate **B12**"}}"#.utf8)), surface: .lockScreen)
        #expect(text.contains("Gate B12") && !text.contains("**"))
    }

    @Test("in Chromium, long text in the expanded Island's leading and trailing ends in an ellipsis inside its region")
    func expandedEllipsis() async throws {
        let long = "Departure gate changed to C7 at the far end"
        let layout = try LayoutForm.parse(Array(#"""
            {"island":{"expanded":{"leading":{"type":"VStack","children":[{"type":"Text","children":"\#(long)"}]},
                                   "trailing":{"type":"Text","children":"\#(long)"}}}}
            """#.utf8))
        let document = ActivityPreview.document(layout: layout, warnings: [], options: PreviewOptions(at: Date(timeIntervalSince1970: 0), presentations: [.islandExpanded]))
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}\(document.stylesheet)</style></head><body>\(document.fragments[.islandExpanded] ?? "")
            <script>
            const out = [...document.querySelectorAll(".ll-exp-leading, .ll-exp-trailing")].map(region => {
              const r = region.getBoundingClientRect(), t = region.querySelector(".ll-text"), tr = t.getBoundingClientRect();
              return {inside: tr.left >= r.left - 0.5 && tr.right <= r.right + 0.5, cut: t.scrollWidth > t.clientWidth, ellipsis: getComputedStyle(t).textOverflow};
            });
            const pre = document.createElement("pre"); pre.id = "ll-measured"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
            </script></body></html>
            """
        let measured = try await BrowserLayoutTests.render(page)
        #expect(measured.count == 2)
        for region in measured {
            #expect(region["inside"] == .bool(true) && region["cut"] == .bool(true) && region["ellipsis"] == .string("ellipsis"), "\(region)")
        }
    }

    @Test("glassEffect draws each view its own translucent capsule: five pills stay five, not one bar")
    func glass() throws {
        let pills = (1...5).map { #"{"type":"Text","props":{"style":{"glassEffect":"regular","paddingHorizontal":10}},"children":"Z\#($0)"}"# }
        let lock = try #require(try ActivityPreviewTests.document(#"""
            {"lockScreen":{"type":"GlassContainer","children":[{"type":"HStack","props":{"spacing":6},"children":[\#(pills.joined(separator: ","))]},
              {"type":"Text","props":{"style":{"glassEffect":"identity"}},"children":"plain"}]}}
            """#, presentations: [.lockScreen]).fragments[.lockScreen])
        #expect(Fixtures.count("background:rgba(255,255,255,0.18);backdrop-filter:blur(12px)", in: lock) == 5, "\(lock)")
        #expect(Fixtures.count("border-radius:999px", in: lock) == 5)
        #expect(lock.contains("\">plain<") && !lock.contains("0.08"))
    }

    @Test("a button without a style is its label alone; flexGrow grows a view across its stack too")
    func buttonsAndGrowth() throws {
        let lock = try #require(try ActivityPreviewTests.document(#"""
            {"lockScreen":{"type":"HStack","children":[
              {"type":"Button","children":[{"type":"Text","children":"Skip"}]},
              {"type":"VStack","props":{"style":{"flexGrow":1,"backgroundColor":"#222222"}},"children":[{"type":"Text","children":"card"}]}]}}
            """#, presentations: [.lockScreen]).fragments[.lockScreen])
        #expect(lock.contains("class=\"ll-button\" style=\"background:none;padding:0"), "\(lock)")
        #expect(lock.contains("align-self:stretch") && lock.contains("flex-grow:1"), "\(lock)")
    }
}

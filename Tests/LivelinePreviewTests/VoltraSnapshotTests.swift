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

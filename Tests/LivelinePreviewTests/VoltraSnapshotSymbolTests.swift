import Foundation
import LivelineCore
import LivelineUI
import Testing
@testable import LivelinePreview

/// Symbols and masks as the device draws them, measured in Voltra's SwiftUI snapshots of its
/// example Live Activities (callstackincubator/voltra @be4e2af,
/// `example/__tests__/ios/__image_snapshots__/ios/`, 364 × 160-point views at 3x). Each ink box is
/// where the symbol's colour covers at least half a pixel, divided by 3. The same layouts drawn by
/// the preview in Chromium must put each ink box within 1.5 points of the device's.
@Suite struct VoltraSnapshotSymbolTests {
    /// An ink box in points: x from the row's centre (or a named edge), y from the view's top.
    struct Ink: Sendable {
        var x0: Double, x1: Double, width: Double, height: Double
    }

    /// One measured row of symbols, centred in the view: each symbol's ink across the row, as
    /// offsets from the midpoint of the first ink's left and the last ink's right edge.
    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var layout: String
        var inks: [Ink]
        var description: String { name }
    }

    static func symbol(_ name: String, _ size: Double?, scale: String? = nil, tint: String = "#94A3B8") -> String {
        let size = size.map { #","size":\#($0)"# } ?? ""
        let scale = scale.map { #","scale":"\#($0)""# } ?? ""
        return #"{"type":"Symbol","props":{"name":"\#(name)","tintColor":"\#(tint)"\#(size)\#(scale)}}"#
    }

    static func ink(_ x0: Double, _ x1: Double, _ h: Double) -> Ink { Ink(x0: x0, x1: x1, width: x1 - x0, height: h) }

    static let rows: [Row] = [
        // flight-tracker-live-activity-preview.png, the route between the airports (HStack spacing 4):
        // inks at x 156.67–159.67, 164.33–167.33, 173.67–191.33 (16.0 tall), 195.67–198.67, 203.33–206.33; midpoint 181.5.
        Row(name: "flight route: four 3-pt dots round a 16-pt airplane",
            layout: #"{"type":"HStack","props":{"spacing":4},"children":[\#(symbol("circle.fill", 3)),\#(symbol("circle.fill", 3)),\#(symbol("airplane", 16)),\#(symbol("circle.fill", 3)),\#(symbol("circle.fill", 3))]}"#,
            inks: [ink(-24.83, -21.83, 3), ink(-17.17, -14.17, 3), ink(-7.83, 9.83, 16), ink(14.17, 17.17, 3), ink(21.83, 24.83, 3)]),
        // music-player-live-activity-preview.png, the controls (HStack spacing 8 of unstyled buttons, 24-pt symbols at
        // the large scale): inks at x 184.67–225.0 (22.67 tall), 241.0–258.67 (24.67), 275.0–315.0 (22.67); midpoint 249.83.
        Row(name: "music controls: backward, pause, forward at the large scale",
            layout: #"{"type":"HStack","props":{"spacing":8},"children":["# + ["backward.fill", "pause.fill", "forward.fill"].map {
                #"{"type":"Button","children":[\#(symbol($0, nil, scale: "large", tint: "#F0F9FF"))]}"#
            }.joined(separator: ",") + "]}",
            inks: [ink(-65.17, -24.83, 22.67), ink(-8.83, 8.83, 24.67), ink(25.17, 65.17, 22.67)]),
        // liquid-glass-live-activity-preview.png: heart.fill at 32 pt, 31.0 × 28.67.
        Row(name: "heart.fill at 32 pt", layout: symbol("heart.fill", 32, tint: "#FF0000"), inks: [ink(-15.5, 15.5, 28.67)]),
        // workout-tracker-live-activity-preview.png: heart.fill at 24 pt, 23.33 × 21.67; timer at 24 pt, 24.0 × 24.0.
        Row(name: "heart.fill at 24 pt", layout: symbol("heart.fill", 24, tint: "#EF4444"), inks: [ink(-11.67, 11.67, 21.67)]),
        Row(name: "timer at 24 pt", layout: symbol("timer", 24, tint: "#10B981"), inks: [ink(-12, 12, 24)]),
        // flight-tracker: arrow.up.right at 14 pt, 10.33 × 10.0; airplane at 14 pt, 15.33 × 14.0.
        Row(name: "arrow.up.right at 14 pt", layout: symbol("arrow.up.right", 14, tint: "#000000"), inks: [ink(-5.17, 5.17, 10)]),
        Row(name: "airplane at 14 pt", layout: symbol("airplane", 14, tint: "#FFFFFF"), inks: [ink(-7.67, 7.67, 14)]),
    ]

    /// The page: the layout as the Lock Screen of a 364 × 160 view, and a script writing each
    /// symbol's ink box (its drawn paths' bounds widened by half their stroke) into the DOM.
    static func page(_ layout: String, probe: String) throws -> String {
        let parsed = try LayoutForm.parse(Array(#"{"lockScreen":\#(layout)}"#.utf8))
        let document = ActivityPreview.document(layout: parsed, warnings: [], options: PreviewOptions(at: Date(timeIntervalSince1970: 0), presentations: [.lockScreen]))
        return """
            <!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}\(document.stylesheet)
            [data-ll-box]{width:364px!important;height:160px!important;border-radius:0!important}</style></head><body>\(document.fragments[.lockScreen] ?? "")
            <script>
            const frame = document.querySelector("[data-ll-box]").getBoundingClientRect();
            \(probe)
            const pre = document.createElement("pre"); pre.id = "ll-measured"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
            </script></body></html>
            """
    }

    static let inkProbe = """
        const out = [...document.querySelectorAll(".ll-sym svg")].map(svg => {
          let x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
          const m = svg.getScreenCTM();
          for (const p of svg.querySelectorAll("path")) {
            if (p.closest("mask")) continue;
            const r = p.getBoundingClientRect(), cs = getComputedStyle(p);
            const half = cs.stroke === "none" ? 0 : parseFloat(cs.strokeWidth) / 2;
            x0 = Math.min(x0, r.left - half * m.a); x1 = Math.max(x1, r.right + half * m.a);
            y0 = Math.min(y0, r.top - half * m.d); y1 = Math.max(y1, r.bottom + half * m.d);
          }
          return {x0: x0 - frame.left, x1: x1 - frame.left, y0: y0 - frame.top, y1: y1 - frame.top};
        });
        """

    @Test("symbol stand-ins take the room SF Symbols take: ink widths, heights and the gaps a row puts between them", arguments: rows)
    func symbolInks(_ row: Row) async throws {
        let measured = try await BrowserLayoutTests.render(try Self.page(row.layout, probe: Self.inkProbe))
        try #require(measured.count == row.inks.count, "\(row.name): \(measured.count) symbols drawn")
        let boxes = measured.map { ($0["x0"]?.numberValue ?? .nan, $0["x1"]?.numberValue ?? .nan, $0["y0"]?.numberValue ?? .nan, $0["y1"]?.numberValue ?? .nan) }
        let middle = (boxes[0].0 + boxes[boxes.count - 1].1) / 2
        for (box, device) in zip(boxes, row.inks) {
            let drawn = Ink(x0: box.0 - middle, x1: box.1 - middle, width: box.1 - box.0, height: box.3 - box.2)
            let close = abs(drawn.x0 - device.x0) <= 1.5 && abs(drawn.x1 - device.x1) <= 1.5 && abs(drawn.height - device.height) <= 1.5
            #expect(close, "\(row.name): ink x \(drawn.x0)…\(drawn.x1) (\(drawn.width) × \(drawn.height)), the device \(device.x0)…\(device.x1) (\(device.width) × \(device.height))")
        }
    }

    @Test("arrow.up.right sits 1.67 pt inside its badge's 10-pt padding, as in the flight tracker's badge")
    func badgeArrow() async throws {
        // flight-tracker: the yellow badge spans x 289–352; the arrow's ink starts at 300.67 (11.67 in).
        let layout = ##"{"type":"HStack","props":{"spacing":4,"style":{"backgroundColor":"#FCD34D","paddingHorizontal":10,"paddingVertical":6,"borderRadius":12}},"children":[\##(Self.symbol("arrow.up.right", 14, tint: "#000000")),{"type":"Text","props":{"style":{"color":"#000000","fontSize":14,"fontWeight":"600"}},"children":"134"}]}"##
        let probe = Self.inkProbe + "const badge = document.querySelector('.ll-sym').parentElement.getBoundingClientRect(); out.forEach(o => o.left = badge.left - frame.left);"
        let measured = try await BrowserLayoutTests.render(try Self.page(layout, probe: probe))
        let entry = try #require(measured.first)
        let inset = (entry["x0"]?.numberValue ?? .nan) - (entry["left"]?.numberValue ?? .nan)
        #expect(abs(inset - 11.67) <= 1.5, "the arrow's ink \(inset) pt inside the badge, the device 11.67")
    }

    @Test("location.north.fill at 28 pt turned 120° spans the compass's 29.67 × 24.0 box")
    func turnedArrow() async throws {
        // compass-live-activity-preview.png: the arrow's ink spans x 23.0–52.67, y 64.0–88.0 inside a 48-pt circle.
        let layout = ##"{"type":"Symbol","props":{"name":"location.north.fill","tintColor":"#3B82F6","size":28,"style":{"transform":[{"rotate":"120deg"}]}}}"##
        // The drawn outline's points in the page (the path sampled along its length, through the turned frame), widened by half the stroke.
        let probe = """
            const out = [...document.querySelectorAll(".ll-sym svg")].map(svg => {
              let x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
              for (const p of svg.querySelectorAll("path")) {
                const m = p.getScreenCTM(), n = p.getTotalLength(), half = parseFloat(getComputedStyle(p).strokeWidth) / 2;
                const scale = Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
                for (let i = 0; i <= 400; i++) {
                  const q = p.getPointAtLength(n * i / 400).matrixTransform(m);
                  x0 = Math.min(x0, q.x - half * scale); x1 = Math.max(x1, q.x + half * scale);
                  y0 = Math.min(y0, q.y - half * scale); y1 = Math.max(y1, q.y + half * scale);
                }
              }
              return {x0: x0 - frame.left, x1: x1 - frame.left, y0: y0 - frame.top, y1: y1 - frame.top};
            });
            """
        let entry = try #require(try await BrowserLayoutTests.render(try Self.page(layout, probe: probe)).first)
        let width = (entry["x1"]?.numberValue ?? .nan) - (entry["x0"]?.numberValue ?? .nan)
        let height = (entry["y1"]?.numberValue ?? .nan) - (entry["y0"]?.numberValue ?? .nan)
        #expect(abs(width - 29.67) <= 1.5 && abs(height - 24) <= 1.5, "turned ink \(width) × \(height), the device 29.67 × 24.0")
    }

    /// workout-tracker-live-activity-preview.png: the heart-rate zones, one gradient shown through a
    /// mask of five pills (HStack spacing 4, `flex: 1`, 8 tall) inside 16-pt padding: drawn at x
    /// 16–79.33, 83.33–146.33, 150.33–213.67, 217.67–280.67, 284.67–348, y 61.67–69.67.
    static let zones: [(Double, Double)] = [(16, 79.33), (83.33, 146.33), (150.33, 213.67), (217.67, 280.67), (284.67, 348)]

    @Test("Mask: a gradient bar through five pills is drawn as five pills with the device's gaps, not one bar")
    func maskedZones() async throws {
        let pill = ##"{"type":"VStack","props":{"style":{"flex":1,"borderRadius":8,"height":8,"backgroundColor":"#FFFFFF"}}}"##
        let layout = ##"""
            {"type":"VStack","props":{"style":{"padding":16}},"children":[
              {"type":"Mask","props":{"maskElement":{"type":"HStack","props":{"spacing":4},"children":[\##(Array(repeating: pill, count: 5).joined(separator: ","))]}},
               "children":[{"type":"LinearGradient","props":{"colors":"#10B981|#94A3B8","startPoint":"leading","endPoint":"trailing","style":{"borderRadius":8,"height":8}}}]}]}
            """##
        // What is drawn along the bar's middle, every quarter point: runs where the gradient shows.
        let probe = """
            const bar = document.querySelector(".ll-fill").getBoundingClientRect(), y = bar.top + bar.height / 2;
            const out = []; let start = null;
            for (let x = frame.left; x <= frame.right; x += 0.25) {
              const hit = document.elementFromPoint(x, y), shown = !!(hit && hit.closest(".ll-fill"));
              if (shown && start === null) start = x;
              if (!shown && start !== null) { out.push({x0: start - frame.left, x1: x - frame.left}); start = null; }
            }
            if (start !== null) out.push({x0: start - frame.left, x1: frame.width});
            """
        let runs = try await BrowserLayoutTests.render(try Self.page(layout, probe: probe))
        let drawn = runs.map { ($0["x0"]?.numberValue ?? .nan, $0["x1"]?.numberValue ?? .nan) }
        try #require(drawn.count == Self.zones.count, "runs drawn: \(drawn), the device's five pills \(Self.zones)")
        for (run, device) in zip(drawn, Self.zones) {
            #expect(abs(run.0 - device.0) <= 1.5 && abs(run.1 - device.1) <= 1.5, "pill \(run), the device \(device)")
        }
    }
}

/// GlassContainer merging. None of Voltra's snapshots shows two glass shapes near each other (its
/// one glass example holds a single glass view), so this follows Apple's documentation instead:
/// GlassEffectContainer's spacing "specifies the distance between elements at which they begin to
/// merge" (UIGlassContainerEffect.spacing), and the default 0 merges nothing.
@Suite struct GlassContainerMergeTests {
    static func layout(containerSpacing: Int?) -> String {
        let pills = (1...5).map { #"{"type":"Text","props":{"style":{"glassEffect":"regular","paddingHorizontal":10,"fontSize":13}},"children":"Z\#($0)"}"# }
        let spacing = containerSpacing.map { #""props":{"spacing":\#($0)},"# } ?? ""
        return #"{"type":"GlassContainer",\#(spacing)"children":[{"type":"HStack","props":{"spacing":6},"children":[\#(pills.joined(separator: ","))]}]}"#
    }

    /// The glass shapes Chromium draws: every element with a backdrop filter, left to right.
    static let probe = """
        const out = [...document.querySelectorAll("[data-ll-box] *")].filter(e => getComputedStyle(e).backdropFilter !== "none")
          .map(e => { const r = e.getBoundingClientRect(); return {x0: r.left - frame.left, x1: r.right - frame.left}; });
        """

    @Test("five glass pills 6 pt apart: one shape in a container whose spacing is 10, five when it is 6 or unset",
          arguments: [(Optional(10), 1), (Optional(6), 5), (nil, 5)])
    func merging(_ containerSpacing: Int?, _ shapes: Int) async throws {
        let drawn = try await BrowserLayoutTests.render(try VoltraSnapshotSymbolTests.page(Self.layout(containerSpacing: containerSpacing), probe: Self.probe))
        #expect(drawn.count == shapes, "container spacing \(containerSpacing.map(String.init) ?? "unset"): \(drawn)")
        if shapes == 1, let shape = drawn.first {
            // The one shape spans the five pills and the four 6-pt gaps between them: each pill's text and padding, 4 × 6.
            let width = (shape["x1"]?.numberValue ?? 0) - (shape["x0"]?.numberValue ?? 0)
            #expect(width > 5 * 20 + 4 * 6, "one shape \(width) pt wide")
        }
    }
}

/// A Mask draws its children once per opaque shape of its mask element: a hostile layout must not
/// turn that into a page that grows with the product of nested masks' shapes.
@Suite struct MaskBoundsTests {
    static func mask(shapes: Int, content: String) -> String {
        let pill = ##"{"type":"VStack","props":{"style":{"width":4,"height":4,"backgroundColor":"#FFFFFF"}}}"##
        return ##"{"type":"Mask","props":{"maskElement":{"type":"HStack","children":[\##(Array(repeating: pill, count: shapes).joined(separator: ","))]}},"children":[\##(content)]}"##
    }

    @Test("a mask element of 24 shapes draws 24 copies; more, or a Mask inside a Mask, draws the children once, unmasked")
    func bounded() throws {
        let text = #"{"type":"Text","children":"inside"}"#
        func copies(_ layout: String) throws -> Int {
            let lock = try #require(try ActivityPreviewTests.document(#"{"lockScreen":\#(layout)}"#, presentations: [.lockScreen]).fragments[.lockScreen])
            return Fixtures.count(">inside<", in: lock)
        }
        // The hidden layout copy plus one per shape.
        #expect(try copies(Self.mask(shapes: 24, content: text)) == 25)
        #expect(try copies(Self.mask(shapes: 25, content: text)) == 1)
        // Three levels of 20 shapes: 21 copies of the outer content (each holding the inner Masks' children once), not 21³.
        let nested = Self.mask(shapes: 20, content: Self.mask(shapes: 20, content: Self.mask(shapes: 20, content: text)))
        #expect(try copies(nested) == 21)
    }
}

import Foundation
import LivelineCore
import LivelineProcess
import LivelineTesting
import LivelineUI
import Testing
@testable import LivelinePreview

/// The pages as headless Chromium (Debian's `chromium`) lays them out: the boxes are the sizes
/// `PreviewBox` says, the content fits the heights estimated for it, and text that does not fit is
/// cut, not broken. A script added for the test writes the measurements into the DOM, which
/// `--dump-dom` prints once the page has loaded; the previews themselves have no script.
@Suite struct BrowserLayoutTests {
    /// Each box's size, whether its regions' content overflows them, and which texts are cut.
    static let measure = """
        <script>
        const out = [...document.querySelectorAll("[data-ll-box]")].map(box => {
          const r = box.getBoundingClientRect();
          const regions = [...box.querySelectorAll(".ll-region")].filter(x => x.scrollHeight > x.clientHeight + 1).map(x => x.dataset.llRegion);
          const cut = [...box.querySelectorAll(".ll-text")].filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.textContent);
          const lines = [...box.querySelectorAll(".ll-text")].filter(t => !t.style.webkitLineClamp && t.style.whiteSpace !== "nowrap")
            .filter(t => t.getClientRects().length > 0 && t.getBoundingClientRect().height > parseFloat(getComputedStyle(t).lineHeight) * 1.5)
            .map(t => t.textContent);
          // Points just outside the box (edges' middles and the corners' diagonals) must not show anything drawn inside it.
          const probes = [[r.left + r.width / 2, r.top - 3], [r.left + r.width / 2, r.bottom + 3], [r.left - 3, r.top + r.height / 2],
                          [r.right + 3, r.top + r.height / 2], [r.left - 3, r.top - 3], [r.right + 3, r.bottom + 3]];
          const leaks = probes.filter(([x, y]) => { const hit = document.elementFromPoint(x, y); return hit && box.contains(hit); }).length;
          // How tall the Lock Screen's content is drawn (its region's children, stacked).
          const region = box.querySelector("[data-ll-region=lockScreen]");
          const content = region ? [...region.children].reduce((sum, c) => sum + c.getBoundingClientRect().height, 0) : 0;
          return {doc: box.closest("[data-doc]").dataset.doc, box: box.dataset.llBox, w: r.width, h: r.height, overflow: regions, cut, wrapped: lines, leaks, content};
        });
        const pre = document.createElement("pre"); pre.id = "ll-measured"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
        </script>
        """

    @Test("in Chromium, the flight story's boxes have their sizes, content fits, and no text is cut")
    func flightStory() async throws {
        let steps = try Fixtures.story()
        let attributes = try #require(steps[0].body["aps"]?["attributes"])
        var documents: [PreviewDocument] = []
        for (i, step) in steps.enumerated() {
            let state = try #require(step.body["aps"]?["content-state"])
            documents.append(try ActivityPreview.document(attributesType: "FlightAttributes", attributes: attributes, contentState: state,
                                                          options: PreviewOptions(at: step.at.addingTimeInterval(60), dark: i % 2 == 1)))
        }
        // One page holding every document's fragments under the shared stylesheet, as the dashboard embeds them.
        var body = ""
        for (i, document) in documents.enumerated() {
            body += "<section data-doc=\"\(i)\">" + Presentation.allCases.compactMap { document.fragments[$0] }.joined(separator: "<br>") + "</section>"
        }
        let page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0;width:393px}\(documents[0].stylesheet)</style></head><body>"
            + body + Self.measure + "</body></html>"
        let measured = try await Self.render(page)
        #expect(measured.count == 5 * 4)
        for entry in measured {
            let doc = try #require(entry["doc"]?.stringValue.flatMap(Int.init)), name = try #require(entry["box"]?.stringValue)
            let box = try #require(documents[doc].boxes.first { $0.presentation.rawValue == name })
            let where_ = "step \(steps[doc].title), \(name)"
            #expect(abs((entry["w"]?.numberValue ?? 0) - box.width) < 0.05, "\(where_): width \(entry["w"] ?? .null) vs \(box.width)")
            #expect(abs((entry["h"]?.numberValue ?? 0) - box.height) < 0.05, "\(where_): height \(entry["h"] ?? .null) vs \(box.height)")
            #expect(entry["overflow"]?.arrayValue?.isEmpty == true, "\(where_): content overflows \(entry["overflow"] ?? .null)")
            let cut = entry["cut"]?.arrayValue?.compactMap(\.stringValue) ?? []
            // Nothing is cut: compact trailing shows the time alone ("1:19:00"), not a "Boards in" cut to "Boards…".
            #expect(cut.isEmpty, "\(where_): cut \(cut)")
            #expect(entry["wrapped"]?.arrayValue?.isEmpty == true, "\(where_): wrapped \(entry["wrapped"] ?? .null)")
        }
    }

    /// Lock Screens whose content is between 84 and 160 points tall.
    static let grown = [
        #"{"type":"VStack","props":{"style":{"fontSize":28}},"children":[{"type":"Text","children":"One"},{"type":"Text","children":"Two"},{"type":"Text","children":"Three"}]}"#,
        #"{"type":"VStack","props":{"alignment":"leading","spacing":6,"style":{"padding":16}},"children":[{"type":"HStack","children":[{"type":"Symbol","props":{"name":"box.truck.fill"}},{"type":"Text","props":{"style":{"fontSize":15,"fontWeight":"600"}},"children":"Out for delivery"},{"type":"Spacer"},{"type":"Text","props":{"style":{"fontSize":13}},"children":"ETA 14:20"}]},{"type":"LinearProgressView","props":{"value":70}},{"type":"Text","props":{"style":{"fontSize":13}},"children":"3 stops before yours"}]}"#,
        #"{"type":"HStack","props":{"style":{"padding":24}},"children":[{"type":"Gauge","props":{"value":0.4,"gaugeStyle":"accessoryCircularCapacity"}},{"type":"VStack","props":{"alignment":"leading"},"children":[{"type":"Text","props":{"style":{"fontSize":20,"fontWeight":"700"}},"children":"Charging"},{"type":"Text","props":{"style":{"fontSize":13}},"children":"40% · 35 min left"}]},{"type":"Spacer"}]}"#,
        #"{"type":"VStack","props":{"spacing":4,"style":{"paddingHorizontal":16,"paddingVertical":18}},"children":[{"type":"Text","props":{"style":{"fontSize":15}},"children":"A notice long enough to wrap onto a second line at this width, as SwiftUI wraps it"},{"type":"Text","props":{"style":{"fontSize":12}},"children":"Updated 2 min ago"}]}"#,
    ]

    @Test("in Chromium, the Lock Screen's estimated height is the height its content is drawn at")
    func estimatedHeights() async throws {
        let documents = try Self.grown.map { try ActivityPreviewTests.document(#"{"lockScreen":\#($0)}"#, presentations: [.lockScreen]) }
        let body = documents.enumerated().map { "<div data-doc=\"\($0.offset)\">\($0.element.fragments[.lockScreen] ?? "")</div>" }.joined()
        let page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}\(documents[0].stylesheet)</style></head><body>"
            + body + Self.measure + "</body></html>"
        let measured = try await Self.render(page)
        #expect(measured.count == documents.count)
        for entry in measured {
            let doc = try #require(entry["doc"]?.stringValue.flatMap(Int.init))
            let box = try #require(documents[doc].box(.lockScreen))
            let drawn = try #require(entry["content"]?.numberValue)
            #expect(box.height > 84 && box.height < 160, "layout \(doc): \(box.height)")
            #expect(abs(drawn - box.height) <= 2, "layout \(doc): estimated \(box.height), drawn \(drawn)")
            #expect(entry["overflow"]?.arrayValue?.isEmpty == true && entry["cut"]?.arrayValue?.isEmpty == true, "layout \(doc): \(entry)")
        }
    }

    @Test("in Chromium, nothing a payload places outside its box shows outside it")
    func clipping() async throws {
        let document = try ActivityPreviewTests.document("""
            {"lockScreen":{"type":"VStack","children":[
              {"type":"Text","props":{"style":{"position":"absolute","left":-120,"top":-60,"fontSize":90,"backgroundColor":"red"}},"children":"OUT OF BOUNDS"},
              {"type":"Text","props":{"style":{"transform":[{"scale":12}],"backgroundColor":"blue"}},"children":"big"},
              {"type":"Text","props":{"style":{"shadowRadius":80,"shadowColor":"red","margin":-200,"width":2000,"height":900,"backgroundColor":"green"}},"children":"wide"}]},
             "island":{"compact":{"leading":{"type":"Text","props":{"style":{"width":600,"backgroundColor":"red"}},"children":"x"}},
                       "minimal":{"type":"Symbol","props":{"name":"star.fill","size":300}},
                       "expanded":{"bottom":{"type":"Text","props":{"style":{"height":900,"backgroundColor":"red"}},"children":"tall"}}}}
            """)
        // Each box on its own, with room round it for the probes.
        let body = Presentation.allCases.compactMap { document.fragments[$0] }.map { "<div data-doc=\"0\" style=\"padding:40px\">\($0)</div>" }.joined()
        let page = "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}\(document.stylesheet)</style></head><body>"
            + body + Self.measure + "</body></html>"
        let measured = try await Self.render(page)
        #expect(measured.count == Presentation.allCases.count)  // StandBy, the small family, two activities and the banner too
        for entry in measured {
            let name = entry["box"]?.stringValue ?? "?"
            #expect(entry["leaks"]?.numberValue == 0, "\(name): \(entry)")
            let box = try #require(document.boxes.first { $0.presentation.rawValue == name })
            #expect(abs((entry["w"]?.numberValue ?? 0) - box.width) < 0.05 && abs((entry["h"]?.numberValue ?? 0) - box.height) < 0.05, "\(name): \(entry)")
        }
    }

    /// The measurements the page's script wrote, from Chromium's dump of the laid-out DOM.
    static func render(_ html: String) async throws -> [JSONValue] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ll-preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        let output = try await TestBrowsers.withSlot("BrowserLayoutTests") {
            try await ProcessRunner.run("/usr/bin/chromium", [
                "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
                "--window-size=393,900", "--dump-dom", file.absoluteString,
            ], within: .seconds(120))
        }
        try #require(!output.timedOut, "Chromium did not dump the DOM within 120 s (killed): \(output.stderrText.suffix(2000))")
        #expect(output.status == 0, "\(output.stderrText)")
        let dom = output.stdoutText
        let start = try #require(dom.range(of: "<pre id=\"ll-measured\">"), "no measurements in \(dom.prefix(300))")
        let end = try #require(dom[start.upperBound...].range(of: "</pre>"))
        let json = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONValue.parse(json).arrayValue)
    }
}

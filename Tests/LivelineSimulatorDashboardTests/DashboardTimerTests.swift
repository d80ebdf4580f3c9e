import Foundation
import LivelineCore
import LivelinePreview
import LivelineProcess
import LivelineTesting
import LivelineUI
import Testing
@testable import LivelineSimulatorDashboard

/// The dashboard's timers tick: its script redraws each timer of a preview as LivelinePreview
/// would draw it at the new instant (checked in headless Chromium against the renderer itself).
@Suite struct DashboardTimerTests {
    static let drawn = Date(timeIntervalSince1970: 1_767_250_000)

    /// Timers of every kind: down with and without hours, finished with templates, up, relative.
    static let layout: UILayout = {
        let end = drawn.addingTimeInterval(75 * 60)
        return UILayout {
            LockScreen {
                VStack {
                    Timer(end: end, running: "Boards in {time}", completed: "Boarding now", showHours: true)
                    Timer(end: end)
                    Timer(end: drawn.addingTimeInterval(30), completed: "Done {time}", showHours: true)
                    Timer(start: drawn.addingTimeInterval(-125), direction: .up)
                    Timer(end: end, style: .relative)
                    Timer(start: drawn.addingTimeInterval(-90_000), direction: .up, style: .relative)
                }
            }
        }
    }()

    @Test("the script's timer text equals the renderer's at later instants (hours, finished, up, relative)", arguments: [0.0, 1, 61, 3600, 4600, 90_000])
    func ticking(after: Double) async throws {
        let options = PreviewOptions(at: Self.drawn, presentations: [.lockScreen])
        let first = try #require(ActivityPreview.document(layout: Self.layout, warnings: [], options: options).fragments[.lockScreen])
        var later = options
        later.at = Self.drawn.addingTimeInterval(after)
        let expected = try #require(ActivityPreview.document(layout: Self.layout, warnings: [], options: later).fragments[.lockScreen])
        let now = Int(later.at.timeIntervalSince1970 * 1000)
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"></head><body><div id="root">\(first)</div><script>
            \(DashboardPage.timerScript)
            llTick(document.getElementById("root"), \(now));
            const out = [...document.querySelectorAll(".ll-timer")].map(e => e.textContent);
            const pre = document.createElement("pre"); pre.id = "ll-measured"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
            </script></body></html>
            """
        let ticked = try await Self.render(page)
        let texts = Self.timerTexts(expected)
        #expect(texts.count == 6)
        #expect(ticked == texts, "after \(after) s")
        if after == 0 { #expect(texts[0] == "Boards in 1:15:00" && texts[1] == "75:00") }
        if after == 4600 { #expect(texts[0] == "Boarding now" && texts[2] == "Done 0:00:00") }
    }

    @Test("the page's script ticks the clock and the timers once a second against the simulator's clock")
    func pageTicks() {
        let script = DashboardPage.script
        #expect(script.contains("setInterval(tick, 1000)") && script.contains("llTick(devicesEl, t)") && script.contains("function llTimerText"))
        #expect(!DashboardPage.html.contains(".state-ended"), "the dashboard greys no presentation")
    }

    /// The text of each `.ll-timer` span in a fragment, in order.
    static func timerTexts(_ fragment: String) -> [String] {
        fragment.components(separatedBy: "class=\"ll-text ll-timer\"").dropFirst().compactMap { part in
            guard let open = part.firstIndex(of: ">"), let close = part[open...].range(of: "</span>") else { return nil }
            return Self.unescape(String(part[part.index(after: open)..<close.lowerBound]))
        }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The JSON the page's script wrote, from Chromium's dump of the DOM.
    static func render(_ html: String) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ll-timers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.html")
        try html.write(to: file, atomically: true, encoding: .utf8)
        let output = try await ProcessRunner.run("/usr/bin/chromium", [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
            "--dump-dom", file.absoluteString,
        ])
        #expect(output.status == 0, "\(output.stderrText)")
        let dom = output.stdoutText
        let start = try #require(dom.range(of: "<pre id=\"ll-measured\">"), "no output in \(dom.prefix(300))")
        let end = try #require(dom[start.upperBound...].range(of: "</pre>"))
        let json = Self.unescape(String(dom[start.upperBound..<end.lowerBound]))
        return try #require(try JSONValue.parse(Array(json.utf8)).arrayValue?.compactMap(\.stringValue))
    }
}

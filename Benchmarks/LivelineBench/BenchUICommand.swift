import Foundation
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineToolSupport
import LivelineUI

/// `liveline-bench ui`: flight-tracker render + compress rate, and compact versus compatible bytes.
enum BenchUICommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline-bench ui", abstract: "Benchmark UI encoding: renders per second and compact/compatible bytes.",
        usage: "[--seconds <s>] [--pngs <n>]",
        options: [.init(name: "seconds", valueName: "s", help: "Time per throughput measurement (default 1)."),
                  .init(name: "pngs", valueName: "n", help: "Preview PNGs in the headless-Chromium batch (default 100; 0 skips it).")],
        discussion: """
            Reference: compatibility mode (Voltra's own server output: identity sharing, brotli quality 2).
            Prints compressed bytes of both modes on the flight tracker (three states) and on the spec's
            examples, with the compact/compatible ratio, then layouts rendered and compressed per second.
            Last, the time to render one preview PNG (a warm headless Chromium, a batch of --pngs), against a
            blank page of the same size loaded and photographed in the same session.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let seconds = try arguments.double("seconds") ?? 1
        guard seconds > 0 else { throw arguments.usageError("'--seconds' must be positive, got \(seconds)") }
        let pngs = try arguments.int("pngs") ?? 100
        guard (0...10_000).contains(pngs) else { throw arguments.usageError("'--pngs' must be from 0 to 10000, got \(pngs)") }
        let departure = Date(timeIntervalSince1970: 1_767_258_000)
        let attributes = FlightAttributes.example(departure: departure)
        let template = FlightTemplate()
        let states: [(String, FlightAttributes.ContentState)] = [
            ("flight: scheduled", .init(status: .scheduled, gate: nil, boardingTime: departure.addingTimeInterval(-1800))),
            ("flight: delayed", .init(status: .delayed, gate: "B12", boardingTime: departure.addingTimeInterval(900), delayMinutes: 45)),
            ("flight: boarding", .init(status: .boarding, gate: "B12", boardingTime: departure.addingTimeInterval(-1800), isBoarding: true)),
        ]
        var cases: [(String, UILayout)] = states.map { ($0.0, template.layout(attributes: attributes, state: $0.1)) }
        for (name, form) in specExamples { cases.append((name, try LayoutForm.parse(Array(form.utf8)))) }

        var lines = ["compressed bytes (brotli stream; base64 is 4/3 of it)", ""]
        lines.append(pad("layout", 22) + pad("JSON compat", 12, right: true) + pad("compat", 8, right: true)
            + pad("compact", 9, right: true) + pad("ratio", 8, right: true) + "  compact pick")
        var flightRatios: [Double] = []
        for (name, layout) in cases {
            let compat = VoltraEncoder.encode(layout, mode: .compatible)
            let compact = VoltraEncoder.encode(layout, mode: .compact)
            let ratio = Double(compact.compressed.count) / Double(compat.compressed.count)
            if name.hasPrefix("flight") { flightRatios.append(ratio) }
            lines.append(pad(name, 22) + pad("\(compat.json.count)", 12, right: true) + pad("\(compat.compressed.count)", 8, right: true)
                + pad("\(compact.compressed.count)", 9, right: true) + pad(String(format: "%.3f", ratio), 8, right: true)
                + "  JSON \(compact.json.count) B, q\(compact.quality)")
        }
        let mean = flightRatios.reduce(0, +) / Double(flightRatios.count)
        lines.append("")
        lines.append(String(format: "flight tracker: compact / compatible = %.3f (mean of %d states; target <= 0.85)", mean, flightRatios.count))
        Console.out(lines.joined(separator: "\n"))

        let flight = template.layout(attributes: attributes, state: states[1].1)
        let compatRate = rate(seconds) { _ = VoltraEncoder.encode(flight, mode: .compatible) }
        let compactRate = rate(seconds) { _ = VoltraEncoder.encode(flight, mode: .compact) }
        let dslRate = rate(seconds) { _ = VoltraEncoder.encode(template.layout(attributes: attributes, state: states[1].1), mode: .compatible) }
        Console.out("""

            flight tracker, render + compress per second (one core):
              compatible (reference)      \(String(format: "%9.0f", compatRate)) /s  1.000
              compatible incl. DSL build  \(String(format: "%9.0f", dslRate)) /s  \(String(format: "%.3f", dslRate / compatRate))
              compact (q2 + q11 search)   \(String(format: "%9.0f", compactRate)) /s  \(String(format: "%.3f", compactRate / compatRate))
            """)
        Console.out(fanOutReport(seconds: seconds, template: template, departure: departure))
        if pngs > 0 { Console.out(await previewReport(count: pngs, template: template, attributes: attributes, states: states, departure: departure)) }
        Console.out(try await dashboardLatencyReport())
        return 0
    }

    /// Brotli settings the fan-out table tries on compact's deduplicated JSON: qualities at Voltra's window 22.
    static let fanOutSettings: [BrotliSettings] = [2, 4, 5, 6, 7, 8, 9, 10, 11].map { BrotliSettings(quality: $0, window: 22) }
    /// On the fan-out JSON (no `e`, styles inline): qualities at window 22, then the other encoder
    /// parameters at the mode's quality. No custom dictionary: the device inflates with plain brotli.
    static let flatSettings: [BrotliSettings] = [2, 4, 5, 6, 7, 8, 9].map { BrotliSettings(quality: $0, window: 22) } + {
        let q = BrotliSettings.fanOut.quality
        return [
            BrotliSettings(quality: q, window: 16), BrotliSettings(quality: q, window: 24),
            BrotliSettings(quality: q, mode: .text), BrotliSettings(quality: q, literalContextModeling: false),
            BrotliSettings(quality: q, sizeHint: true), BrotliSettings(quality: q, postfix: 0, direct: 0),
            BrotliSettings(quality: q, postfix: 1, direct: 12), BrotliSettings(quality: q, window: 24, largeWindow: true),
        ]
    }()
    static let fanOutUserCount = 48
    static let fanOutRate = 2000.0
    static let fanOutRatio = 0.80

    /// Layouts of one fan-out: every user's flight tracker differs in flight, passenger name and seat
    /// (the header line), gate, delay and boarding time.
    static func fanOutLayouts(template: FlightTemplate, departure: Date) -> [UILayout] {
        let names = ["A. Silva", "B. Okafor", "C. Müller", "D. Tanaka", "E. Rossi", "F. Haddad", "G. Novak", "H. Kim"]
        return (0..<fanOutUserCount).map { user in
            let attributes = FlightAttributes(flightNumber: "LL \(1200 + user * 7)", origin: "LIS", destination: "ZRH",
                                              airline: "\(names[user % names.count]) · seat \(10 + user % 23)\(["A", "C", "D", "F"][user % 4])",
                                              departure: departure)
            let boarding = departure.addingTimeInterval(Double(-1800 + user * 60))
            let state: FlightAttributes.ContentState = switch user % 3 {
            case 0: .init(status: .scheduled, gate: "A\(user + 1)", boardingTime: boarding)
            case 1: .init(status: .delayed, gate: "B\(user % 17 + 2)", boardingTime: boarding, delayMinutes: 5 * (user % 9 + 1))
            default: .init(status: .boarding, gate: "C\(40 - user % 31)", boardingTime: boarding, isBoarding: true)
            }
            return template.layout(attributes: attributes, state: state)
        }
    }

    /// The fan-out table: per-user layouts per second on one core (thread CPU time, so other load on
    /// the machine does not count) and bytes against compatible mode, for each setting. A `compact JSON`
    /// or `flat JSON` row renders that JSON and compresses it once; the mode's row also renders and
    /// compresses the compatible stream it must never exceed.
    static func fanOutReport(seconds: Double, template: FlightTemplate, departure: Date) -> String {
        let layouts = fanOutLayouts(template: template, departure: departure)
        let compat = layouts.map { VoltraEncoder.encode($0, mode: .compatible).compressed.count }
        func row(_ name: String, decodable: Bool = true, timing: ((UILayout) -> Void)? = nil, _ encode: (UILayout) -> EncodedUI) -> String {
            let ratios = layouts.indices.map { Double(encode(layouts[$0]).compressed.count) / Double(compat[$0]) }
            var next = 0
            let perSecond = cpuRate(seconds) {
                if let timing { timing(layouts[next]) } else { _ = encode(layouts[next]) }
                next = (next + 1) % layouts.count
            }
            let mean = ratios.reduce(0, +) / Double(ratios.count), worst = ratios.max() ?? 0
            let meets = decodable && perSecond >= fanOutRate && worst <= fanOutRatio
            return "  " + pad(name, 26) + pad(String(format: "%.0f", perSecond), 10, right: true)
                + pad(String(format: "%.3f", mean), 8, right: true) + pad(String(format: "%.3f", worst), 8, right: true)
                + "  " + (meets ? "meets" : "no")
        }
        func once(_ mode: EncodingMode, _ settings: BrotliSettings) -> (UILayout) -> EncodedUI {
            { layout in
                let bytes = JSONValue.object(VoltraEncoder.json(layout, mode: mode)).serialized()
                return EncodedUI(mode: mode, json: bytes, compressed: Brotli.compress(bytes, settings), quality: settings.quality, window: settings.window)
            }
        }
        var lines = ["", "fan-out: \(layouts.count) per-user flight-tracker layouts (flight, name, seat, gate, delay differ), one core",
                     "(thread CPU time); targets >= \(Int(fanOutRate)) layouts/s and worst <= \(String(format: "%.2f", fanOutRatio))x compatible bytes", "",
                     "  " + pad("setting", 26) + pad("layouts/s", 10, right: true) + pad("mean", 8, right: true) + pad("worst", 8, right: true) + "  targets"]
        lines.append(row("compact (q2 + q11 search)") { VoltraEncoder.encode($0, mode: .compact) })
        for settings in fanOutSettings {
            lines.append(row("compact JSON, \(settings)", once(.compact, settings)))
        }
        for settings in flatSettings {
            lines.append(row("flat JSON, \(settings)", decodable: !settings.largeWindow, once(.fanOut, settings)))
        }
        lines.append(row("fanOut mode (\(BrotliSettings.fanOut))") { VoltraEncoder.encode($0, mode: .fanOut) })
        // What a service send does per user: the budget checks before and after, the base64 string.
        lines.append(row("fanOut ContentState", timing: { _ = try? VoltraAttributes.ContentState(layout: $0, mode: .fanOut) }) {
            VoltraEncoder.encode($0, mode: .fanOut)
        })
        var next = 0
        func renderRate(_ mode: EncodingMode) -> String {
            String(format: "%.0f", cpuRate(seconds) {
                _ = JSONValue.object(VoltraEncoder.json(layouts[next], mode: mode)).serialized()
                next = (next + 1) % layouts.count
            })
        }
        lines += ["", "compact JSON: styles and elements deduplicated (s, e/$r); flat JSON: fan-out mode's, no e, styles inline;",
                  "fanOut mode: flat JSON at \(BrotliSettings.fanOut), never larger than the compatible stream it also encodes;",
                  "fanOut ContentState: the mode with the budget checks and base64, what a service send runs per user.",
                  "large: a large-window stream, which the device's plain brotli decoder refuses (never meets).",
                  "render + serialize only, layouts/s: flat \(renderRate(.fanOut)), compact \(renderRate(.compact)), compatible \(renderRate(.compatible))"]
        return lines.joined(separator: "\n")
    }

    /// Calls per second of thread CPU time, run for `seconds` of it.
    static func cpuRate(_ seconds: Double, _ body: () -> Void) -> Double {
        func now() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        body()
        let start = now()
        var count = 0
        var elapsed = 0.0
        repeat {
            body()
            count += 1
            elapsed = now() - start
        } while elapsed < seconds
        return Double(count) / elapsed
    }

    static func rate(_ seconds: Double, _ body: () -> Void) -> Double {
        body()
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var elapsed = Duration.zero
        repeat {
            body()
            count += 1
            elapsed = clock.now - start
        } while elapsed < .seconds(seconds)
        let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(count) / s
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let space = String(repeating: " ", count: max(0, width - s.count))
        return right ? space + s : s + space
    }

    /// The wire-format notes' §1.8 examples 1 and 2 in the JSON form (example 3 needs shared objects).
    static let specExamples: [(String, String)] = [
        ("spec: hello", #"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#),
        ("spec: ride", """
            {"lockScreen":{"type":"VStack","props":{"style":{"padding":16,"borderRadius":18,"backgroundColor":"#101828"}},"children":[
            {"type":"Symbol","props":{"name":"car.fill","type":"hierarchical","scale":"large","tintColor":"#38BDF8"}},
            {"type":"Text","props":{"style":{"color":"#F8FAFC","fontSize":18,"fontWeight":"600"}},"children":"Driver arrived"},
            {"type":"Text","props":{"style":{"color":"#94A3B8","fontSize":12,"marginTop":8}},"children":"Ready for pickup"}]}}
            """),
    ]
}

// MARK: - Preview PNGs (headless Chromium)

extension BenchUICommand {
    /// "Time to render one preview PNG (a warm Chromium, batch of `count`)": the flight tracker's Lock
    /// Screen drawn to HTML, loaded from a file and photographed at 3x, one after another in one
    /// session. Reference in the same run and session: a blank page holding one box of the same size,
    /// loaded and photographed the same way (what any PNG costs the browser).
    static func previewReport(count: Int, template: FlightTemplate, attributes: FlightAttributes,
                              states: [(String, FlightAttributes.ContentState)], departure: Date) async -> String {
        let header = "\npreview PNG: flight tracker Lock Screen at 3x, headless Chromium (a warm session), batch of \(count)"
        let capture: PreviewCapture
        do { capture = try await PreviewCapture.start() } catch { return header + "\n  not measured: \(error.message)" }
        let directory = URL(fileURLWithPath: NSTemporaryDirectory() + "liveline-bench-previews-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try PreviewCapture.prepare(directory)
            let options = PreviewOptions(at: departure.addingTimeInterval(-3600), presentations: [.lockScreen])
            let documents = states.map { ActivityPreview.document(layout: template.layout(attributes: attributes, state: $0.1), warnings: [], options: options) }
            guard let box = documents[0].boxes.first else { return header + "\n  not measured: the document has no Lock Screen box" }
            let blank = directory.appendingPathComponent("blank.html")
            try PreviewCapture.write("""
                <!doctype html><html><body style="margin:0"><div id="box" style="width:\(box.width)px;height:\(box.height)px;background:#ffffff"></div></body></html>
                """, to: blank)
            let clock = ContinuousClock()
            func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
            // The reference: load the blank page, photograph its box.
            func reference() async throws {
                try await capture.browser.navigate(to: blank.absoluteString)
                _ = try await capture.browser.screenshot(of: try await capture.browser.element("#box"))
            }
            var renderTime = Duration.zero
            // One preview PNG: render the HTML, write it, load it, photograph the box.
            func preview(_ i: Int) async throws {
                let start = clock.now
                let document = ActivityPreview.document(layout: template.layout(attributes: attributes, state: states[i % states.count].1), warnings: [], options: options)
                renderTime += clock.now - start
                let page = directory.appendingPathComponent("page-\(i % 2).html")
                try PreviewCapture.write(document.html, to: page)
                _ = try await capture.shoot(document, page: page, into: directory)
            }
            for i in 0..<3 { try await reference(); try await preview(i) }  // warm both paths
            renderTime = .zero
            let referenceStart = clock.now
            for _ in 0..<count { try await reference() }
            let referenceTime = seconds(clock.now - referenceStart) / Double(count)
            let previewStart = clock.now
            for i in 0..<count { try await preview(i) }
            let previewTime = seconds(clock.now - previewStart) / Double(count)
            // The screenshot alone: the blank page stays loaded, its box is photographed again and again.
            try await capture.browser.navigate(to: blank.absoluteString)
            let element = try await capture.browser.element("#box")
            let shotStart = clock.now
            for _ in 0..<count { _ = try await capture.browser.screenshot(of: element) }
            let shotTime = seconds(clock.now - shotStart) / Double(count)
            await capture.browser.stop()
            return header + "\n" + """
                  blank page, same size (reference)   \(String(format: "%7.1f", referenceTime * 1000)) ms/PNG  1.000
                  preview: render + load + shoot       \(String(format: "%7.1f", previewTime * 1000)) ms/PNG  \(String(format: "%.3f", previewTime / referenceTime))
                    of which the HTML render (Swift)   \(String(format: "%7.2f", seconds(renderTime) / Double(count) * 1000)) ms
                  the blank box's screenshot alone     \(String(format: "%7.1f", shotTime * 1000)) ms/PNG  \(String(format: "%.3f", shotTime / referenceTime))
                  (\(PreviewCapture.points(box.width))x\(PreviewCapture.points(box.height)) pt box, \(Int(box.width * 3))x\(Int(box.height * 3)) px; wall time, one session)
                """
        } catch {
            return header + "\n  failed: \(error)"
        }
    }
}

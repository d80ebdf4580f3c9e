import Foundation
import LivelineBrowser
import LivelineCore
import LivelinePreview
import LivelineProcess
import LivelineTesting
import LivelineUI
import Testing

/// `liveline preview` run as a process, its PNGs decoded and checked against the document the
/// renderer makes of the same input: each PNG is its box at 3x, the box's background is at its
/// edge, every content region has ink, dark differs from light.
@Suite("liveline preview")
struct PreviewCommandTests {
    static let departure = Date(timeIntervalSince1970: 1_767_258_000)  // 2026-01-01 09:00 UTC
    static let at = departure.addingTimeInterval(-3000)
    static let atArgument = "2026-01-01T08:10:00Z"

    /// The flight tracker's story (as `liveline demo` tells it), each step an APNs body carrying
    /// the attributes and that step's content state.
    static let story: [(name: String, body: JSONValue)] = {
        let flight = FlightAttributes.example(departure: departure)
        var state = FlightAttributes.ContentState(status: .scheduled, gate: "B12", boardingTime: departure.addingTimeInterval(-40 * 60))
        var steps: [(String, JSONValue)] = []
        func add(_ name: String, _ event: LiveActivityPush.Event) {
            let attributes = (try! JSONValue(encoding: flight)).objectValue!
            let content = (try! JSONValue(encoding: state)).objectValue!
            let push = LiveActivityPush(event: event, timestamp: at, contentState: content, attributesType: FlightAttributes.attributesType,
                                        attributes: attributes, alert: event == .start ? Alert(title: "LL 1234", body: "tracked") : nil)
            steps.append((name, push.body))
        }
        add("scheduled", .start)
        state.gate = "C7"
        add("gate change", .update)
        state.status = .delayed
        state.delayMinutes = 25
        state.boardingTime.addTimeInterval(25 * 60)
        add("delay", .update)
        state.status = .boarding
        state.isBoarding = true
        add("boarding", .update)
        state.status = .landed
        state.isBoarding = false
        add("landed", .end)
        return steps
    }()

    /// One `liveline preview` run over several inputs: what it printed and each input's PNGs.
    struct Run {
        var result: CLI.Result
        var directory: URL
        /// Per input folder, each presentation's decoded PNG.
        var images: [String: [Presentation: PNGImage]]

        func page(_ folder: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent("out/\(folder)/index.html"), encoding: .utf8)
        }
    }

    /// Runs `liveline preview` once on `inputs` (each written to `<name>`, in that order) and decodes
    /// every PNG it wrote.
    static func preview(_ inputs: [(name: String, text: String)], _ flags: [String] = []) async throws -> Run {
        let directory = try CLI.temporaryDirectory()
        var files: [String] = []
        for input in inputs {
            let file = directory.appendingPathComponent(input.name)
            try Data(input.text.utf8).write(to: file)
            files.append(file.path)
        }
        let out = directory.appendingPathComponent("out")
        let result = try await TestBrowsers.withSlot("liveline preview \(inputs.map(\.name).joined(separator: " "))") {
            try await CLI.run(["preview"] + files + ["--out", out.path, "--at", atArgument] + flags)
        }
        var images: [String: [Presentation: PNGImage]] = [:]
        for input in inputs {
            let folder = URL(fileURLWithPath: input.name).deletingPathExtension().lastPathComponent
            for presentation in Presentation.allCases {
                if let data = FileManager.default.contents(atPath: out.appendingPathComponent("\(folder)/\(presentation.rawValue).png").path) {
                    images[folder, default: [:]][presentation] = try PNGImage(png: Array(data))
                }
            }
        }
        return Run(result: result, directory: directory, images: images)
    }

    /// The checks every preview's PNGs pass, against the renderer's own document of the same input.
    static func check(_ run: Run, _ folder: String, against document: PreviewDocument) throws {
        let what = folder
        #expect(run.result.status == 0, "\(what): \(run.result.stderr)")
        #expect(try run.page(folder) == document.html, "\(what): index.html is not the renderer's page")
        let images = run.images[folder] ?? [:]
        #expect(images.count == document.boxes.count, "\(what): \(images.keys)")
        #expect(try run.page(folder).contains("<p class=\"ll-source\" data-ll-source>Drawn: "), "\(what): the page does not say what it drew")
        for box in document.boxes {
            let image = try #require(images[box.presentation], "\(what): no \(box.presentation.rawValue).png")
            let name = "\(what) \(box.presentation.rawValue)"
            #expect(run.result.stdout.contains("\(box.presentation.rawValue).png (\(image.width)x\(image.height) px"), "\(name): \(run.result.stdout)")
            // Chromium rounds a fractional box outward to whole device pixels.
            #expect(abs(Double(image.width) - box.width * 3) <= 2 && abs(Double(image.height) - box.height * 3) <= 2,
                    "\(name): \(image.width)x\(image.height) px for a \(box.width)x\(box.height) pt box")
            let background = try #require(PNGImage.Pixel(hex: box.background))
            // Just inside the edge, half way along each side (the corners are rounded): the tint shows on
            // at least two sides (content with a background of its own may reach the others).
            let edges = [(image.width / 2, 4), (image.width / 2, image.height - 5), (4, image.height / 2), (image.width - 5, image.height / 2)]
            let onBackground = edges.filter { image[$0.0, $0.1].distance(to: background) <= 6 }
            #expect(onBackground.count >= 2, "\(name): edges \(edges.map { image[$0.0, $0.1] }), expected \(box.background)")
            for region in box.content {
                let ink = inkPixels(image, region: region, background: background)
                #expect(ink >= 12, "\(name): region \(region.name) (\(region.x),\(region.y) \(region.width)x\(region.height) pt) is blank: \(ink) pixels differ from \(box.background)")
            }
        }
    }

    /// Pixels inside `region` (points, scaled by 3) clearly unlike `background`.
    static func inkPixels(_ image: PNGImage, region: PreviewRegion, background: PNGImage.Pixel) -> Int {
        let x0 = max(0, Int(region.x * 3)), y0 = max(0, Int(region.y * 3))
        let x1 = min(image.width, Int((region.x + region.width) * 3)), y1 = min(image.height, Int((region.y + region.height) * 3))
        guard x1 > x0, y1 > y0 else { return 0 }
        var count = 0
        for y in y0..<y1 {
            for x in x0..<x1 where image[x, y].distance(to: background) > 48 { count += 1 }
        }
        return count
    }

    /// Pixels whose colour differs between two images of the same size.
    static func differingPixels(_ a: PNGImage, _ b: PNGImage) -> Int {
        guard a.width == b.width, a.height == b.height else { return a.width * a.height }
        var count = 0
        a.rgba.withUnsafeBufferPointer { x in
            b.rgba.withUnsafeBufferPointer { y in
                for i in Swift.stride(from: 0, to: x.count, by: 4) {
                    let same = x[i] == y[i] && x[i + 1] == y[i + 1] && x[i + 2] == y[i + 2]
                    if !same { count += 1 }
                }
            }
        }
        return count
    }

    static func options(dark: Bool = false) -> PreviewOptions { PreviewOptions(at: at, dark: dark) }

    @Test("the flight tracker at each step of the story: a PNG per presentation, its box at 3x, its background at the edges, ink where the content is")
    func story() async throws {
        let inputs = Self.story.enumerated().map { (name: "\($0.offset + 1)-\($0.element.name.replacingOccurrences(of: " ", with: "-")).json", text: $0.element.body.prettyPrinted()) }
        let run = try await Self.preview(inputs)
        defer { try? FileManager.default.removeItem(at: run.directory) }
        for (input, step) in zip(inputs, Self.story) {
            let folder = String(input.name.dropLast(5))
            let document = try ActivityPreview.document(apnsBody: Array(step.body.serialized()), options: Self.options())
            // The ink checks have regions to look at: every presentation of the flight tracker has content.
            // The end push ends the activity: its Lock Screen alone is drawn (iOS takes it out of the Island).
            #expect(document.boxes.count == (step.name == "landed" ? 1 : 4) && document.boxes.allSatisfy { !$0.content.isEmpty },
                    "\(folder): \(document.boxes.map { ($0.presentation, $0.content.count) })")
            #expect(try run.page(folder).contains("Drawn: FlightAttributes through its template (Examples/FlightTracker/FlightActivity.template.json, its fields read as FlightActivityAttributes&#39;s)"))
            try Self.check(run, folder, against: document)
            #expect(run.result.stdout.contains("wrote \(run.directory.path)/out/\(folder)/index.html\n"), "\(run.result.stdout)")
        }
        // Each step draws something else (gate, delay, boarding, landing).
        let lockScreens = inputs.compactMap { run.images[String($0.name.dropLast(5))]?[.lockScreen] }
        #expect(lockScreens.count == inputs.count && Set(lockScreens.map(\.rgba)).count == lockScreens.count, "two steps drew the same Lock Screen")
    }

    /// The story as the pushes really go: the start carries the type and attributes, the updates and the end do not.
    static var bareStory: [(name: String, text: String)] {
        story.enumerated().map { index, step in
            var body = step.body
            if index > 0, var aps = body["aps"]?.objectValue {
                aps["attributes-type"] = nil
                aps["attributes"] = nil
                body = ["aps": .object(aps)]
            }
            return ("\(index + 1)-\(step.name.replacingOccurrences(of: " ", with: "-")).json", body.prettyPrinted())
        }
    }

    @Test("--states: the story's pushes (updates without type or attributes) as one page and one PNG, a row per state")
    func states() async throws {
        let run = try await Self.preview(Self.bareStory, ["--states"])
        defer { try? FileManager.default.removeItem(at: run.directory) }
        #expect(run.result.status == 0, "\(run.result.stderr)")
        let page = try String(contentsOf: run.directory.appendingPathComponent("out/strip.html"), encoding: .utf8)
        #expect(page.contains("data-ll-strip=\"5\"") && page.contains(">Delayed 25 min<") && page.contains(">Landed<") && page.contains("5-landed"))
        let data = try #require(FileManager.default.contents(atPath: run.directory.appendingPathComponent("out/strip.png").path))
        let image = try PNGImage(png: Array(data))
        // Five rows, each at least the Lock Screen's 84 points tall, each as wide as name, Lock Screen and compact Island.
        #expect(image.height >= 5 * 84 * 3 && image.width >= (371 + 230) * 3, "\(image.width)x\(image.height)")
        #expect(run.result.stdout.contains("strip.png (\(image.width)x\(image.height) px: 5 states"), "\(run.result.stdout)")
        // Without --states the same bare update is refused, naming the flags that fix it.
        let bare = try await Self.preview([Self.bareStory[3]])
        defer { try? FileManager.default.removeItem(at: bare.directory) }
        #expect(bare.result.status == 1 && bare.result.stderr.contains("--type T --attributes JSON"), "\(bare.result.stderr)")
    }

    @Test("an update body with --start or --type and --attributes; more presentations and a bigger phone with --presentations and --phone")
    func updatesAndPresentations() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = directory.appendingPathComponent("start.json")
        try Data(Self.bareStory[0].text.utf8).write(to: start)
        let attributes = try #require(Self.story[0].body["aps"]?["attributes"]).jsonString
        // Two inputs each, so each gets its folder.
        let viaStart = try await Self.preview([Self.bareStory[3], Self.bareStory[1]], ["--start", start.path])
        let viaType = try await Self.preview([Self.bareStory[3], Self.bareStory[1]], ["--type", "FlightAttributes", "--attributes", attributes])
        defer { try? FileManager.default.removeItem(at: viaStart.directory); try? FileManager.default.removeItem(at: viaType.directory) }
        let options = Self.options()
        let expected = try ActivityPreview.document(apnsBody: Array(Self.story[3].body.serialized()), options: options)
        try Self.check(viaStart, "4-boarding", against: expected)
        try Self.check(viaType, "4-boarding", against: expected)
        // Every presentation of the start push (its alert banner too) on the 440-point phone.
        let all = try await Self.preview([Self.bareStory[0], Self.bareStory[1]], ["--presentations", "all", "--phone", "440", "--start", start.path])
        defer { try? FileManager.default.removeItem(at: all.directory) }
        var wide = options
        wide.presentations = Presentation.allCases
        wide.phone = .iPhone440
        let document = try ActivityPreview.document(apnsBody: Array(Self.story[0].body.serialized()), options: wide)
        #expect(document.boxes.count == Presentation.allCases.count)
        try Self.check(all, "1-scheduled", against: document)
        #expect(all.images["1-scheduled"]?[.lockScreen]?.width == 418 * 3)
        #expect(try all.page("1-scheduled").contains("the Watch shows: <b>LL 1234</b> tracked"))
    }

    /// docs/ui.md's spec examples: one without a tint (the appearance decides its background), one with.
    static let examples: [(name: String, text: String)] = [
        ("hello.json", #"{"lockScreen":{"type":"Text","children":"Hello, world!"}}"#),
        ("ride.json", ##"{"lockScreen":{"type":"VStack","props":{"style":{"padding":16,"borderRadius":18,"backgroundColor":"#101828"}},"children":[{"type":"Symbol","props":{"name":"car.fill","type":"hierarchical","scale":"large","tintColor":"#38BDF8"}},{"type":"Text","props":{"style":{"color":"#F8FAFC","fontSize":18,"fontWeight":"600"}},"children":"Driver arrived"}]}}"##),
    ]

    @Test("--dark: the flight tracker and docs/ui.md's examples as the dark document draws them; an untinted Lock Screen turns dark")
    func dark() async throws {
        let boarding = (name: "boarding.json", text: Self.story[3].body.prettyPrinted())
        async let darkRun = Self.preview([boarding] + Self.examples, ["--dark"])
        async let lightRun = Self.preview(Self.examples)
        let (dark, light) = try await (darkRun, lightRun)
        defer { try? FileManager.default.removeItem(at: dark.directory); try? FileManager.default.removeItem(at: light.directory) }
        try Self.check(dark, "boarding", against: ActivityPreview.document(apnsBody: Array(Self.story[3].body.serialized()), options: Self.options(dark: true)))
        for (name, form) in Self.examples {
            let folder = String(name.dropLast(5))
            let layout = try LayoutForm.parse(Array(form.utf8))
            let warnings = VoltraDecoder.lint(layout).map(\.description)
            try Self.check(dark, folder, against: ActivityPreview.document(layout: layout, warnings: warnings, options: Self.options(dark: true)))
            try Self.check(light, folder, against: ActivityPreview.document(layout: layout, warnings: warnings, options: Self.options()))
            let a = try #require(light.images[folder]?[.lockScreen]), b = try #require(dark.images[folder]?[.lockScreen])
            #expect(a.width == b.width && a.height == b.height)
            #expect(Self.differingPixels(a, b) > 0, "\(folder): light and dark Lock Screens are identical")
        }
        // Without a tint the whole Lock Screen changes; with the ride's own dark card, the card stays.
        let hello = (try #require(light.images["hello"]?[.lockScreen]), try #require(dark.images["hello"]?[.lockScreen]))
        #expect(Self.differingPixels(hello.0, hello.1) > hello.0.width * hello.0.height / 2, "hello: too few pixels differ")
    }

    /// The server-driven fixtures: docs/ui-boarding.json in its three forms, and docs/ui.md's examples.
    static func fixture(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("server-driven UI: docs/ui-boarding.json as a JSON-form layout, as uiJsonData and in an APNs body; docs/ui.md's wire example with its warnings")
    func serverDriven() async throws {
        let form = try Self.fixture("docs/ui-boarding.json")
        let layout = try LayoutForm.parse(Array(form.utf8))
        let encoded = VoltraEncoder.encode(layout, mode: .compact).base64
        let body: JSONValue = ["aps": ["timestamp": 1_767_254_000, "event": "update", "content-state": ["uiJsonData": .string(encoded)]]]
        let wire = #"{"v":1,"ls":{"t":11,"p":{"sp":"8"},"c":[{"t":42},{"t":0,"c":"hi"}]}}"#
        let run = try await Self.preview([("form.json", form), ("string.txt", encoded), ("push.json", body.prettyPrinted()), ("wire.json", wire)])
        defer { try? FileManager.default.removeItem(at: run.directory) }
        let decoded = try VoltraDecoder.lint(base64: encoded)
        let wireDecoded = try VoltraDecoder.lint(json: Array(wire.utf8))
        try Self.check(run, "form", against: ActivityPreview.document(layout: layout, warnings: VoltraDecoder.lint(layout).map(\.description), options: Self.options()))
        try Self.check(run, "string", against: ActivityPreview.document(layout: decoded.layout, warnings: decoded.issues.map(\.description), options: Self.options()))
        try Self.check(run, "push", against: ActivityPreview.document(apnsBody: Array(body.serialized()), options: Self.options()))
        try Self.check(run, "wire", against: ActivityPreview.document(layout: wireDecoded.layout, warnings: wireDecoded.issues.map(\.description), options: Self.options()))
        // The same layout, three ways in: the same pictures.
        #expect(run.images["form"]?[.lockScreen] == run.images["string"]?[.lockScreen])
        #expect(run.images["string"]?[.lockScreen] == run.images["push"]?[.lockScreen])
        #expect(run.result.stderr.contains("warning: wire: ls.c[0].t: unknown component id 42"), "\(run.result.stderr)")
    }
}

@Suite("liveline preview: bad input")
struct PreviewCommandErrorTests {
    static func file(_ text: String) throws -> (URL, String) {
        let dir = try CLI.temporaryDirectory()
        let path = dir.appendingPathComponent("input.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return (dir, path)
    }

    @Test("every bad input is a clear error naming it, and nothing half-written claims success")
    func errors() async throws {
        let (dir, good) = try Self.file(#"{"lockScreen":{"type":"Text","children":"Hi"}}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (badDir, bad) = try Self.file(#"{"aps": {"event": "update", "content-state": {"status": "boarding"}, "attributes-type": "PizzaAttributes"}}"#)
        defer { try? FileManager.default.removeItem(at: badDir) }
        let (jsonDir, notJSON) = try Self.file("{ nope")
        defer { try? FileManager.default.removeItem(at: jsonDir) }
        let out = dir.appendingPathComponent("out").path
        let blocker = dir.appendingPathComponent("file").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let cases: [([String], Int32, String)] = [
            (["preview", good], 64, "missing required option '--out'"),
            (["preview", "--out", out], 64, "expected 1 to 1000 arguments, got none"),
            (["preview", good, dir.appendingPathComponent("sub/input.json").path, "--out", out], 64, "would both write to 'input/'"),
            (["preview", dir.appendingPathComponent("missing.json").path, "--out", out], 1, "missing.json': no such file"),
            (["preview", notJSON, "--out", out], 1, "input.json: not valid JSON"),
            (["preview", bad, "--out", out], 1, "no preview template for attributes type 'PizzaAttributes'"),
            (["preview", good, "--out", out, "--at", "teatime"], 64, "'--at' cannot read 'teatime' as a date"),
            (["preview", good, "--out", out, "--time-zone", "Mars/Olympus"], 64, "'--time-zone' is not a time zone: 'Mars/Olympus'"),
            (["preview", good, "--out", blocker], 1, "'--out' \(blocker) is a file, not a directory"),
            (["preview", good, "--out", blocker + "/sub"], 1, "cannot make the '--out' directory \(blocker)/sub"),
            (["preview", good, "--out", out, "--dpi", "2"], 64, "unknown option '--dpi'"),
            (["preview", good, "--out", out, "--text-size", "huge"], 64, "'--text-size' must be one of xs, s, m, l, xl, xxl, xxxl, ax1"),
            (["preview", good, "--out", out, "--phone", "390"], 64, "'--phone' must be 393, 402 or 440"),
            (["preview", good, "--out", out, "--presentations", "lock-screen,lock"], 64, "unknown presentation 'lock'"),
            (["preview", good, "--out", out, "--attributes", "{}"], 64, "'--attributes' needs '--type'"),
            (["preview", good, "--out", out, "--start", good, "--type", "FlightAttributes"], 64, "'--start' gives the type and attributes"),
            (["preview", good, "--out", out, "--start", good], 1, "'--start' \(good): not an APNs body"),
            (["preview", good, "--out", out, "--type", "FlightAttributes", "--attributes", "[1]"], 1, "'--attributes' is not a JSON object"),
        ]
        for (args, status, message) in cases {
            let result = try await CLI.run(args)
            #expect(result.status == status, "\(args): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains(message), "\(args): \(result.stderr)")
            #expect(!result.stdout.contains(".png"), "\(args): \(result.stdout)")
        }
    }

    @Test("without chromium-driver: index.html is written, then the error names the Debian packages")
    func chromiumMissing() async throws {
        let (dir, good) = try Self.file(#"{"lockScreen":{"type":"Text","children":"Hi"}}"#)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        var environment = ProcessInfo.processInfo.environment
        environment[BrowserInstallation.chromedriverVariable] = "/nonexistent/chromedriver"
        let output = try await ProcessRunner.run(CLI.binary.path, ["preview", good, "--out", out.path], environment: environment)
        #expect(output.status == 1)
        #expect(output.stderrText.contains("error: cannot draw PNGs: chromedriver not found"), "\(output.stderrText)")
        #expect(output.stderrText.contains("apt-get install chromium chromium-driver"), "\(output.stderrText)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("lock-screen.png").path))
    }

    @Test("--help describes the inputs, the files written and the options")
    func help() async throws {
        let result = try await CLI.run(["preview", "--help"])
        #expect(result.status == 0)
        for text in ["USAGE: liveline preview", "--out <dir>", "--at <date>", "--dark", "--time-zone <tz>", "lock-screen.png", "island-expanded.png", "chromium-driver"] {
            #expect(result.stdout.contains(text), "\(text)")
        }
    }
}

@Suite("liveline-bench ui: the preview PNG figure")
struct PreviewBenchTests {
    @Test("liveline-bench ui times preview PNGs against a blank page of the same size in the same session")
    func figure() async throws {
        let result = try await TestBrowsers.withSlot("liveline-bench ui") { try await CLI.bench(["ui", "--seconds", "0.01", "--pngs", "4"]) }
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdout
        #expect(text.contains("preview PNG: flight tracker Lock Screen at 3x, headless Chromium (a warm session), batch of 4"), "\(text)")
        let reference = try #require(text.split(separator: "\n").first { $0.contains("blank page, same size (reference)") })
        #expect(reference.hasSuffix("ms/PNG  1.000"), "\(reference)")
        let preview = try #require(text.split(separator: "\n").first { $0.contains("preview: render + load + shoot") })
        let numbers = preview.split(separator: " ").compactMap { Double($0) }
        #expect(numbers.count == 2 && numbers[0] > 0 && numbers[1] > 0, "\(preview)")
        let bad = try await CLI.bench(["ui", "--pngs", "-1"])
        #expect(bad.status == 64 && bad.stderr.contains("'--pngs' must be from 0 to 10000, got -1"), "\(bad.stderr)")
    }
}

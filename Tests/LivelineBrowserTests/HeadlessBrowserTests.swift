import Foundation
@testable import LivelineBrowser
import LivelineTesting
import Testing

/// Whether the suites that start Chromium run: it and chromedriver are installed, or a full run
/// (`LIVELINE_REQUIRE_SERVERS=1`, as `make test` sets; LivelineTesting's `TestServers`, which this
/// target does not link) requires them and fails naming the packages. Otherwise they are skipped,
/// the skip printing its reason.
enum ChromiumHere {
    static var runs: Bool { (try? BrowserInstallation.locate()) != nil || ProcessInfo.processInfo.environment["LIVELINE_REQUIRE_SERVERS"] == "1" }
}

/// One warm Chromium for the suite (its tests run one after another: a session draws one page at
/// a time). Started on first use; this process's exit ends it (the driver's group dies with it).
enum SharedBrowser {
    static let started = Task { try await HeadlessBrowser.start(BrowserOptions(windowWidth: 600, windowHeight: 500)) }

    /// Runs `body` with the shared browser while holding a browser slot (LivelineTesting's
    /// `TestBrowsers.withSlot`): an idle Chromium costs memory, not a core.
    static func use<T: Sendable>(_ what: String, _ body: (HeadlessBrowser) async throws -> T) async throws -> T {
        try await TestBrowsers.withSlot("HeadlessBrowserTests.\(what)") { try await body(try await started.value) }
    }
}

@Suite("headless Chromium over WebDriver", .serialized, .enabled(if: ChromiumHere.runs, "SKIPPED: chromium or chromedriver is not installed: install Debian's chromium and chromium-driver packages (scripts/install-deps.sh test); LIVELINE_REQUIRE_SERVERS=1 makes this a failure"))
struct HeadlessBrowserTests {
    /// Three colour bands, a black-to-white gradient and a label, at known places.
    static let page = """
        <!doctype html><html><head><style>
        body { margin: 0; background: #ffffff; }
        #bands { position: absolute; left: 20px; top: 30px; width: 120px; height: 40px; display: flex; }
        #bands div { flex: 1; }
        #ramp { position: absolute; left: 10.5px; top: 100px; width: 256px; height: 12px; background: linear-gradient(to right, #000000, #ffffff); }
        .label { position: absolute; left: 300px; top: 30px; font: 20px sans-serif; color: #123456; }
        </style></head><body>
        <div id="bands"><div style="background:#ff0000"></div><div style="background:#00ff00"></div><div style="background:#0a64c8"></div></div>
        <div id="ramp"></div><div class="label">Gate C7</div><div class="label" style="top:60px">Boarding</div>
        </body></html>
        """

    @Test("an element's rect is in CSS pixels and its screenshot is 3x that, with the page's colours")
    func elementScreenshot() async throws {
        try await SharedBrowser.use(#function) { browser in
            try await browser.load(html: Self.page)
            let bands = try await browser.element("#bands")
            #expect(try await browser.rect(of: bands) == ElementRect(x: 20, y: 30, width: 120, height: 40))
            let image = try PNGImage(png: try await browser.screenshot(of: bands))
            #expect(image.width == 360 && image.height == 120)
            let expected = ["#FF0000", "#00FF00", "#0A64C8"].compactMap(PNGImage.Pixel.init(hex:))
            for (band, colour) in expected.enumerated() {
                for y in [2, 60, 117] {
                    let pixel = image[band * 120 + 60, y]
                    #expect(pixel.distance(to: colour) <= 2, "band \(band) at y \(y): \(pixel), expected \(colour)")
                }
            }
            // The bands' edges are where the page puts them (40 CSS px each).
            #expect(image[118, 60].distance(to: expected[0]) <= 2 && image[122, 60].distance(to: expected[1]) <= 2)
        }
    }

    @Test("a gradient comes back as a ramp: dark at the left, light at the right, rising across")
    func gradient() async throws {
        try await SharedBrowser.use(#function) { browser in
            try await browser.load(html: Self.page)
            let image = try PNGImage(png: try await browser.screenshot(of: try await browser.element("#ramp")))
            #expect(image.height == 36)
            #expect(abs(image.width - 768) <= 3, "\(image.width)")
            let row = (0..<image.width).map { Int(image[$0, 18].green) }
            #expect(row.first! < 8 && row.last! > 247, "ends \(row.first!) and \(row.last!)")
            let rises = zip(row, row.dropFirst()).allSatisfy { $1 >= $0 - 1 }
            #expect(rises, "not monotonic: \(row)")
            let middle = image[image.width / 2, 18]
            #expect(abs(Int(middle.red) - 128) <= 12 && middle.red == middle.green && middle.green == middle.blue, "\(middle)")
        }
    }

    @Test("a viewport screenshot is the window's viewport at 3x; text draws ink in its label's colour")
    func viewportAndText() async throws {
        try await SharedBrowser.use(#function) { browser in
            try await browser.load(html: Self.page)
            let size = try await browser.execute("return [innerWidth, innerHeight, devicePixelRatio]")
            let numbers = size.arrayValue?.compactMap(\.doubleValue) ?? []
            #expect(numbers.count == 3 && numbers[2] == 3, "\(size)")
            let image = try PNGImage(png: try await browser.screenshot())
            #expect(Double(image.width) == numbers[0] * 3 && Double(image.height) == numbers[1] * 3)
            let labels = try await browser.elements(".label")
            #expect(labels.count == 2)
            let label = try PNGImage(png: try await browser.screenshot(of: labels[1]))
            let ink = PNGImage.Pixel(hex: "#123456")!
            let inked = (0..<label.height).flatMap { y in (0..<label.width).map { label[$0, y] } }.filter { $0.distance(to: ink) <= 24 }
            #expect(inked.count > 100, "only \(inked.count) pixels near \(ink) in the text")
        }
    }

    @Test("scripts take arguments and return JSON; a throwing script and a missing element are errors naming them")
    func scriptsAndErrors() async throws {
        try await SharedBrowser.use(#function) { browser in
            try await browser.load(html: Self.page)
            let value = try await browser.execute("return {sum: arguments[0] + arguments[1], text: document.querySelector(arguments[2]).textContent, ok: true, none: null}",
                                                  [.number(2), .number(40), .string(".label")])
            #expect(value == .object(["sum": .number(42), "text": .string("Gate C7"), "ok": .bool(true), "none": .null]))
            await #expect { try await browser.element("#nowhere") } throws: { error in
                "\(error)".contains("find '#nowhere': no such element")
            }
            await #expect { try await browser.execute("throw new Error('the page refused')") } throws: { error in
                "\(error)".contains("javascript error") && "\(error)".contains("the page refused")
            }
            // The session still works after errors.
            #expect(try await browser.execute("return 1 + 1") == .number(2))
        }
    }

    @Test("a file:// page opens like a data: page")
    func fileURL() async throws {
        try await SharedBrowser.use(#function) { browser in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-browser-\(UUID().uuidString).html")
            try Data(Self.page.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            try await browser.navigate(to: file.absoluteString)
            #expect(try await browser.execute("return location.protocol") == .string("file:"))
            #expect(try await browser.rect(of: try await browser.element("#ramp")) == ElementRect(x: 10.5, y: 100, width: 256, height: 12))
        }
    }
}

@Suite("starting Chromium: missing programs and failures")
struct BrowserStartTests {
    @Test("a missing chromedriver or chromium names the Debian packages to install")
    func missing() throws {
        #expect(throws: BrowserError.self) { try BrowserInstallation.locate(environment: ["PATH": "/nonexistent"]) }
        do {
            _ = try BrowserInstallation.locate(environment: ["PATH": "/usr/bin", BrowserInstallation.chromedriverVariable: "/nonexistent/chromedriver"])
            Issue.record("located a missing chromedriver")
        } catch {
            #expect(error.description.contains("chromedriver not found: LIVELINE_CHROMEDRIVER is '/nonexistent/chromedriver'"), "\(error)")
            #expect(error.description.contains("chromium-driver"), "\(error)")
        }
        do {
            _ = try BrowserInstallation.locate(environment: ["PATH": "/nonexistent"])
        } catch {
            #expect(error.description == "chromium not found on PATH (or set LIVELINE_CHROMIUM); \(BrowserInstallation.installHint)")
        }
    }

    @Test("a chromedriver that exits at once is reported with what it printed")
    func driverFails() async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-fake-driver-\(UUID().uuidString)")
        try Data("#!/bin/sh\necho \"fake driver: port $1 refused\"\nexit 3\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        defer { try? FileManager.default.removeItem(at: script) }
        let options = BrowserOptions(installation: BrowserInstallation(chromium: "/usr/bin/chromium", chromedriver: script.path))
        await #expect { try await HeadlessBrowser.start(options) } throws: { error in
            let text = "\(error)"
            return text.contains("did not start") && text.contains("fake driver: port --port=0 refused") && text.contains("exited with status 3")
        }
    }

    @Test("a chromedriver that prints its banner and then nothing is started again once, and the second one serves", .enabled(if: ChromiumHere.runs, "SKIPPED: chromium or chromedriver is not installed (Debian's chromium and chromium-driver packages)"))
    func silentDriverIsStartedAgain() async throws {
        let installation = try BrowserInstallation.locate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-silent-driver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first start prints a banner and hangs; the second is the real chromedriver.
        let marker = directory.appendingPathComponent("started-once").path
        let script = directory.appendingPathComponent("driver")
        try Data("""
            #!/bin/sh
            if [ -e '\(marker)' ]; then exec '\(installation.chromedriver)' "$@"; fi
            touch '\(marker)'
            echo "Starting ChromeDriver (fake) on port 0"
            exec sleep 120

            """.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let options = BrowserOptions(installation: BrowserInstallation(chromium: installation.chromium, chromedriver: script.path), startTimeout: .seconds(3))
        try await TestBrowsers.withSlot("HeadlessBrowserTests.\(#function)") {
            let browser = try await HeadlessBrowser.start(options)
            #expect(FileManager.default.fileExists(atPath: marker), "the first, silent start did not happen")
            await browser.stop()
        }
    }

    @Test("a Chromium that does not start is reported with chromedriver's reason", .enabled(if: ChromiumHere.runs, "SKIPPED: chromium or chromedriver is not installed (Debian's chromium and chromium-driver packages)"))
    func chromiumFails() async throws {
        let installation = try BrowserInstallation.locate()
        let options = BrowserOptions(installation: BrowserInstallation(chromium: "/bin/false", chromedriver: installation.chromedriver))
        // A real chromedriver: it holds a browser slot like the other starts.
        try await TestBrowsers.withSlot("HeadlessBrowserTests.\(#function)") {
            await #expect { try await HeadlessBrowser.start(options) } throws: { error in
                let text = "\(error)"
                return text.contains("/bin/false did not start through chromedriver") && text.contains("session not created")
            }
        }
    }

    @Test("stop ends Chromium and chromedriver: the whole process group is gone", .enabled(if: ChromiumHere.runs, "SKIPPED: chromium or chromedriver is not installed (Debian's chromium and chromium-driver packages)"))
    func stop() async throws {
        try await TestBrowsers.withSlot("HeadlessBrowserTests.\(#function)") {
            let browser = try await HeadlessBrowser.start()
            let group = browser.processGroup
            #expect(!Self.members(of: group).isEmpty)
            await browser.stop()
            try await withDeadline("chromedriver's process group to be gone", within: .seconds(30)) { await browser.waitUntilGone() }
            // A process SIGKILLed a moment ago may still be exiting (seen once in a full run): wait
            // for the group to empty, with a deadline, rather than look once.
            try await until("every process of group \(group) to be gone", within: .seconds(30)) {
                Self.members(of: group).isEmpty
            }
        }
    }

    @Test("when this process dies (its end of the guard pipe closes) the group's leader kills chromedriver and Chromium", .enabled(if: ChromiumHere.runs, "SKIPPED: chromium or chromedriver is not installed (Debian's chromium and chromium-driver packages)"))
    func parentDeath() async throws {
        try await TestBrowsers.withSlot("HeadlessBrowserTests.\(#function)") {
            let browser = try await HeadlessBrowser.start()
            let group = browser.processGroup
            #expect(try await browser.execute("return 6 * 7") == .number(42))
            #expect(Self.members(of: group).count >= 3, "\(Self.members(of: group))")  // the shell, chromedriver, Chromium
            browser.releaseGuardPipe()
            try await withDeadline("chromedriver's process group to be gone", within: .seconds(30)) { await browser.waitUntilGone() }
            // A process SIGKILLed a moment ago may still be exiting (seen once in a full run): wait
            // for the group to empty, with a deadline, rather than look once.
            try await until("every process of group \(group) to be gone", within: .seconds(30)) {
                Self.members(of: group).isEmpty
            }
        }
    }

    /// Live (not zombie) processes whose process group is `group`, from /proc.
    static func members(of group: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && fields[0] != "Z" && Int32(fields[2]) == group
        }
    }
}

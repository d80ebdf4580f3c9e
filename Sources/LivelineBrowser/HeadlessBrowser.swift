import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How to start the browser.
public struct BrowserOptions: Sendable {
    /// The executables (nil: `BrowserInstallation.locate()`).
    public var installation: BrowserInstallation?
    /// The window's size in CSS pixels (the viewport is a little smaller).
    public var windowWidth: Int
    public var windowHeight: Int
    /// Device pixels per CSS pixel: 3 draws at an iPhone's scale.
    public var scale: Int
    /// The longest chromedriver and Chromium may take to start (a loaded machine is slow).
    public var startTimeout: Duration
    /// The longest one command (a page load, a screenshot) may take.
    public var commandTimeout: Duration

    public init(installation: BrowserInstallation? = nil, windowWidth: Int = 1000, windowHeight: Int = 1400, scale: Int = 3,
                startTimeout: Duration = .seconds(90), commandTimeout: Duration = .seconds(60)) {
        self.installation = installation
        self.windowWidth = windowWidth
        self.windowHeight = windowHeight
        self.scale = scale
        self.startTimeout = startTimeout
        self.commandTimeout = commandTimeout
    }
}

/// An element found in the current page (a WebDriver element reference).
public struct BrowserElement: Sendable, Hashable {
    public let id: String
}

/// An element's position and size in CSS pixels, relative to the document.
public struct ElementRect: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double
}

/// A headless Chromium driven through chromedriver over the W3C WebDriver HTTP protocol: one
/// session, kept warm for many pages. Commands run one at a time; `stop()` (or the last reference
/// going away, or this process dying) ends chromedriver and every Chromium process.
///
/// Module: LivelineBrowser owns a headless Chromium through chromedriver (W3C WebDriver) and the
/// PNG decoder. It imports libcurl and zlib only and must never import another Liveline module: it
/// drives pages, whatever draws them.
public final class HeadlessBrowser: Sendable {
    private let driver: DriverProcess
    private let http: CurlClient
    private let sessionURL: String
    private let profile: String
    /// The device pixels per CSS pixel the session draws at.
    public let scale: Int

    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// Starts chromedriver on a free port, waits for its readiness line, and opens a session.
    /// - Throws: `BrowserError` when a program is missing (naming the Debian packages) or does not
    ///   start (with what it printed).
    public static func start(_ options: BrowserOptions = BrowserOptions()) async throws(BrowserError) -> HeadlessBrowser {
        let installation: BrowserInstallation
        if let given = options.installation { installation = given } else { installation = try BrowserInstallation.locate() }
        // chromedriver prints its readiness line within a second. Once in a long while (seen once
        // in a CI run) it prints its banner and then nothing: a second start, after a shorter
        // first wait, is the cure; both waits together stay within twice `startTimeout`.
        var started: (driver: DriverProcess, port: Int)?
        var silent: DriverProcess?
        for wait in [min(options.startTimeout, .seconds(15)), options.startTimeout] {
            let driver = try DriverProcess.start(installation.chromedriver, ["--port=0"])
            let port = await driver.waitForOutput(timeout: wait) { text -> Int? in
                guard let range = text.range(of: "started successfully on port ") else { return nil }
                return Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            if let port { started = (driver, port); break }
            driver.stop()
            silent = driver
        }
        guard let (driver, port) = started else {
            throw BrowserError("\(installation.chromedriver) did not start, twice (no readiness line within \(options.startTimeout)); it printed: \(Self.excerpt(silent?.output ?? ""))")
        }
        let http = try CurlClient(timeout: options.commandTimeout)
        removeAbandonedProfiles()
        let profile = NSTemporaryDirectory() + profilePrefix + "\(getpid())-\(UUID().uuidString.prefix(8))"
        var args: [BrowserJSON] = [
            "--headless=new", "--disable-gpu", "--hide-scrollbars", "--mute-audio", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-crash-reporter", "--disable-dev-shm-usage",
            .string("--force-device-scale-factor=\(options.scale)"),
            .string("--window-size=\(options.windowWidth),\(options.windowHeight)"),
            .string("--user-data-dir=\(profile)"),
        ]
        // Chromium's sandbox refuses to run as root.
        if geteuid() == 0 { args.append("--no-sandbox") }
        let capabilities: BrowserJSON = .object(["capabilities": .object(["alwaysMatch": .object([
            "browserName": "chrome",
            "goog:chromeOptions": .object(["binary": .string(installation.chromium), "args": .array(args)]),
        ])])])
        let base = "http://127.0.0.1:\(port)"
        do throws(BrowserError) {
            let value = try await command(http, "POST", base + "/session", capabilities, what: "new session")
            guard let id = value["sessionId"]?.stringValue else { throw BrowserError("new session: no sessionId in \(value)") }
            return HeadlessBrowser(driver: driver, http: http, sessionURL: base + "/session/" + id, profile: profile, scale: options.scale)
        } catch {
            driver.stop()
            try? FileManager.default.removeItem(atPath: profile)
            throw BrowserError("\(installation.chromium) did not start through chromedriver: \(error.description); chromedriver printed: \(Self.excerpt(driver.output))")
        }
    }

    private init(driver: DriverProcess, http: CurlClient, sessionURL: String, profile: String, scale: Int) {
        self.driver = driver
        self.http = http
        self.sessionURL = sessionURL
        self.profile = profile
        self.scale = scale
    }

    deinit {
        driver.stop()
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Ends the session (Chromium quits), then chromedriver. Commands fail afterwards.
    public func stop() async {
        _ = try? await Self.command(http, "DELETE", sessionURL, nil, what: "delete session")
        driver.stop()
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// The process group of chromedriver and Chromium (for tests).
    var processGroup: Int32 { driver.groupID }

    /// Closes the pipe whose end-of-file makes the group's leader kill the group, as this process's
    /// death would (for tests).
    func releaseGuardPipe() { driver.releaseGuardPipe() }

    /// Waits until chromedriver and Chromium have exited (after `stop()`).
    func waitUntilGone() async { await driver.waitUntilExited() }

    /// Opens `url` (`file://`, `data:`, `http://`) and waits for the page's load event.
    public func navigate(to url: String) async throws(BrowserError) {
        _ = try await session("POST", "/url", .object(["url": .string(url)]), what: "navigate to \(url.prefix(80))")
    }

    /// Opens `html` as a `data:` URL.
    public func load(html: String) async throws(BrowserError) {
        try await navigate(to: "data:text/html;charset=utf-8;base64," + Data(html.utf8).base64EncodedString())
    }

    /// The first element matching the CSS `selector`.
    /// - Throws: `BrowserError` naming the selector when nothing matches.
    public func element(_ selector: String) async throws(BrowserError) -> BrowserElement {
        let value = try await session("POST", "/element", .object(["using": "css selector", "value": .string(selector)]), what: "find '\(selector)'")
        guard let id = value[Self.elementKey]?.stringValue else { throw BrowserError("find '\(selector)': no element reference in \(value)") }
        return BrowserElement(id: id)
    }

    /// Every element matching the CSS `selector`, in document order (none is not an error).
    public func elements(_ selector: String) async throws(BrowserError) -> [BrowserElement] {
        let value = try await session("POST", "/elements", .object(["using": "css selector", "value": .string(selector)]), what: "find all '\(selector)'")
        return (value.arrayValue ?? []).compactMap { $0[Self.elementKey]?.stringValue.map(BrowserElement.init) }
    }

    /// Where `element` is and how big, in CSS pixels.
    public func rect(of element: BrowserElement) async throws(BrowserError) -> ElementRect {
        let value = try await session("GET", "/element/\(element.id)/rect", nil, what: "element rect")
        guard let x = value["x"]?.doubleValue, let y = value["y"]?.doubleValue,
              let width = value["width"]?.doubleValue, let height = value["height"]?.doubleValue else {
            throw BrowserError("element rect: unexpected answer \(value)")
        }
        return ElementRect(x: x, y: y, width: width, height: height)
    }

    /// A PNG of `element` as drawn (scrolled into view first), at `scale` device pixels per CSS pixel.
    public func screenshot(of element: BrowserElement) async throws(BrowserError) -> [UInt8] {
        try Self.png(try await session("GET", "/element/\(element.id)/screenshot", nil, what: "element screenshot"))
    }

    /// A PNG of the viewport.
    public func screenshot() async throws(BrowserError) -> [UInt8] {
        try Self.png(try await session("GET", "/screenshot", nil, what: "screenshot"))
    }

    /// Runs `script` (a function body: `return` gives the result) with `arguments` as `arguments[i]`.
    /// - Throws: `BrowserError` with the JavaScript error's message when it throws.
    @discardableResult
    public func execute(_ script: String, _ arguments: [BrowserJSON] = []) async throws(BrowserError) -> BrowserJSON {
        try await session("POST", "/execute/sync", .object(["script": .string(script), "args": .array(arguments)]), what: "execute script")
    }

    private func session(_ method: String, _ path: String, _ body: BrowserJSON?, what: String) async throws(BrowserError) -> BrowserJSON {
        try await Self.command(http, method, sessionURL + path, body ?? (method == "POST" ? .object([:]) : nil), what: what)
    }

    /// One WebDriver command: the answer's `value`, or its error as a `BrowserError`.
    private static func command(_ http: CurlClient, _ method: String, _ url: String, _ body: BrowserJSON?, what: String) async throws(BrowserError) -> BrowserJSON {
        let bytes: [UInt8]?
        do { bytes = try body.map { Array(try JSONEncoder().encode($0)) } } catch { throw BrowserError("\(what): cannot encode the request: \(error)") }
        let response = try await http.send(method, url, body: bytes)
        let value: BrowserJSON
        do {
            value = try JSONDecoder().decode(Envelope.self, from: Data(response.body)).value
        } catch {
            throw BrowserError("\(what): HTTP \(response.status), not a WebDriver answer: \(excerpt(String(decoding: response.body, as: UTF8.self)))")
        }
        if let error = value["error"]?.stringValue {
            let message = value["message"]?.stringValue.map { String($0.prefix { $0 != "\n" }) } ?? ""
            throw BrowserError("\(what): \(error)\(message.isEmpty ? "" : ": " + message)")
        }
        guard (200..<300).contains(response.status) else { throw BrowserError("\(what): HTTP \(response.status)") }
        return value
    }

    private struct Envelope: Decodable {
        var value: BrowserJSON
    }

    private static func png(_ value: BrowserJSON) throws(BrowserError) -> [UInt8] {
        guard let text = value.stringValue, let data = Data(base64Encoded: text) else { throw BrowserError("screenshot: the answer is not base64") }
        return Array(data)
    }

    /// Throw-away Chromium profiles are `<tmp>/liveline-chromium-<pid>-<random>`.
    private static let profilePrefix = "liveline-chromium-"

    /// Removes the profiles of processes that are gone: a process that dies (rather than stopping
    /// its browser) takes its Chromium with it, but leaves the profile behind.
    private static func removeAbandonedProfiles() {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(profilePrefix) {
            guard let pid = Int32(name.dropFirst(profilePrefix.count).prefix { $0 != "-" }), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH { try? FileManager.default.removeItem(atPath: temporary + name) }
        }
    }

    /// The last lines of a program's output, for an error message.
    static func excerpt(_ text: String) -> String {
        let lines = text.split(separator: "\n").suffix(12)
        return lines.isEmpty ? "(nothing)" : lines.joined(separator: " | ")
    }
}

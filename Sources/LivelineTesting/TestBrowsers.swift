import Foundation

/// Whether the browser suites can run here: they drive Debian's Chromium (through chromedriver,
/// from Swift or from `/usr/bin/python3` with python3-selenium) and firefox-esr.
///
/// Without them a browser suite is skipped, and says so: its `.enabled(if: TestBrowsers.…, …)`
/// comment is printed as the skip's reason. With `LIVELINE_REQUIRE_SERVERS=1` (a full run:
/// `make test` sets it) the suites run regardless and fail, naming what is missing.
public enum TestBrowsers {
    /// The Debian packages the browser suites need.
    public static let packages = "chromium chromium-driver python3-selenium firefox-esr (scripts/install-deps.sh test)"

    /// Whether `name` is an executable in a directory of `PATH` (or is an executable path).
    static func installed(_ name: String) -> Bool {
        if name.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: name) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }

    /// What of Chromium, chromedriver and Debian's python3-selenium is missing (empty: nothing).
    public static var chromiumMissing: [String] {
        var missing = ["chromium", "chromedriver"].filter { !installed($0) }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium") { missing.append("python3-selenium") }
        return missing
    }

    /// Whether the Chromium suites run: everything is installed, or a full run requires them.
    public static var chromiumRuns: Bool { chromiumMissing.isEmpty || TestServers.required }

    /// Whether the Firefox suite runs: firefox-esr and Debian's python3-websockets are installed,
    /// or a full run requires them.
    public static var firefoxRuns: Bool {
        (installed("/usr/bin/firefox-esr") && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/websockets")) || TestServers.required
    }
}

import Foundation
import LivelineProcess
import LivelineTesting
import Testing

@Suite("Dashboard: in real browsers (headless Chromium through chromedriver and python3-selenium; headless Firefox over WebDriver BiDi)", .serialized)
struct DashboardBrowserTests {
    /// Runs `Tests/Browser/SCRIPT` with Debian's python3 (it has python3-selenium and
    /// python3-websockets), not whatever python3 is first on PATH, against the built `liveline`.
    static func runScript(_ script: String) async throws -> ProcessOutput {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/\(script)").path
        let liveline = BuiltProduct.path("liveline")
        try #require(FileManager.default.isExecutableFile(atPath: liveline), "build liveline first (swift build --build-tests builds it): \(liveline)")
        let output = try await TestBrowsers.withSlot(script) { try await ProcessRunner.run("/usr/bin/python3", [path, liveline], within: .seconds(300)) }
        guard !output.timedOut else { throw TestingError("\(script) did not finish within 300 s (killed with its browser): \(output.stdoutText.suffix(2000)) \(output.stderrText.suffix(2000))") }
        return output
    }

    @Test("Chromium: a push changes the device's DOM, a tap is recorded and forwarded, the keyboard works the controls, a screenshot is not blank, 50 devices render", .enabled(if: TestBrowsers.chromiumRuns, "SKIPPED: Chromium, chromedriver or python3-selenium is not installed: install Debian's chromium, chromium-driver and python3-selenium (scripts/install-deps.sh test); LIVELINE_REQUIRE_SERVERS=1 makes this a failure"))
    func dashboardInChromium() async throws {
        let result = try await Self.runScript("dashboard_test.py")
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.contains("dashboard browser test passed"), "\(result.stdoutText)\(result.stderrText)")
    }

    @Test("Firefox: the page loads and streams, a push-to-start and an update change the device's DOM, a tap is forwarded, a screenshot is not blank", .enabled(if: TestBrowsers.firefoxRuns, "SKIPPED: firefox-esr is not installed: install Debian's firefox-esr and python3-websockets (scripts/install-deps.sh test); LIVELINE_REQUIRE_SERVERS=1 makes this a failure"))
    func dashboardInFirefox() async throws {
        let result = try await Self.runScript("dashboard_firefox_test.py")
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.contains("dashboard Firefox test passed"), "\(result.stdoutText)\(result.stderrText)")
    }
}

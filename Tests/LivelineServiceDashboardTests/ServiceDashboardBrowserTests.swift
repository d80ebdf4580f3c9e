import Foundation
import LivelineProcess
import LivelineTesting
import Testing

@Suite("The service's dashboard in a real browser (headless Chromium through chromedriver and python3-selenium)")
struct ServiceDashboardBrowserTests {
    @Test("liveline serve --dashboard against a liveline simulator: a start and an update become sent in the DOM, each send gets a picture of its Lock Screen with the right gate and what it drew named, a screenshot is not blank", .enabled(if: TestBrowsers.chromiumRuns, "SKIPPED: Chromium, chromedriver or python3-selenium is not installed: install Debian's chromium, chromium-driver and python3-selenium (scripts/install-deps.sh test); LIVELINE_REQUIRE_SERVERS=1 makes this a failure"))
    func serviceDashboardInChromium() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/service_dashboard_test.py").path
        let liveline = BuiltProduct.path("liveline")
        try #require(FileManager.default.isExecutableFile(atPath: liveline), "build liveline first (swift build --build-tests builds it): \(liveline)")
        // Debian's python3 (it has python3-selenium), not whatever python3 is first on PATH.
        let result = try await TestBrowsers.withSlot("service_dashboard_test.py") {
            try await ProcessRunner.run("/usr/bin/python3", [script, liveline], within: .seconds(300))
        }
        #expect(!result.timedOut, "service_dashboard_test.py did not finish within 300 s (killed with its browser)")
        #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
        #expect(result.stdoutText.contains("service dashboard browser test passed"), "\(result.stdoutText)\(result.stderrText)")
    }
}

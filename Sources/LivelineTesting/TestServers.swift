import Foundation

/// Whether this test run must have every outside server and program (PostgreSQL, Chromium,
/// Firefox): `LIVELINE_REQUIRE_SERVERS=1`, which `make test` sets. Then a suite that would be
/// skipped for want of one runs and fails, naming what to install or run; otherwise it is
/// skipped with that reason printed.
public enum TestServers {
    /// The variable that makes a missing server fail its suites instead of skipping them.
    public static let requireVariable = "LIVELINE_REQUIRE_SERVERS"

    /// Whether this run requires every server (`LIVELINE_REQUIRE_SERVERS=1`).
    public static var required: Bool { ProcessInfo.processInfo.environment[requireVariable] == "1" }
}

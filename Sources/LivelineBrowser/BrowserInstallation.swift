import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where Chromium and chromedriver are: `LIVELINE_CHROMIUM` and `LIVELINE_CHROMEDRIVER` when set,
/// else `chromium` and `chromedriver` on `PATH` (Debian's `chromium` and `chromium-driver` packages
/// put them in /usr/bin).
public struct BrowserInstallation: Sendable, Equatable {
    /// The Chromium executable.
    public var chromium: String
    /// The chromedriver executable.
    public var chromedriver: String

    public static let chromiumVariable = "LIVELINE_CHROMIUM"
    public static let chromedriverVariable = "LIVELINE_CHROMEDRIVER"
    /// What to install when either is missing.
    public static let installHint = "install Debian's chromium and chromium-driver packages (apt-get install chromium chromium-driver, or scripts/install-deps.sh test)"

    public init(chromium: String, chromedriver: String) {
        self.chromium = chromium
        self.chromedriver = chromedriver
    }

    /// Finds both executables.
    /// - Throws: `BrowserError` naming the missing program and the packages to install.
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) throws(BrowserError) -> BrowserInstallation {
        BrowserInstallation(
            chromium: try find("chromium", variable: chromiumVariable, environment: environment),
            chromedriver: try find("chromedriver", variable: chromedriverVariable, environment: environment))
    }

    private static func find(_ name: String, variable: String, environment: [String: String]) throws(BrowserError) -> String {
        if let path = environment[variable], !path.isEmpty {
            guard access(path, X_OK) == 0 else {
                throw BrowserError("\(name) not found: \(variable) is '\(path)', which is not an executable file; \(installHint)")
            }
            return path
        }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = directory + "/" + name
            if access(path, X_OK) == 0 { return path }
        }
        throw BrowserError("\(name) not found on PATH (or set \(variable)); \(installHint)")
    }
}

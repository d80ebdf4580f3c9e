// swift-tools-version:6.0
import PackageDescription

// The module graph, arrows one way: each line is `the modules it imports <- a module`; a module
// alone on its line imports no other Liveline module. C libraries (system-library targets) are in
// parentheses. docs/architecture.md says what each module owns.
//   LivelineCore (the payload contract; Foundation only, builds for iOS)
//   LivelineCore <- LivelineUI (Voltra's wire format; brotli)
//   LivelineCore, LivelineUI <- LivelinePreview (text and HTML previews; Foundation only)
//   LivelineCore <- LivelineKit (the app side; Foundation only, builds for iOS)
//   LivelineCrypto (P-256 keys, ES256 JWTs, certificates, SHA-256/HMAC; OpenSSL)
//   LivelineHTTP2 (HTTP/2 client and server; nghttp2, OpenSSL, epoll; not a product)
//   LivelineCore, LivelineCrypto, LivelineHTTP2 <- LivelineAPNS (the provider client)
//   LivelineCore, LivelineUI, LivelineCrypto, LivelineHTTP2 <- LivelineSimulator (APNs and simulated iPhones)
//   LivelineCore, LivelineKit, LivelineSimulator <- LivelineKitSimulator (the simulated iPhones' apps)
//   LivelineSQL (what the SQL drivers share: one value, row, connection protocol and migrator; no C library)
//   LivelineSQL <- LivelineSQLite (one SQLite connection; SQLite)
//   LivelineSQL <- LivelinePostgres (one PostgreSQL connection; libpq)
//   LivelineSQL, LivelineSQLite, LivelinePostgres <- LivelineStore (the service's storage: one transaction over SQLConnection)
//   LivelineHTTPServer (HTTP/1.1; libmicrohttpd)
//   LivelineCore, LivelineUI, LivelineCrypto, LivelineAPNS, LivelineStore, LivelineHTTPServer
//     <- LivelineService (the API, fan-out, the outbox workers)
//   LivelineCore, LivelineCrypto, LivelineHTTPServer <- LivelineDashboardSupport (what both pages share: access
//     token and exact Host, security headers, the event stream's hub, error bodies; not a product)
//   LivelineCore, LivelineUI, LivelinePreview, LivelineSimulator, LivelineHTTPServer, LivelineDashboardSupport
//     <- LivelineSimulatorDashboard (the simulated iPhones' live page and its control routes)
//   LivelineCore, LivelinePreview, LivelineService, LivelineHTTPServer, LivelineDashboardSupport
//     <- LivelineServiceDashboard (the service's live page: activities, deliveries, a picture of each send)
//   LivelineProcess (child processes: the one posix_spawn, programs run to completion, servers started and watched)
//   LivelineCrypto, LivelinePostgres, LivelineProcess <- LivelineTesting (run-time certificates and keys, reference servers,
//     PostgreSQL, waits with deadlines; test support only: no executable but liveline-bench links it)
//   LivelineProcess <- LivelineBrowser (headless Chromium over WebDriver, PNG decoding; libcurl, zlib)
//   LivelineCommandLine (argument parsing, help, console; Foundation only) <- liveline, liveline-bench
//   LivelineCommandLine, LivelineCore, LivelinePreview, LivelineBrowser, LivelineProcess <- LivelineToolSupport
//     (what liveline and liveline-bench share beyond it: the service's JSON client, preview PNGs, the parent
//     watch; neither it nor LivelineCommandLine is a product)
//   everything but LivelineTesting <- liveline (the command-line tool)
//   everything <- liveline-bench (the benchmarks, Benchmarks/)
//   LivelineCore, LivelineCrypto, LivelineAPNS <- liveline-client-probe (Benchmarks/ClientProbe: the client alone, for its memory)
//   LivelineCore <- FlightTrackerShared (Examples/FlightTracker: the attributes type)
//     FlightTrackerShared, LivelineCore <- flight-tracker-backend
//     FlightTrackerShared, LivelineKit <- FlightTrackerApp, FlightTrackerWidget
//   LivelineCore, LivelineUI, LivelineCrypto, LivelineSimulator, LivelineService, LivelineStore, LivelineHTTPServer
//     <- LivelineFuzzTargets (Fuzz/Targets) <- FuzzSmokeTests, and Fuzz/'s liveline-fuzz
// Test targets (Tests/<Module>Tests) depend on what they test, often on LivelineTesting (and LivelineProcess
// when they start programs); nothing depends on them. LivelineCore, LivelineKit, LivelineKitSimulator,
// LivelineSimulator, LivelineService, LivelineTesting <- SimulatedPhoneFixture (Tests/: the simulated iPhones'
// whole loop) <- LivelineKitTests, FlightTrackerExampleTests.
let package = Package(
    name: "Liveline",
    // The platforms of the portable modules (below): the only ones a package on macOS or iOS sees.
    platforms: [.macOS(.v14), .iOS(.v17)],
    // Products are what a user's package can name. Every type in a product's public API comes from
    // a product, or is re-exported as one `public typealias` by the module whose API uses it
    // (LivelineSimulator's HTTP2Error): LivelineHTTP2 stays internal. See docs/architecture.md.
    products: [
        .library(name: "LivelineCore", targets: ["LivelineCore"]),
        .library(name: "LivelineUI", targets: ["LivelineUI"]),
        .library(name: "LivelinePreview", targets: ["LivelinePreview"]),
        .library(name: "LivelineKit", targets: ["LivelineKit"]),
        .library(name: "LivelineKitSimulator", targets: ["LivelineKitSimulator"]),
        .library(name: "LivelineCrypto", targets: ["LivelineCrypto"]),
        .library(name: "LivelineAPNS", targets: ["LivelineAPNS"]),
        .library(name: "LivelineSimulator", targets: ["LivelineSimulator"]),
        .library(name: "LivelineTesting", targets: ["LivelineTesting"]),
        .library(name: "LivelineSQL", targets: ["LivelineSQL"]),
        .library(name: "LivelineProcess", targets: ["LivelineProcess"]),
        .library(name: "LivelineSQLite", targets: ["LivelineSQLite"]),
        .library(name: "LivelinePostgres", targets: ["LivelinePostgres"]),
        .library(name: "LivelineHTTPServer", targets: ["LivelineHTTPServer"]),
        .library(name: "LivelineStore", targets: ["LivelineStore"]),
        .library(name: "LivelineService", targets: ["LivelineService"]),
        .library(name: "LivelineSimulatorDashboard", targets: ["LivelineSimulatorDashboard"]),
        .library(name: "LivelineServiceDashboard", targets: ["LivelineServiceDashboard"]),
        .library(name: "LivelineBrowser", targets: ["LivelineBrowser"]),
        .executable(name: "liveline", targets: ["liveline"]),
        .executable(name: "liveline-bench", targets: ["liveline-bench"]),
        .executable(name: "flight-tracker-backend", targets: ["flight-tracker-backend"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CEpoll"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // liveline-bench's allocator: per-thread caches keep the bulk path's malloc/free cheap.
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "LivelineCore"),
        .target(name: "LivelineUI", dependencies: ["LivelineCore", "CBrotli"]),
        .target(name: "LivelinePreview", dependencies: ["LivelineCore", "LivelineUI"]),
        .target(name: "LivelineKit", dependencies: ["LivelineCore"]),
        .target(name: "LivelineCrypto", dependencies: ["COpenSSL"]),
        .target(name: "LivelineSQL"),
        .target(name: "LivelineSQLite", dependencies: ["LivelineSQL", "CSQLite"]),
        .target(name: "LivelinePostgres", dependencies: ["LivelineSQL", "CLibPQ"]),
        .target(name: "LivelineHTTPServer", dependencies: ["CMicroHTTPD"]),
        .target(name: "LivelineHTTP2", dependencies: ["COpenSSL", "CNghttp2", "CEpoll"]),
        .target(name: "LivelineAPNS", dependencies: ["LivelineCore", "LivelineCrypto", "LivelineHTTP2"]),
        .target(name: "LivelineSimulator", dependencies: ["LivelineCore", "LivelineUI", "LivelineCrypto", "LivelineHTTP2"]),
        .target(name: "LivelineKitSimulator", dependencies: ["LivelineKit", "LivelineCore", "LivelineSimulator"]),
        .target(name: "LivelineStore", dependencies: ["LivelineSQL", "LivelineSQLite", "LivelinePostgres"]),
        .target(name: "LivelineService", dependencies: ["LivelineCore", "LivelineUI", "LivelineCrypto", "LivelineAPNS", "LivelineStore", "LivelineHTTPServer"]),
        .target(name: "LivelineDashboardSupport", dependencies: ["LivelineCore", "LivelineCrypto", "LivelineHTTPServer"]),
        .target(name: "LivelineSimulatorDashboard", dependencies: ["LivelineCore", "LivelineUI", "LivelinePreview", "LivelineSimulator", "LivelineHTTPServer", "LivelineDashboardSupport"]),
        .target(name: "LivelineServiceDashboard", dependencies: ["LivelineCore", "LivelinePreview", "LivelineService", "LivelineHTTPServer", "LivelineDashboardSupport"]),
        // Child processes (the one posix_spawn): what the tools and the test kit start programs with.
        .target(name: "LivelineProcess"),
        .target(name: "LivelineBrowser", dependencies: ["CCurl", "CZlib", "LivelineProcess"]),
        // Test support users need too: certificates and keys made at run time, local servers.
        .target(name: "LivelineTesting", dependencies: ["LivelineCrypto", "LivelinePostgres", "LivelineProcess"]),
        // Both executables' command-line plumbing (specs, parsing, help, dispatch; Foundation only),
        // and what they share beyond it (the service's JSON client, preview PNGs, the parent watch).
        .target(name: "LivelineCommandLine"),
        .target(name: "LivelineToolSupport", dependencies: ["LivelineCommandLine", "LivelineCore", "LivelinePreview", "LivelineBrowser", "LivelineProcess"]),
        // No jemalloc: no figure of `liveline` needs it. `liveline serve` (run by liveline-bench service,
        // scale, faults) fanned out as fast with glibc's malloc, and held 1M tokens in 66 MB against 74 MB.
        .executableTarget(name: "liveline", dependencies: [
            "LivelineCore", "LivelineUI", "LivelinePreview", "LivelineAPNS", "LivelineCrypto", "LivelineSimulator", "LivelineKit", "LivelineKitSimulator", "LivelineStore", "LivelineService",
            "LivelineProcess", "LivelineSimulatorDashboard", "LivelineServiceDashboard", "LivelineBrowser", "LivelineCommandLine", "LivelineToolSupport",
        ]),

        .testTarget(name: "LivelineCoreTests", dependencies: ["LivelineCore"]),
        .testTarget(name: "LivelineUITests", dependencies: ["LivelineUI", "LivelineCore"]),
        .testTarget(name: "LivelinePreviewTests", dependencies: ["LivelinePreview", "LivelineUI", "LivelineCore", "LivelineTesting", "LivelineProcess"]),
        .testTarget(name: "LivelineKitTests", dependencies: ["LivelineKit", "LivelineKitSimulator", "LivelineSimulator", "LivelineCore", "LivelineCrypto", "LivelineService", "LivelineStore", "SimulatedPhoneFixture"]),
        // The simulated iPhones' whole loop (simulator, service, app) that LivelineKit's and the example's tests share.
        .target(name: "SimulatedPhoneFixture", dependencies: ["LivelineCore", "LivelineKit", "LivelineKitSimulator", "LivelineSimulator", "LivelineService", "LivelineTesting"],
                path: "Tests/SimulatedPhoneFixture"),
        .testTarget(name: "LivelineCryptoTests", dependencies: ["LivelineCrypto", "LivelineTesting", "LivelineProcess"]),
        .testTarget(name: "LivelineSQLiteTests", dependencies: ["LivelineSQLite", "LivelineSQL"]),
        .testTarget(name: "LivelineHTTPServerTests", dependencies: ["LivelineHTTPServer", "LivelineTesting", "LivelineProcess"]),
        .testTarget(name: "LivelineSimulatorDashboardTests", dependencies: [
            "LivelineSimulatorDashboard", "LivelineSimulator", "LivelineCore", "LivelineUI", "LivelinePreview", "LivelineHTTPServer", "LivelineTesting", "LivelineProcess",
        ]),
        .testTarget(name: "LivelineServiceDashboardTests", dependencies: ["LivelineServiceDashboard", "LivelineSimulator", "LivelineCore", "LivelineTesting", "LivelineService", "LivelineHTTPServer", "LivelineProcess", "LivelineStore", "LivelineAPNS"]),
        .testTarget(name: "LivelineHTTP2Tests", dependencies: ["LivelineHTTP2", "LivelineTesting", "COpenSSL", "LivelineProcess"]),
        .testTarget(name: "LivelineAPNSTests", dependencies: ["LivelineAPNS", "LivelineCore", "LivelineCrypto", "LivelineHTTP2", "LivelineTesting", "LivelineProcess"]),
        .testTarget(name: "LivelineSimulatorTests", dependencies: ["LivelineSimulator", "LivelineAPNS", "LivelineCore", "LivelineCrypto", "LivelineHTTP2", "LivelineUI", "LivelineTesting", "LivelineProcess"]),
        .testTarget(name: "LivelinePostgresTests", dependencies: ["LivelinePostgres", "LivelineSQL", "LivelineTesting"]),
        .testTarget(name: "LivelineStoreTests", dependencies: ["LivelineStore", "LivelineSQLite", "LivelinePostgres", "LivelineTesting"]),
        .testTarget(name: "LivelineServiceTests", dependencies: [
            "LivelineService", "LivelineStore", "LivelineSimulator", "LivelineCore", "LivelineCrypto", "LivelineUI", "LivelineHTTPServer", "LivelineTesting", "LivelineSQLite", "LivelineProcess",
        ]),
        // Fuzz targets (one check per parser), shared with the libFuzzer package under Fuzz/.
        .target(name: "LivelineFuzzTargets", dependencies: [
            "LivelineCore", "LivelineUI", "LivelineCrypto", "LivelineSimulator", "LivelineService", "LivelineStore", "LivelineHTTPServer",
        ], path: "Fuzz/Targets"),
        .testTarget(name: "FuzzSmokeTests", dependencies: ["LivelineFuzzTargets"]),
        .testTarget(name: "LivelineCLITests", dependencies: ["LivelineCore", "LivelineTesting", "LivelineBrowser", "LivelinePreview", "LivelineUI", "LivelineProcess"]),
        .testTarget(name: "LivelineBrowserTests", dependencies: ["LivelineBrowser", "CZlib", "LivelineTesting"]),
        // The flight-tracker example (Examples/FlightTracker): the attributes type shared by app and
        // server, and the backend's script. The app and widget files are not targets (ActivityKit, SwiftUI).
        .target(name: "FlightTrackerShared", dependencies: ["LivelineCore"], path: "Examples/FlightTracker/Shared"),
        .executableTarget(name: "flight-tracker-backend", dependencies: ["FlightTrackerShared", "LivelineCore"], path: "Examples/FlightTracker/Backend"),
        // The app's and the widget's files, under #if canImport(ActivityKit) && canImport(SwiftUI)
        // && canImport(WidgetKit): here they are parsed (a syntax error breaks the build) and compile
        // to nothing; an Xcode project builds them for iOS.
        .target(name: "FlightTrackerApp", dependencies: ["FlightTrackerShared", "LivelineKit"], path: "Examples/FlightTracker/App"),
        .target(name: "FlightTrackerWidget", dependencies: ["FlightTrackerShared", "LivelineKit"], path: "Examples/FlightTracker/Widget"),
        .testTarget(name: "FlightTrackerExampleTests", dependencies: ["FlightTrackerShared", "LivelineCore", "LivelineKit", "LivelineKitSimulator", "LivelineSimulator", "LivelineService", "LivelineTesting", "LivelineProcess", "SimulatedPhoneFixture"]),
        // The benchmarks (`liveline-bench client|client-memory|far-apns|small-sends|simulator|ui|service|scale|faults|http2`): each prints
        // ratios against a reference tool measured in the same run. Links jemalloc: the client's
        // figure depends on it.
        .executableTarget(name: "liveline-bench", dependencies: [
            "LivelineCommandLine", "LivelineToolSupport", "LivelineCore", "LivelineUI", "LivelinePreview", "LivelineAPNS", "LivelineCrypto", "LivelineHTTP2",
            "LivelineSimulator", "LivelineStore", "LivelineService", "LivelinePostgres", "LivelineTesting", "LivelineProcess", "LivelineSimulatorDashboard", "LivelineBrowser", "CJemalloc",
        ], path: "Benchmarks/LivelineBench"),
        // The smallest process that sends with APNSClient (LivelineAPNS alone): `liveline-bench
        // client-memory` runs it to read the client's memory apart from everything the bench links.
        .executableTarget(name: "liveline-client-probe", dependencies: ["LivelineAPNS", "LivelineCore", "LivelineCrypto"], path: "Benchmarks/ClientProbe"),
    ],
    swiftLanguageModes: [.v6]
)

// Only the payload contract and the app side build outside Linux: the server modules need epoll
// (LivelineHTTP2) and Debian's C libraries. So on macOS (Xcode, an iOS app depending on this package)
// the manifest declares those modules and nothing else, and the platforms above are true of all it
// declares. `LIVELINE_PORTABLE_ONLY=1` gives the same manifest on Linux, which is how
// scripts/check-ios-sources.sh builds it.
#if os(Linux)
let portableOnly = Context.environment["LIVELINE_PORTABLE_ONLY"] == "1"
#else
let portableOnly = true
#endif
if portableOnly {
    let portable: Set<String> = [
        "LivelineCore", "LivelineKit", "LivelineCoreTests",
        "FlightTrackerShared", "FlightTrackerApp", "FlightTrackerWidget",
    ]
    package.targets = package.targets.filter { portable.contains($0.name) }
    package.products = package.products.filter { portable.contains($0.name) }
}

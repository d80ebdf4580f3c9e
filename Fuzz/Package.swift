// swift-tools-version:6.0
import PackageDescription

// The libFuzzer build of the fuzz targets (Fuzz/Targets, also compiled into the root package for
// the smoke tests). A package of its own so that `-sanitize=fuzzer,address` stays out of the root
// package: `make fuzz` builds it with
//   swift build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
// and runs `liveline-fuzz` once per target (FUZZ_TARGET=<name>); see docs/fuzzing.md.
let package = Package(
    name: "LivelineFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Liveline", path: "..")],
    targets: [
        .target(name: "FuzzTargets", dependencies: [
            .product(name: "LivelineCore", package: "Liveline"),
            .product(name: "LivelineUI", package: "Liveline"),
            .product(name: "LivelineCrypto", package: "Liveline"),
            .product(name: "LivelineSimulator", package: "Liveline"),
            .product(name: "LivelineService", package: "Liveline"),
            .product(name: "LivelineStore", package: "Liveline"),
            .product(name: "LivelineHTTPServer", package: "Liveline"),
        ], path: "Targets"),
        .target(name: "CFuzzer", path: "Sources/CFuzzer"),
        .executableTarget(name: "liveline-fuzz", dependencies: ["FuzzTargets", "CFuzzer"], path: "Sources/liveline-fuzz"),
    ],
    swiftLanguageModes: [.v6]
)

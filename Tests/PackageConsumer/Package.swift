// swift-tools-version:6.0
import PackageDescription

// A package that depends on Liveline as a user's package does: by path, naming products only.
// scripts/check-readme-examples.sh writes each Examples target's main.swift from a document's
// ```swift blocks (README.md, docs/ui.md, docs/previews.md) and builds this package, so the
// examples cannot drift from what compiles. PublicAPI names every type that a product's public
// API takes from another module (docs/architecture.md, "Public API"). Nothing here runs.
let package = Package(
    name: "PackageConsumer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Liveline", path: "../..")],
    targets: [
        .executableTarget(name: "ReadmeExamples", dependencies: [
            .product(name: "LivelineCore", package: "Liveline"),
            .product(name: "LivelineCrypto", package: "Liveline"),
            .product(name: "LivelineAPNS", package: "Liveline"),
        ]),
        .executableTarget(name: "UIDocExamples", dependencies: [
            .product(name: "LivelineCore", package: "Liveline"),
            .product(name: "LivelineUI", package: "Liveline"),
            .product(name: "LivelinePreview", package: "Liveline"),
        ]),
        .executableTarget(name: "PreviewsDocExamples", dependencies: [
            .product(name: "LivelineCore", package: "Liveline"),
            .product(name: "LivelineUI", package: "Liveline"),
            .product(name: "LivelinePreview", package: "Liveline"),
        ]),
        .target(name: "PublicAPI", dependencies: [
            .product(name: "LivelineCore", package: "Liveline"),
            .product(name: "LivelineCrypto", package: "Liveline"),
            .product(name: "LivelineAPNS", package: "Liveline"),
            .product(name: "LivelineSimulator", package: "Liveline"),
            .product(name: "LivelineSQL", package: "Liveline"),
            .product(name: "LivelineSQLite", package: "Liveline"),
            .product(name: "LivelinePostgres", package: "Liveline"),
            .product(name: "LivelineStore", package: "Liveline"),
            .product(name: "LivelineHTTPServer", package: "Liveline"),
            .product(name: "LivelineService", package: "Liveline"),
            .product(name: "LivelineTesting", package: "Liveline"),
            .product(name: "LivelineProcess", package: "Liveline"),
            .product(name: "LivelineUI", package: "Liveline"),
            .product(name: "LivelinePreview", package: "Liveline"),
            .product(name: "LivelineKit", package: "Liveline"),
            .product(name: "LivelineKitSimulator", package: "Liveline"),
            .product(name: "LivelineSimulatorDashboard", package: "Liveline"),
            .product(name: "LivelineServiceDashboard", package: "Liveline"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// Layers, arrows one way:
//   LivelineCore (Foundation only, builds for iOS)
//     ← LivelineUI (Voltra wire format; brotli)
//     ← LivelineHTTP2 (nghttp2 + OpenSSL + epoll; client and server)
//       ← LivelineAPNS (provider client) / LivelineSimulator (APNs + simulated iPhones)
//         ← liveline (the command-line tool)
let package = Package(
    name: "Liveline",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "LivelineCore", targets: ["LivelineCore"]),
        .library(name: "LivelineUI", targets: ["LivelineUI"]),
        .library(name: "LivelineAPNS", targets: ["LivelineAPNS"]),
        .library(name: "LivelineSimulator", targets: ["LivelineSimulator"]),
        .executable(name: "liveline", targets: ["liveline"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CEpoll"),

        .target(name: "LivelineCore"),
        .target(name: "LivelineUI", dependencies: ["LivelineCore", "CBrotli"]),
        .target(name: "LivelineHTTP2", dependencies: ["COpenSSL", "CNghttp2", "CEpoll"]),
        .target(name: "LivelineAPNS", dependencies: ["LivelineCore", "LivelineHTTP2", "COpenSSL"]),
        .target(name: "LivelineSimulator", dependencies: ["LivelineCore", "LivelineUI", "LivelineHTTP2", "COpenSSL"]),
        .executableTarget(name: "liveline", dependencies: ["LivelineCore", "LivelineUI", "LivelineAPNS", "LivelineSimulator"]),

        .testTarget(name: "LivelineCoreTests", dependencies: ["LivelineCore"]),
        .testTarget(name: "LivelineUITests", dependencies: ["LivelineUI", "LivelineCore"]),
        .testTarget(name: "LivelineHTTP2Tests", dependencies: ["LivelineHTTP2"]),
        .testTarget(name: "LivelineAPNSTests", dependencies: ["LivelineAPNS", "LivelineCore", "LivelineHTTP2"]),
        .testTarget(name: "LivelineSimulatorTests", dependencies: ["LivelineSimulator", "LivelineAPNS", "LivelineCore"]),
        .testTarget(name: "LivelineCLITests", dependencies: ["LivelineCore"]),
    ],
    swiftLanguageModes: [.v6]
)

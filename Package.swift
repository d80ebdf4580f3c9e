// swift-tools-version:6.0
import PackageDescription

// Layers, arrows one way:
//   LivelineCore (Foundation only, builds for iOS)
//     ← LivelineUI (Voltra wire format; brotli)
//     ← LivelineCrypto (P-256 keys, ES256 JWTs; OpenSSL)
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
        .library(name: "LivelineTesting", targets: ["LivelineTesting"]),
        .executable(name: "liveline", targets: ["liveline"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each.
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlienc", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CEpoll"),
        // The executable's allocator: per-thread caches keep the bulk path's malloc/free cheap.
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"])]),

        .target(name: "LivelineCore"),
        .target(name: "LivelineUI", dependencies: ["LivelineCore", "CBrotli"]),
        .target(name: "LivelineCrypto", dependencies: ["COpenSSL"]),
        .target(name: "LivelineHTTP2", dependencies: ["COpenSSL", "CNghttp2", "CEpoll"]),
        .target(name: "LivelineAPNS", dependencies: ["LivelineCore", "LivelineCrypto", "LivelineHTTP2"]),
        .target(name: "LivelineSimulator", dependencies: ["LivelineCore", "LivelineUI", "LivelineCrypto", "LivelineHTTP2"]),
        // Test support users need too: certificates and keys made at run time, local servers.
        .target(name: "LivelineTesting", dependencies: ["LivelineCrypto"]),
        .executableTarget(name: "liveline", dependencies: ["LivelineCore", "LivelineUI", "LivelineAPNS", "LivelineCrypto", "LivelineHTTP2", "LivelineSimulator", "CJemalloc"]),

        .testTarget(name: "LivelineCoreTests", dependencies: ["LivelineCore"]),
        .testTarget(name: "LivelineUITests", dependencies: ["LivelineUI", "LivelineCore"]),
        .testTarget(name: "LivelineCryptoTests", dependencies: ["LivelineCrypto", "LivelineTesting"]),
        .testTarget(name: "LivelineHTTP2Tests", dependencies: ["LivelineHTTP2", "LivelineTesting", "COpenSSL"]),
        .testTarget(name: "LivelineAPNSTests", dependencies: ["LivelineAPNS", "LivelineCore", "LivelineCrypto", "LivelineHTTP2", "LivelineTesting"]),
        .testTarget(name: "LivelineSimulatorTests", dependencies: ["LivelineSimulator", "LivelineAPNS", "LivelineCore", "LivelineCrypto", "LivelineHTTP2", "LivelineUI", "LivelineTesting"]),
        .testTarget(name: "LivelineCLITests", dependencies: ["LivelineCore", "LivelineTesting"]),
        // Benchmarks: executables printing ratios against reference tools in the same run.
        .executableTarget(name: "HTTP2Bench", dependencies: ["LivelineHTTP2", "LivelineTesting"], path: "Benchmarks/HTTP2Bench"),
    ],
    swiftLanguageModes: [.v6]
)

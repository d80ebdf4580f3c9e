import Foundation

/// Finds executables that `swift build --build-tests` put beside the test bundle.
public enum BuiltProduct {
    /// The path of the built executable `name` (e.g. `liveline`): looked for beside the running
    /// test bundle and up to three folders above it, else in `<package>/.build/debug/`.
    /// - Parameter packageFile: any file of the package (`#filePath` of the caller), for the fallback.
    public static func path(_ name: String, packageFile: String = #filePath) -> String {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate.path }
            dir.deleteLastPathComponent()
        }
        var root = URL(fileURLWithPath: packageFile).deletingLastPathComponent()
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        return root.appendingPathComponent(".build/debug/\(name)").path
    }
}

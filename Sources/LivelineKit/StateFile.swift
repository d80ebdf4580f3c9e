import Foundation

/// One JSON file in the app's directory, replaced atomically (written beside, then renamed), so a
/// kill at any moment leaves either the old or the new contents, never half of one.
struct StateFile<Value: Codable & Sendable>: Sendable {
    let url: URL

    init(directory: URL, name: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent(name)
    }

    /// The stored value, `nil` when there is none. A file that does not decode is moved aside
    /// (`name.unreadable`) and reported through `log`, so the app starts clean instead of failing.
    func load(log: (String) -> Void) -> Value? {
        guard let data = FileManager.default.contents(atPath: url.path), !data.isEmpty else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            let aside = url.appendingPathExtension("unreadable")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: url, to: aside)
            log("LivelineKit: \(url.lastPathComponent) did not decode (\(error)); moved to \(aside.lastPathComponent)")
            return nil
        }
    }

    func save(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(value)
        #if os(iOS) || os(watchOS) || os(tvOS) || os(visionOS)
        // The token may arrive while the device is locked: keep the file readable after first unlock.
        try data.write(to: url, options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
        #else
        try data.write(to: url, options: .atomic)
        #endif
    }
}

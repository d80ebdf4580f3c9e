import Foundation

/// Reading what a started server printed.
extension String {
    /// The rest of the line after the first `marker`, trimmed (`"listening on "` → the URL).
    public func line(after marker: String) -> String? {
        guard let range = range(of: marker) else { return nil }
        return String(self[range.upperBound...].prefix { $0 != "\n" }).trimmingCharacters(in: .whitespaces)
    }
}

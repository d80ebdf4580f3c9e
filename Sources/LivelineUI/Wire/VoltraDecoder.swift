import Foundation
import LivelineCore

/// Decodes `uiJsonData` the way Voltra's iOS extension does, tolerating what it tolerates.
public enum VoltraDecoder {
    /// base64 → brotli → JSON → tree.
    ///
    /// - Throws: `UIError` `.invalidBase64`, `.invalidBrotli`, `.compressionRatio` (JSON over 8× the
    ///   compressed size, which the device's decoder cannot inflate) or `.invalidPayload`.
    public static func decode(base64: String) throws(UIError) -> DecodedUI {
        try decode(compressed: try bytes(base64: base64))
    }

    /// brotli → JSON → tree, with the device's 8× output buffer.
    public static func decode(compressed: [UInt8]) throws(UIError) -> DecodedUI {
        let limit = VoltraBudget.maxRatio * compressed.count
        guard let json = Brotli.decompress(compressed, limit: limit) else {
            if let size = Brotli.decompressedSize(compressed) {
                throw UIError(.compressionRatio, """
                    decompressed JSON is \(size) bytes, more than \(VoltraBudget.maxRatio)× the \(compressed.count) compressed \
                    bytes (limit \(limit)); the device's decoder truncates it and drops the update
                    """)
            }
            throw UIError(.invalidBrotli, "uiJsonData is not a brotli stream (\(compressed.count) bytes after base64)")
        }
        return try decode(json: json)
    }

    /// JSON → tree.
    public static func decode(json: [UInt8]) throws(UIError) -> DecodedUI {
        let value: JSONValue
        do { value = try JSONValue.parse(json) } catch {
            throw UIError(.invalidPayload, "uiJsonData does not hold JSON: \(error.description)")
        }
        var reader = WireReader()
        var decoded = try reader.read(value)
        decoded.json = json
        return decoded
    }

    /// Lints a `uiJsonData` string: decodes without the 8× limit so every problem is listed,
    /// the ratio problem among them.
    ///
    /// - Throws: `UIError` when the string cannot be read at all.
    public static func lint(base64: String) throws(UIError) -> DecodedUI {
        let compressed = try bytes(base64: base64)
        guard let size = Brotli.decompressedSize(compressed),
              let json = Brotli.decompress(compressed, limit: size) else {
            throw UIError(.invalidBrotli, "uiJsonData is not a brotli stream (\(compressed.count) bytes after base64)")
        }
        var decoded = try decode(json: json)
        if json.count > VoltraBudget.maxRatio * compressed.count {
            decoded.issues.insert(UILintIssue(.compressionRatio, path: "uiJsonData", """
                JSON is \(json.count) bytes, more than \(VoltraBudget.maxRatio)× its \(compressed.count) compressed bytes; \
                the device decodes into a buffer of \(VoltraBudget.maxRatio * compressed.count) bytes, truncates, fails to \
                parse and drops the whole update. Make the UI less repetitive or re-encode it at a lower quality.
                """), at: 0)
        }
        return decoded
    }

    /// Lints a layout before it is sent: what the device would do differently from what was written
    /// (props of the wrong JSON type, which make the element fall back to defaults, ...). Paths are
    /// wire paths of the compatible encoding (`ls.c[1].p`).
    public static func lint(_ layout: UILayout) -> [UILintIssue] {
        let encoded = VoltraEncoder.encode(layout, mode: .compatible)
        var issues = (try? decode(json: encoded.json).issues) ?? []
        if encoded.json.count > VoltraBudget.maxRatio * encoded.compressed.count {
            issues.insert(UILintIssue(.compressionRatio, path: "uiJsonData", """
                JSON is \(encoded.json.count) bytes, more than \(VoltraBudget.maxRatio)× its \(encoded.compressed.count) \
                compressed bytes in compatible mode; the device would drop the update. Make the UI less repetitive.
                """), at: 0)
        }
        return issues
    }

    static func bytes(base64: String) throws(UIError) -> [UInt8] {
        let trimmed = base64.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw UIError(.invalidBase64, "uiJsonData is empty") }
        guard let data = Data(base64Encoded: trimmed) else {
            let hint = trimmed.contains("-") || trimmed.contains("_") ? " (it looks URL-safe; the device wants + and /)"
                : trimmed.count % 4 != 0 ? " (its length \(trimmed.count) is not a multiple of 4: padding missing?)" : ""
            throw UIError(.invalidBase64, "uiJsonData is not standard base64\(hint): '\(trimmed.prefix(24))\(trimmed.count > 24 ? "..." : "")'")
        }
        return Array(data)
    }
}

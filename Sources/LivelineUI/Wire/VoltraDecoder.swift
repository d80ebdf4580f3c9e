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
            switch Brotli.decompressedSize(compressed) {
            case .exactly(let size):
                throw UIError(.compressionRatio, """
                    decompressed JSON is \(size) bytes, more than \(VoltraBudget.maxRatio)× the \(compressed.count) compressed \
                    bytes (limit \(limit)); the device's decoder truncates it and drops the update
                    """)
            case .moreThan(let cap): throw bomb(compressed.count, cap: cap)
            case .corrupt: throw notBrotli(compressed.count)
            }
        }
        return try decode(json: json)
    }

    /// A valid stream that inflates past what `Brotli.decompressedSize` decodes.
    static func bomb(_ compressed: Int, cap: Int) -> UIError {
        UIError(.compressionRatio, """
            uiJsonData inflates to more than \(cap) bytes, the output limit of this decoder, from \(compressed) compressed \
            bytes: a ratio over \(cap / max(compressed, 1)):1. The device's decoder stops at \(VoltraBudget.maxRatio)× \
            (\(VoltraBudget.maxRatio * compressed) bytes) and drops the update.
            """)
    }

    static func notBrotli(_ compressed: Int) -> UIError {
        UIError(.invalidBrotli, "uiJsonData is not a brotli stream (\(compressed) bytes after base64)")
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
        let json: [UInt8]
        switch Brotli.decompressedSize(compressed) {
        case .exactly(let size):
            guard let inflated = Brotli.decompress(compressed, limit: size) else { throw notBrotli(compressed.count) }
            json = inflated
        case .moreThan(let cap): throw bomb(compressed.count, cap: cap)
        case .corrupt: throw notBrotli(compressed.count)
        }
        var decoded = try decode(json: json)
        let size = base64.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count
        if size > VoltraBudget.base64Limit {
            decoded.issues.insert(UILintIssue(.overBudget, path: "uiJsonData", """
                \(size) bytes of base64, over the budget of \(VoltraBudget.base64Limit) bytes (ActivityKit hard \
                cap \(VoltraBudget.bodyLimit) bytes for the whole APNs body); Voltra's server refuses to send it. Reduce the UI.
                """), at: 0)
        }
        if json.count > VoltraBudget.maxRatio * compressed.count {
            decoded.issues.insert(UILintIssue(.compressionRatio, path: "uiJsonData", """
                JSON is \(json.count) bytes, more than \(VoltraBudget.maxRatio)× its \(compressed.count) compressed bytes; \
                the device decodes into a buffer of \(VoltraBudget.maxRatio * compressed.count) bytes, truncates, fails to \
                parse and drops the whole update. Make the UI less repetitive or re-encode it at a lower quality.
                """), at: 0)
        }
        return decoded
    }

    /// Decodes a payload v1 JSON and lints it, also against the budget: a JSON over
    /// `VoltraBudget.maxJSONBytes` cannot be sent in any encoding, and one that is over the budget
    /// even at brotli quality 11 cannot be sent as it is.
    ///
    /// - Throws: `UIError` `.invalidPayload` when the JSON cannot be read at all.
    public static func lint(json: [UInt8]) throws(UIError) -> DecodedUI {
        var decoded = try decode(json: json)
        if json.count > VoltraBudget.maxJSONBytes {
            decoded.issues.insert(UILintIssue(.overBudget, path: "uiJsonData", """
                JSON is \(json.count) bytes, more than the \(VoltraBudget.maxJSONBytes) bytes any payload within the budget \
                can hold (\(VoltraBudget.base64Limit) bytes of base64 carry \(VoltraBudget.maxCompressedBytes) compressed \
                bytes, and the device inflates at most \(VoltraBudget.maxRatio)× that); it cannot be sent. Reduce the UI.
                """), at: 0)
        } else {
            let smallest = EncodedUI(mode: .compact, json: json, compressed: Brotli.compress(json, quality: 11), quality: 11)
            if smallest.base64.utf8.count > VoltraBudget.base64Limit {
                decoded.issues.insert(UILintIssue(.overBudget, path: "uiJsonData", """
                    JSON is \(json.count) bytes, \(smallest.base64.utf8.count) bytes of base64 even at brotli quality 11, over \
                    the budget of \(VoltraBudget.base64Limit) bytes; it cannot be sent as it is. Reduce the UI.
                    """), at: 0)
            }
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

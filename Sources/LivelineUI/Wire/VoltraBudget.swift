import LivelineCore

/// The size limits a Live Activity UI must meet, and a byte breakdown to explain a failure.
public enum VoltraBudget {
    /// Voltra's budget for the base64 `uiJsonData` string, in bytes.
    public static let base64Limit = 3345
    /// ActivityKit's cap for the whole APNs body, in bytes.
    public static let bodyLimit = 4096
    /// The device decoder inflates into a buffer of this many times the compressed size.
    public static let maxRatio = 8
    /// The most brotli bytes whose base64 fits `base64Limit`: 2508.
    public static let maxCompressedBytes = base64Limit / 4 * 3
    /// The most payload JSON any UI within the budget can have, whatever its encoding: `maxRatio`
    /// times `maxCompressedBytes`, 20,064 bytes. Past it, the base64 is over the budget or the device
    /// cannot inflate the stream.
    public static let maxJSONBytes = maxRatio * maxCompressedBytes

    /// Throws, before anything is compressed, when `layout` cannot fit the budget in `mode`: it is
    /// past `LayoutLimits`, or even its smallest payload JSON is over `maxJSONBytes`. Rendering the
    /// JSON is cheap; compressing a large one (brotli quality 11) is what takes seconds.
    ///
    /// - Throws: `UIError` `.invalidLayout` (`LayoutLimits`) or `.overBudget`, naming the sizes.
    public static func checkBeforeEncoding(_ layout: UILayout, mode: EncodingMode = .compact) throws(UIError) {
        try LayoutLimits.check(layout)
        let candidates = VoltraEncoder.candidates(layout, mode: mode, over: maxJSONBytes)
        guard let smallest = candidates.min(by: { $0.json.count < $1.json.count }), smallest.json.count > maxJSONBytes else { return }
        let regions = smallest.root.filter { $0.key != "v" }.map { "\($0.key) \($0.value.serializedSize)" }
        let which = switch mode {
        case .compact: "the smallest of its compact encodings"
        case .fanOut: "the smallest of its fan-out encodings"
        case .compatible: "compatible mode"
        }
        throw UIError(.overBudget, """
            UI JSON is \(smallest.json.count) bytes (\(which)), more than the \(maxJSONBytes) bytes any payload within the budget can hold: \(base64Limit) bytes of \
            base64 carry \(maxCompressedBytes) compressed bytes, and the device inflates at most \(maxRatio)× that. Nothing \
            was compressed. Reduce the UI.
            JSON bytes by region: \(regions.joined(separator: ", "))
            """)
    }

    /// Throws when the base64 string is over 3345 bytes or the JSON is over 8× the compressed size.
    ///
    /// - Throws: `UIError` `.overBudget` (listing bytes by region and the largest subtrees) or
    ///   `.compressionRatio`.
    public static func check(_ encoded: EncodedUI) throws(UIError) {
        let size = encoded.base64.utf8.count
        if size > base64Limit {
            throw UIError(.overBudget, """
                UI payload is \(size) bytes of base64, over the budget of \(base64Limit) bytes (ActivityKit hard cap \
                \(bodyLimit) bytes); JSON \(encoded.json.count) bytes, brotli \(encoded.compressed.count) bytes \
                (\(encoded.mode.rawValue) mode). Reduce the UI.
                \(SizeReport(encoded).summary)
                """)
        }
        try checkRatio(encoded)
    }

    /// Throws when the JSON is more than 8× its compressed size (the device would drop the update).
    public static func checkRatio(_ encoded: EncodedUI) throws(UIError) {
        guard encoded.json.count > maxRatio * encoded.compressed.count else { return }
        throw UIError(.compressionRatio, """
            UI JSON is \(encoded.json.count) bytes, more than \(maxRatio)× its \(encoded.compressed.count) compressed \
            bytes (ratio \(formatRatio(encoded.ratio))); the device inflates into \(maxRatio * encoded.compressed.count) \
            bytes, truncates, and drops the update. Make the UI less repetitive (e.g. fewer identical elements).
            """)
    }

    /// Throws when a complete APNs body is over 4096 bytes; names the `uiJsonData` share when given.
    public static func checkBody(_ body: [UInt8], encoded: EncodedUI? = nil) throws(UIError) {
        guard body.count > bodyLimit else { return }
        var message = "APNs body is \(body.count) bytes, over ActivityKit's \(bodyLimit)-byte limit"
        if let encoded {
            message += "; uiJsonData takes \(encoded.base64.utf8.count) bytes, the rest \(body.count - encoded.base64.utf8.count)"
            message += ".\n" + SizeReport(encoded).summary
        } else {
            message += "."
        }
        throw UIError(.bodyTooLarge, message)
    }

    static func formatRatio(_ r: Double) -> String {
        String(Double((r * 100).rounded()) / 100)
    }
}

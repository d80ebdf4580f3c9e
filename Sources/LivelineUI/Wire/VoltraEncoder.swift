import Foundation
import LivelineCore

/// How the encoder shapes the JSON.
public enum EncodingMode: String, Sendable, CaseIterable {
    /// Structural dedup of styles and elements, brotli quality 2 or 11, whichever is smallest;
    /// never larger than `.compatible`.
    case compact
    /// Exactly what Voltra's JavaScript server renderer emits (identity sharing, quality 2, window 22).
    case compatible
}

/// An encoded UI: the v1 JSON, its brotli stream and the base64 string for `uiJsonData`.
public struct EncodedUI: Sendable, Hashable {
    /// The mode that produced it.
    public let mode: EncodingMode
    /// The payload v1 JSON text (UTF-8).
    public let json: [UInt8]
    /// The brotli stream.
    public let compressed: [UInt8]
    /// The brotli quality used (2 or 11).
    public let quality: Int32
    /// Standard base64 of `compressed`: the `content-state.uiJsonData` string.
    public let base64: String

    /// Creates the value from its JSON and compressed bytes.
    public init(mode: EncodingMode, json: [UInt8], compressed: [UInt8], quality: Int32) {
        self.mode = mode
        self.json = json
        self.compressed = compressed
        self.quality = quality
        self.base64 = Data(compressed).base64EncodedString()
    }

    /// The JSON as a string.
    public var jsonString: String { String(decoding: json, as: UTF8.self) }

    /// JSON bytes per compressed byte; the device decoder fails above 8.
    public var ratio: Double { compressed.isEmpty ? 0 : Double(json.count) / Double(compressed.count) }
}

/// Encodes layouts to Voltra's payload v1.
public enum VoltraEncoder {
    /// The v1 root object for `layout`. Compact mode's JSON is the variant with structural style dedup
    /// and element dedup; `encode` may pick another variant if it compresses smaller.
    public static func json(_ layout: UILayout, mode: EncodingMode = .compatible) -> JSONObject {
        switch mode {
        case .compatible:
            var renderer = WireRenderer(styles: .identity, elements: .identity)
            return renderer.render(layout)
        case .compact:
            var renderer = WireRenderer(styles: .structural, elements: .structural)
            return renderer.render(layout)
        }
    }

    /// Renders, compresses and base64-encodes `layout`. Does not check the budget: see `VoltraBudget`.
    public static func encode(_ layout: UILayout, mode: EncodingMode = .compact) -> EncodedUI {
        let compatJSON = JSONValue.object(json(layout, mode: .compatible)).serialized()
        let compat = EncodedUI(mode: .compatible, json: compatJSON, compressed: Brotli.compress(compatJSON), quality: 2)
        guard mode == .compact else { return compat }
        var candidates: [[UInt8]] = [compatJSON]
        let variants: [(WireRenderer.StyleSharing, WireRenderer.ElementSharing)] = [
            (.structural, .identity), (.structural, .structural), (.inline, .structural),
        ]
        for (styles, elements) in variants {
            var renderer = WireRenderer(styles: styles, elements: elements)
            let bytes = JSONValue.object(renderer.render(layout)).serialized()
            if !candidates.contains(bytes) { candidates.append(bytes) }
        }
        // Every candidate at quality 2; quality 11 (about 40× slower) only for the two that are
        // smallest at quality 5, which ranks candidates the way 11 does at a fraction of the cost.
        var tried: [EncodedUI] = [compat]
        for bytes in candidates.dropFirst() {
            tried.append(EncodedUI(mode: .compact, json: bytes, compressed: Brotli.compress(bytes), quality: 2))
        }
        let finalists = candidates.map { (json: $0, size: Brotli.compress($0, quality: 5).count) }
            .sorted { $0.size < $1.size }.prefix(2)
        for finalist in finalists {
            tried.append(EncodedUI(mode: .compact, json: finalist.json, compressed: Brotli.compress(finalist.json, quality: 11), quality: 11))
        }
        let fits = { (e: EncodedUI) in e.json.count <= VoltraBudget.maxRatio * e.compressed.count }
        // A stream the device cannot inflate (over 8:1) is never chosen when another one fits.
        var best = compat
        for candidate in tried {
            let better = candidate.compressed.count < best.compressed.count
            if fits(candidate) && (better || !fits(best)) {
                best = candidate
            }
        }
        return best.mode == .compact ? best
            : EncodedUI(mode: .compact, json: best.json, compressed: best.compressed, quality: best.quality)
    }
}

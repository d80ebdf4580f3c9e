import Foundation
import LivelineCore

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

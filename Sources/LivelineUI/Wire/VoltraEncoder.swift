import Foundation
import LivelineCore

/// Encodes layouts to Voltra's payload v1.
public enum VoltraEncoder {
    /// The v1 root object for `layout`. Compact mode's JSON is the variant with structural style dedup
    /// and element dedup; `encode` may pick another variant if it compresses smaller. Fan-out mode's
    /// is the variant without `e` and `s` (every element where it is used, styles inline in `p.s`),
    /// which compresses best at the low brotli quality that mode uses.
    public static func json(_ layout: UILayout, mode: EncodingMode = .compatible) -> JSONObject {
        switch mode {
        case .compatible:
            var renderer = WireRenderer(styles: .identity, elements: .identity)
            return renderer.render(layout)
        case .compact:
            var renderer = WireRenderer(styles: .structural, elements: .structural)
            return renderer.render(layout)
        case .fanOut:
            var renderer = WireRenderer(styles: .inline, elements: .none)
            return renderer.render(layout)
        }
    }

    /// Renders, compresses and base64-encodes `layout`. Does not check the budget: see `VoltraBudget`.
    public static func encode(_ layout: UILayout, mode: EncodingMode = .compact) -> EncodedUI {
        if mode == .fanOut { return encode(layout, fanOut: .fanOut) }
        let candidates = self.candidates(layout, mode: mode).map(\.json)
        let compat = EncodedUI(mode: .compatible, json: candidates[0], compressed: Brotli.compress(candidates[0]), quality: 2)
        guard mode == .compact else { return compat }
        // Every candidate at quality 2; quality 11 (about 40× slower) only for the two that are
        // smallest at quality 5, which ranks candidates the way 11 does at a fraction of the cost.
        // A candidate over `maxJSONBytes` cannot fit, so it is not searched when another one can.
        var tried: [EncodedUI] = [compat]
        for bytes in candidates.dropFirst() {
            tried.append(EncodedUI(mode: .compact, json: bytes, compressed: Brotli.compress(bytes), quality: 2))
        }
        let hopeful = candidates.filter { $0.count <= VoltraBudget.maxJSONBytes }
        let finalists = (hopeful.isEmpty ? candidates : hopeful).map { (json: $0, size: Brotli.compress($0, quality: 5).count) }
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

    /// `.fanOut` mode with explicit brotli settings: the fan-out JSON (no element table, styles inline)
    /// compressed once with `settings`. When that stream is over the device's 8:1 ratio (a very
    /// repetitive layout), compact's deduplicated JSON at `settings` instead; and the compatible stream
    /// when that is smaller or neither fits. The result is labelled `.fanOut` either way.
    public static func encode(_ layout: UILayout, fanOut settings: BrotliSettings) -> EncodedUI {
        let fits = { (json: [UInt8], compressed: [UInt8]) in json.count <= VoltraBudget.maxRatio * compressed.count }
        var bytes = JSONValue.object(json(layout, mode: .fanOut)).serialized()
        var compressed = Brotli.compress(bytes, settings)
        if !fits(bytes, compressed) {
            bytes = JSONValue.object(json(layout, mode: .compact)).serialized()
            compressed = Brotli.compress(bytes, settings)
        }
        let compat = JSONValue.object(json(layout, mode: .compatible)).serialized()
        let compatCompressed = Brotli.compress(compat, .compatible)
        guard fits(bytes, compressed) && compressed.count < compatCompressed.count else {
            return EncodedUI(mode: .fanOut, json: compat, compressed: compatCompressed, quality: BrotliSettings.compatible.quality,
                             window: BrotliSettings.compatible.window)
        }
        return EncodedUI(mode: .fanOut, json: bytes, compressed: compressed, quality: settings.quality, window: settings.window)
    }

    /// The payload JSON variants `encode` chooses from in `mode`, the compatible one first, without
    /// duplicates: the root object and its bytes. With `limit`, `.fanOut` renders compact's deduplicated
    /// JSON (its fallback past 8:1, and the costly render: structural dedup) only when the compatible and
    /// the fan-out JSON are both over `limit` bytes, which is all `VoltraBudget.checkBeforeEncoding` asks.
    static func candidates(_ layout: UILayout, mode: EncodingMode, over limit: Int? = nil) -> [(root: JSONObject, json: [UInt8])] {
        let compat = json(layout, mode: .compatible)
        var candidates = [(root: compat, json: JSONValue.object(compat).serialized())]
        if mode == .fanOut {
            for variant in [EncodingMode.fanOut, .compact] {
                if let limit, candidates.contains(where: { $0.json.count <= limit }) { break }
                let root = json(layout, mode: variant)
                let bytes = JSONValue.object(root).serialized()
                if !candidates.contains(where: { $0.json == bytes }) { candidates.append((root, bytes)) }
            }
            return candidates
        }
        guard mode == .compact else { return candidates }
        let variants: [(WireRenderer.StyleSharing, WireRenderer.ElementSharing)] = [
            (.structural, .identity), (.structural, .structural), (.inline, .structural),
        ]
        for (styles, elements) in variants {
            var renderer = WireRenderer(styles: styles, elements: elements)
            let root = renderer.render(layout)
            let bytes = JSONValue.object(root).serialized()
            if !candidates.contains(where: { $0.json == bytes }) { candidates.append((root, bytes)) }
        }
        return candidates
    }
}

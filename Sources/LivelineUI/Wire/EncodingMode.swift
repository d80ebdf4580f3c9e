import Foundation
import LivelineCore

/// How the encoder shapes the JSON.
public enum EncodingMode: String, Sendable, CaseIterable {
    /// Structural dedup of styles and elements, brotli quality 2 or 11, whichever is smallest;
    /// never larger than `.compatible`.
    case compact
    /// Exactly what Voltra's JavaScript server renderer emits (identity sharing, quality 2, window 22).
    case compatible
    /// For one layout per user sent to many users (a fan-out): a JSON without the element table and
    /// stylesheet (every element where it is used, styles inline in `p.s`) compressed once with
    /// `BrotliSettings.fanOut` (quality 5) instead of compact's quality 11 search; brotli's matches do
    /// the dedup at that quality. Compact's deduplicated JSON when the fan-out JSON is over the device's
    /// 8:1 ratio, and the `.compatible` stream when that is smaller or neither fits, so it is never
    /// larger than `.compatible` either.
    case fanOut
}

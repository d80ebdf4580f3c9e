import Foundation
import LivelineCore

/// How the encoder shapes the JSON.
public enum EncodingMode: String, Sendable, CaseIterable {
    /// Structural dedup of styles and elements, brotli quality 2 or 11, whichever is smallest;
    /// never larger than `.compatible`.
    case compact
    /// Exactly what Voltra's JavaScript server renderer emits (identity sharing, quality 2, window 22).
    case compatible
    /// For one layout per user sent to many users (a fan-out): compact's JSON (structural dedup of
    /// styles and elements) compressed once with `BrotliSettings.fanOut` instead of compact's quality 11
    /// search. Falls back to the `.compatible` stream when that is smaller or when the JSON is over 8×
    /// its compressed size, so it is never larger than `.compatible` either.
    case fanOut
}

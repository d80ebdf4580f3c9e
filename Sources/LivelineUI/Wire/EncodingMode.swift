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

import Foundation
import LivelineCore

/// An encoded UI: the v1 JSON, its brotli stream and the base64 string for `uiJsonData`.
public struct EncodedUI: Sendable, Hashable {
    /// The mode that produced it.
    public let mode: EncodingMode
    /// The payload v1 JSON text (UTF-8).
    public let json: [UInt8]
    /// The brotli stream.
    public let compressed: [UInt8]
    /// The brotli quality used (2 or 11; `.fanOut`'s setting, or 2 for its compatible fallback, in that mode).
    public let quality: Int32
    /// The brotli window (lgwin) used.
    public let window: Int32
    /// Standard base64 of `compressed`: the `content-state.uiJsonData` string.
    public let base64: String

    /// Creates the value from its JSON and compressed bytes.
    public init(mode: EncodingMode, json: [UInt8], compressed: [UInt8], quality: Int32, window: Int32 = 22) {
        self.mode = mode
        self.json = json
        self.compressed = compressed
        self.quality = quality
        self.window = window
        self.base64 = Data(compressed).base64EncodedString()
    }

    /// The JSON as a string.
    public var jsonString: String { String(decoding: json, as: UTF8.self) }

    /// JSON bytes per compressed byte; the device decoder fails above 8.
    public var ratio: Double { compressed.isEmpty ? 0 : Double(json.count) / Double(compressed.count) }
}

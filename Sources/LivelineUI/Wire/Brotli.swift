import CBrotli

/// Google's brotli encoder and decoder (libbrotlienc / libbrotlidec).
public enum Brotli {
    /// Compresses `input` in generic mode. Voltra's server uses quality 2 and window 22.
    public static func compress(_ input: [UInt8], quality: Int32 = 2, window: Int32 = 22) -> [UInt8] {
        var size = BrotliEncoderMaxCompressedSize(input.count)
        if size == 0 { size = input.count + 1024 }
        var output = [UInt8](repeating: 0, count: size)
        let ok = input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                BrotliEncoderCompress(quality, window, BROTLI_MODE_GENERIC, input.count, inBuf.baseAddress, &size, outBuf.baseAddress)
            }
        }
        // BrotliEncoderCompress fails only when the output buffer is too small, which
        // BrotliEncoderMaxCompressedSize rules out.
        precondition(ok == BROTLI_TRUE, "BrotliEncoderCompress failed with a worst-case buffer")
        output.removeSubrange(size...)
        return output
    }

    /// Compresses `input` with `settings` in generic mode.
    public static func compress(_ input: [UInt8], _ settings: BrotliSettings) -> [UInt8] {
        compress(input, quality: settings.quality, window: settings.window)
    }

    /// Decompresses into a buffer of `limit` bytes (`BrotliDecoderDecompress`); nil when the
    /// stream is corrupt or its output does not fit.
    public static func decompress(_ input: [UInt8], limit: Int) -> [UInt8]? {
        var size = limit
        var output = [UInt8](repeating: 0, count: max(limit, 1))
        let result = input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                BrotliDecoderDecompress(input.count, inBuf.baseAddress, &size, outBuf.baseAddress)
            }
        }
        guard result == BROTLI_DECODER_RESULT_SUCCESS else { return nil }
        output.removeSubrange(size...)
        return output
    }

    /// How much a stream inflates to, as far as `decompressedSize` decoded it.
    public enum DecompressedSize: Sendable, Hashable {
        /// The whole stream decoded to this many bytes.
        case exactly(Int)
        /// The stream was valid as far as it was decoded, but inflated past this many bytes.
        case moreThan(Int)
        /// The bytes are not a brotli stream (or end early).
        case corrupt
    }

    /// The full decompressed size of a stream, decoding at most `cap` bytes (64 KiB at a time, never
    /// holding more). Used to explain a failure of the bounded decoder: a corrupt stream and one that
    /// inflates past `cap` (a brotli bomb) are told apart.
    public static func decompressedSize(_ input: [UInt8], cap: Int = 64 << 20) -> DecompressedSize {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return .corrupt }
        defer { BrotliDecoderDestroyInstance(state) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        return input.withUnsafeBufferPointer { inBuf -> DecompressedSize in
            var availableIn = input.count
            var nextIn = inBuf.baseAddress
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { outBuf -> BrotliDecoderResult in
                    var nextOut = outBuf.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                total += chunk.count - availableOut
                if total > cap { return .moreThan(cap) }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return .exactly(total)
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return .corrupt
                }
            }
        }
    }
}

/// The two encoder parameters that matter for a payload of a few kilobytes: quality and window.
/// Any standard stream (window 10 to 24, no large-window extension, no custom dictionary) inflates
/// with the device's plain brotli decoder.
public struct BrotliSettings: Sendable, Hashable, CustomStringConvertible {
    /// 0 (fastest) to 11 (smallest).
    public var quality: Int32
    /// log2 of the sliding window, 10 to 24.
    public var window: Int32

    /// Settings with `quality` clamped to 0...11 and `window` to 10...24.
    public init(quality: Int32, window: Int32 = 22) {
        self.quality = min(max(quality, 0), 11)
        self.window = min(max(window, 10), 24)
    }

    /// Voltra's server: quality 2, window 22.
    public static let compatible = BrotliSettings(quality: 2, window: 22)

    /// `.fanOut` mode's settings: quality 10, window 22. On per-user flight trackers (`liveline bench ui`)
    /// quality 10 is the lowest quality within 0.80× of the compatible bytes (qualities 5 to 9 give
    /// 0.82–0.84×) and it costs no more than 11; the window does not matter for payloads this small.
    public static let fanOut = BrotliSettings(quality: 10, window: 22)

    /// `q7 w22`.
    public var description: String { "q\(quality) w\(window)" }
}

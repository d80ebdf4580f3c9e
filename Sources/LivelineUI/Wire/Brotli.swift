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

    /// Compresses `input` with `settings`. Settings with only a quality and a window take the one-shot
    /// `BrotliEncoderCompress` (Voltra's call, byte for byte); the other encoder parameters go through
    /// the streaming API.
    public static func compress(_ input: [UInt8], _ settings: BrotliSettings) -> [UInt8] {
        guard settings.hasEncoderParameters else { return compress(input, quality: settings.quality, window: settings.window) }
        guard let state = BrotliEncoderCreateInstance(nil, nil, nil) else { preconditionFailure("BrotliEncoderCreateInstance failed") }
        defer { BrotliEncoderDestroyInstance(state) }
        func set(_ parameter: BrotliEncoderParameter, _ value: UInt32) {
            precondition(BrotliEncoderSetParameter(state, parameter, value) == BROTLI_TRUE, "brotli rejected parameter \(parameter)")
        }
        set(BROTLI_PARAM_QUALITY, UInt32(settings.quality))
        set(BROTLI_PARAM_LGWIN, UInt32(settings.window))
        set(BROTLI_PARAM_MODE, settings.mode == .text ? BROTLI_MODE_TEXT.rawValue : BROTLI_MODE_GENERIC.rawValue)
        if settings.largeWindow { set(BROTLI_PARAM_LARGE_WINDOW, 1) }
        if !settings.literalContextModeling { set(BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING, 1) }
        if settings.sizeHint { set(BROTLI_PARAM_SIZE_HINT, UInt32(min(input.count, 1 << 30))) }
        if let postfix = settings.postfix, let direct = settings.direct {
            set(BROTLI_PARAM_NPOSTFIX, UInt32(postfix))
            set(BROTLI_PARAM_NDIRECT, UInt32(direct))
        }
        var output = [UInt8](repeating: 0, count: max(BrotliEncoderMaxCompressedSize(input.count), input.count + 1024))
        var written = 0
        let ok = input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf -> Bool in
                var availableIn = input.count
                var nextIn = inBuf.baseAddress
                var availableOut = outBuf.count
                var nextOut = outBuf.baseAddress
                while BrotliEncoderIsFinished(state) == BROTLI_FALSE {
                    guard BrotliEncoderCompressStream(state, BROTLI_OPERATION_FINISH, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                        == BROTLI_TRUE, availableOut > 0 || BrotliEncoderIsFinished(state) == BROTLI_TRUE else { return false }
                }
                written = outBuf.count - availableOut
                return true
            }
        }
        precondition(ok, "BrotliEncoderCompressStream failed with a worst-case buffer")
        output.removeSubrange(written...)
        return output
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

/// Brotli encoder settings: quality and window, and the encoder parameters `liveline bench ui` measures.
/// Any standard stream (window 10 to 24, no large-window extension, no custom dictionary) inflates
/// with the device's plain brotli decoder; `largeWindow` streams do not (the device's decoder does not
/// enable `BROTLI_DECODER_PARAM_LARGE_WINDOW`), so no encoding mode uses them.
public struct BrotliSettings: Sendable, Hashable, CustomStringConvertible {
    /// `BROTLI_PARAM_MODE`.
    public enum Mode: Sendable, Hashable { case generic, text }

    /// 0 (fastest) to 11 (smallest).
    public var quality: Int32
    /// log2 of the sliding window, 10 to 24 (30 with `largeWindow`).
    public var window: Int32
    /// `BROTLI_PARAM_MODE`: generic (Voltra's) or UTF-8 text.
    public var mode: Mode
    /// False sets `BROTLI_PARAM_DISABLE_LITERAL_CONTEXT_MODELING`.
    public var literalContextModeling: Bool
    /// True passes the input's size as `BROTLI_PARAM_SIZE_HINT`.
    public var sizeHint: Bool
    /// `BROTLI_PARAM_NPOSTFIX` (0 to 3), nil for the encoder's choice.
    public var postfix: Int32?
    /// `BROTLI_PARAM_NDIRECT` (a multiple of 2^postfix, at most 15 << postfix), nil for the encoder's choice.
    public var direct: Int32?
    /// `BROTLI_PARAM_LARGE_WINDOW`: a stream only a decoder with large windows enabled inflates.
    public var largeWindow: Bool

    /// Settings with `quality` clamped to 0...11, `window` to 10...24 (10...30 with `largeWindow`),
    /// `postfix` to 0...3 and `direct` to the multiples of 2^postfix up to 15 << postfix (both or neither).
    public init(quality: Int32, window: Int32 = 22, mode: Mode = .generic, literalContextModeling: Bool = true,
                sizeHint: Bool = false, postfix: Int32? = nil, direct: Int32? = nil, largeWindow: Bool = false) {
        self.quality = min(max(quality, 0), 11)
        self.window = min(max(window, 10), largeWindow ? 30 : 24)
        self.mode = mode
        self.literalContextModeling = literalContextModeling
        self.sizeHint = sizeHint
        if let postfix, let direct {
            let p = min(max(postfix, 0), 3)
            self.postfix = p
            self.direct = (min(max(direct, 0), 15 << p) >> p) << p
        } else {
            self.postfix = nil
            self.direct = nil
        }
        self.largeWindow = largeWindow
    }

    /// Voltra's server: quality 2, window 22.
    public static let compatible = BrotliSettings(quality: 2, window: 22)

    /// `.fanOut` mode's settings: quality 5, window 22, on the fan-out JSON (no element table, styles
    /// inline). On 48 per-user flight trackers (`liveline bench ui`) that JSON is 0.77× the compatible
    /// bytes on average and 0.79× at worst from quality 5 up (quality 4 gives 0.86×; compact's deduplicated
    /// JSON needs quality 10 for 0.78×), at several thousand layouts a second on one core. Windows 16 to 24,
    /// text mode, a size hint, NPOSTFIX/NDIRECT and turning off literal context modeling move the bytes
    /// by less than 0.005× on payloads this small.
    public static let fanOut = BrotliSettings(quality: 5, window: 22)

    /// True when a parameter other than quality and window is set.
    var hasEncoderParameters: Bool {
        mode != .generic || !literalContextModeling || sizeHint || postfix != nil || largeWindow
    }

    /// `q7 w22`, then any other parameter: `text`, `nolcm`, `hint`, `p1d12`, `large`.
    public var description: String {
        var parts = ["q\(quality)", "w\(window)"]
        if mode == .text { parts.append("text") }
        if !literalContextModeling { parts.append("nolcm") }
        if sizeHint { parts.append("hint") }
        if let postfix, let direct { parts.append("p\(postfix)d\(direct)") }
        if largeWindow { parts.append("large") }
        return parts.joined(separator: " ")
    }
}

import CZlib

/// A decoded PNG: 8-bit RGB or RGBA, non-interlaced (what Chromium writes), as RGBA pixels.
public struct PNGImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row after row, four bytes (red, green, blue, alpha) per pixel.
    public let rgba: [UInt8]

    /// One pixel.
    public struct Pixel: Sendable, Equatable, CustomStringConvertible {
        public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// A colour written `#RRGGBB` (alpha 255); nil when it is not that.
        public init?(hex: String) {
            let digits = hex.hasPrefix("#") ? hex.dropFirst() : Substring(hex)
            guard digits.count == 6, let value = UInt32(digits, radix: 16) else { return nil }
            self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
        }

        /// The largest difference of one channel (red, green, blue) from `other`.
        public func distance(to other: Pixel) -> Int {
            max(abs(Int(red) - Int(other.red)), abs(Int(green) - Int(other.green)), abs(Int(blue) - Int(other.blue)))
        }

        public var description: String {
            "#" + [red, green, blue].map { String($0, radix: 16, uppercase: true).leftPadded() }.joined() + (alpha == 255 ? "" : " alpha \(alpha)")
        }
    }

    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == width * height * 4, "RGBA bytes do not match the size")
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The pixel at column `x`, row `y` (from the top left).
    public subscript(x: Int, y: Int) -> Pixel {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let i = (y * width + x) * 4
        return Pixel(red: rgba[i], green: rgba[i + 1], blue: rgba[i + 2], alpha: rgba[i + 3])
    }

    /// Decodes a PNG file's bytes.
    /// - Throws: `BrowserError` naming what is wrong: not a PNG, a bad checksum, a truncated chunk,
    ///   or a kind this decoder does not read (not 8-bit, palette or grey, interlaced).
    public init(png bytes: [UInt8]) throws(BrowserError) {
        let header = try PNGChunks(bytes)
        let channels = header.colourType == 6 ? 4 : 3
        let stride = header.width * channels
        let expected = header.height * (stride + 1)
        var raw = [UInt8](repeating: 0, count: expected)
        var length = uLongf(expected)
        let status = raw.withUnsafeMutableBufferPointer { out in
            header.compressed.withUnsafeBufferPointer { input in
                uncompress(out.baseAddress, &length, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(length) == expected else {
            let reason = status == Z_BUF_ERROR ? "more data than \(header.width)x\(header.height) needs" : status == Z_OK ? "\(length) of \(expected) bytes" : "zlib error \(status)"
            throw BrowserError("PNG: the image data does not inflate to \(header.width)x\(header.height) pixels: \(reason)")
        }
        let pixels = try Self.unfilter(raw, width: header.width, height: header.height, channels: channels)
        var rgba = [UInt8](repeating: 255, count: header.width * header.height * 4)
        if channels == 4 {
            rgba = pixels
        } else {
            pixels.withUnsafeBufferPointer { rgb in
                rgba.withUnsafeMutableBufferPointer { out in
                    for p in 0..<(header.width * header.height) {
                        out[p * 4] = rgb[p * 3]
                        out[p * 4 + 1] = rgb[p * 3 + 1]
                        out[p * 4 + 2] = rgb[p * 3 + 2]
                    }
                }
            }
        }
        self.init(width: header.width, height: header.height, rgba: rgba)
    }

    /// Undoes each row's filter (None, Sub, Up, Average, Paeth; PNG spec §9.2).
    private static func unfilter(_ raw: [UInt8], width: Int, height: Int, channels: Int) throws(BrowserError) -> [UInt8] {
        let stride = width * channels
        var out = [UInt8](repeating: 0, count: stride * height)
        var badRow: (row: Int, filter: UInt8)?
        raw.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for row in 0..<height where badRow == nil {
                    let filter = input[row * (stride + 1)]
                    let from = row * (stride + 1) + 1, to = row * stride, above = to - stride
                    switch filter {
                    case 0:
                        for i in 0..<stride { output[to + i] = input[from + i] }
                    case 1:
                        for i in 0..<stride { output[to + i] = input[from + i] &+ (i >= channels ? output[to + i - channels] : 0) }
                    case 2:
                        for i in 0..<stride { output[to + i] = input[from + i] &+ (row > 0 ? output[above + i] : 0) }
                    case 3:
                        for i in 0..<stride {
                            let a = i >= channels ? Int(output[to + i - channels]) : 0, b = row > 0 ? Int(output[above + i]) : 0
                            output[to + i] = input[from + i] &+ UInt8((a + b) / 2)
                        }
                    case 4:
                        for i in 0..<stride {
                            let a = i >= channels ? Int(output[to + i - channels]) : 0, b = row > 0 ? Int(output[above + i]) : 0
                            let c = row > 0 && i >= channels ? Int(output[above + i - channels]) : 0
                            let p = a + b - c
                            let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                            output[to + i] = input[from + i] &+ UInt8(pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                        }
                    default:
                        badRow = (row, filter)
                    }
                }
            }
        }
        if let badRow { throw BrowserError("PNG: row \(badRow.row) has filter type \(badRow.filter) (only 0 to 4 exist)") }
        return out
    }

    /// The size a PNG file's header gives, without decoding the pixels.
    /// - Throws: `BrowserError` when the bytes are not a PNG this decoder reads.
    public static func size(png bytes: [UInt8]) throws(BrowserError) -> (width: Int, height: Int) {
        let header = try PNGChunks(bytes)
        return (header.width, header.height)
    }
}

/// The chunks of a PNG file: the header's fields and the concatenated image data.
private struct PNGChunks {
    var width = 0, height = 0, colourType: UInt8 = 0
    var compressed: [UInt8] = []

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init(_ bytes: [UInt8]) throws(BrowserError) {
        guard bytes.count >= 8, Array(bytes[0..<8]) == Self.signature else { throw BrowserError("PNG: not a PNG file (no PNG signature)") }
        var offset = 8
        var sawHeader = false
        while true {
            guard offset + 12 <= bytes.count else { throw BrowserError("PNG: truncated at byte \(offset) (no IEND chunk)") }
            let length = Int(Self.uint32(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { throw BrowserError("PNG: chunk \(type) at byte \(offset) runs past the end of the file") }
            let data = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            let stored = Self.uint32(bytes, offset + 8 + length)
            let computed = bytes[(offset + 4)..<(offset + 8 + length)].withContiguousStorageIfAvailable { buffer in
                UInt32(crc32(0, buffer.baseAddress, uInt(buffer.count)))
            } ?? 0
            guard stored == computed else { throw BrowserError("PNG: chunk \(type) at byte \(offset) has a bad CRC") }
            offset += 12 + length
            switch type {
            case "IHDR":
                guard length == 13 else { throw BrowserError("PNG: IHDR is \(length) bytes, not 13") }
                try readHeader(data)
                sawHeader = true
            case "IDAT":
                guard sawHeader else { throw BrowserError("PNG: IDAT before IHDR") }
                compressed += data
            case "IEND":
                guard sawHeader else { throw BrowserError("PNG: no IHDR chunk") }
                guard !compressed.isEmpty else { throw BrowserError("PNG: no IDAT chunk") }
                return
            default:
                continue  // ancillary chunks (gamma, colour profile, a suggested palette) do not change the pixels here
            }
        }
    }

    private mutating func readHeader(_ data: [UInt8]) throws(BrowserError) {
        width = Int(Self.uint32(data, 0))
        height = Int(Self.uint32(data, 4))
        let depth = data[8], colour = data[9], compression = data[10], filter = data[11], interlace = data[12]
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15 else { throw BrowserError("PNG: size \(width)x\(height) is out of range (1 to 32768)") }
        guard depth == 8 else { throw BrowserError("PNG: bit depth \(depth) is not read (only 8-bit RGB or RGBA)") }
        guard colour == 2 || colour == 6 else {
            let kind = [0: "greyscale", 3: "palette", 4: "greyscale with alpha"][colour] ?? "colour type \(colour)"
            throw BrowserError("PNG: \(kind) images are not read (only 8-bit RGB or RGBA)")
        }
        guard compression == 0, filter == 0 else { throw BrowserError("PNG: unknown compression \(compression) or filter method \(filter)") }
        guard interlace == 0 else { throw BrowserError("PNG: interlaced images are not read (only non-interlaced)") }
        colourType = colour
    }

    private static func uint32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    }
}

private extension String {
    func leftPadded() -> String { count >= 2 ? self : String(repeating: "0", count: 2 - count) + self }
}

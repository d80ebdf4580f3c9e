import CZlib
import Foundation
import LivelineBrowser
import Testing

/// PNG files built here byte by byte (zlib for the data), so each filter type and each refusal is
/// exercised with pixels known in advance.
@Suite("PNG decoding")
struct PNGImageTests {
    /// A 5x3 image whose channels all differ, so a filter that used the wrong neighbour shows.
    static func pixels(channels: Int, width: Int = 5, height: Int = 3) -> [UInt8] {
        (0..<(width * height * channels)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ ($0 / channels) &* 11 &+ 200) }
    }

    /// Encodes `pixels` with `filter` on every row (0 to 4, the PNG spec's forward filters).
    static func png(_ pixels: [UInt8], width: Int, height: Int, colourType: UInt8, depth: UInt8 = 8, interlace: UInt8 = 0, filter: UInt8) -> [UInt8] {
        let channels = colourType == 6 ? 4 : 3
        let stride = width * channels
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(filter)
            for i in 0..<stride {
                let x = Int(pixels[row * stride + i])
                let a = i >= channels ? Int(pixels[row * stride + i - channels]) : 0
                let b = row > 0 ? Int(pixels[(row - 1) * stride + i]) : 0
                let c = row > 0 && i >= channels ? Int(pixels[(row - 1) * stride + i - channels]) : 0
                let p = a + b - c
                let paeth = abs(p - a) <= abs(p - b) && abs(p - a) <= abs(p - c) ? a : abs(p - b) <= abs(p - c) ? b : c
                let predictor = [0, a, b, (a + b) / 2, paeth][Int(filter)]
                raw.append(UInt8(truncatingIfNeeded: x - predictor))
            }
        }
        var header = be32(width) + be32(height)
        header += [depth, colourType, 0, 0, interlace]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", deflate(raw)) + chunk("IEND", [])
    }

    static func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, uInt($0.count))) }
        return be32(data.count) + body + be32(crc)
    }

    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(compressBound(uLong(bytes.count))))
        var length = uLongf(out.count)
        let status = out.withUnsafeMutableBufferPointer { o in bytes.withUnsafeBufferPointer { compress(o.baseAddress, &length, $0.baseAddress, uLong($0.count)) } }
        precondition(status == Z_OK)
        return Array(out[0..<Int(length)])
    }

    @Test("every filter type decodes to the pixels it encoded", arguments: [UInt8(0), 1, 2, 3, 4])
    func filters(filter: UInt8) throws {
        let rgba = Self.pixels(channels: 4)
        let image = try PNGImage(png: Self.png(rgba, width: 5, height: 3, colourType: 6, filter: filter))
        #expect(image.width == 5 && image.height == 3)
        #expect(image.rgba == rgba)
        let rgb = Self.pixels(channels: 3)
        let opaque = try PNGImage(png: Self.png(rgb, width: 5, height: 3, colourType: 2, filter: filter))
        #expect(opaque[4, 2] == PNGImage.Pixel(red: rgb[42], green: rgb[43], blue: rgb[44], alpha: 255))
        #expect(opaque[0, 0] == PNGImage.Pixel(red: rgb[0], green: rgb[1], blue: rgb[2]))
    }

    @Test("a hex colour reads as a pixel; distance is the largest channel difference")
    func hex() {
        #expect(PNGImage.Pixel(hex: "#0B1220") == PNGImage.Pixel(red: 0x0B, green: 0x12, blue: 0x20))
        #expect(PNGImage.Pixel(hex: "0B12") == nil)
        #expect(PNGImage.Pixel(red: 10, green: 200, blue: 30).distance(to: PNGImage.Pixel(red: 12, green: 190, blue: 30)) == 10)
        #expect(PNGImage.Pixel(red: 10, green: 200, blue: 30).description == "#0AC81E")
    }

    static let refusalCases: [(name: String, bytes: [UInt8], message: String)] = {
        let rgb = pixels(channels: 3)
        let good = png(rgb, width: 5, height: 3, colourType: 2, filter: 1)
        var badCRC = good
        badCRC[29] ^= 0xFF  // a byte of IHDR's CRC
        // The same image with a filter byte of 7 on the first row.
        var raw = [UInt8(7)] + Array(rgb[0..<15])
        for row in 1..<3 { raw += [0] + Array(rgb[(row * 15)..<(row * 15 + 15)]) }
        let badFilter = Array(good[0..<33]) + chunk("IDAT", deflate(raw)) + chunk("IEND", [])
        return [
            ("not a PNG", Array("GIF89a....".utf8), "not a PNG file"),
            ("truncated", Array(good[0..<50]), "chunk IDAT at byte 33 runs past the end"),
            ("bad CRC", badCRC, "IHDR at byte 8 has a bad CRC"),
            ("16-bit", png(rgb + rgb, width: 5, height: 3, colourType: 2, depth: 16, filter: 0), "bit depth 16 is not read"),
            ("palette", png(rgb, width: 5, height: 3, colourType: 3, filter: 0), "palette images are not read"),
            ("interlaced", png(rgb, width: 5, height: 3, colourType: 2, interlace: 1, filter: 0), "interlaced images are not read"),
            ("short data", Array(good[0..<33]) + chunk("IDAT", deflate(Array(raw[0..<20]))) + chunk("IEND", []), "does not inflate to 5x3"),
            ("bad filter", badFilter, "row 0 has filter type 7"),
        ]
    }()

    @Test("files it does not read are refused with the reason", arguments: refusalCases.map(\.name))
    func refusals(name: String) throws {
        let (_, bytes, message) = try #require(Self.refusalCases.first { $0.name == name })
        do {
            _ = try PNGImage(png: bytes)
            Issue.record("\(name): decoded")
        } catch {
            #expect(error.description.contains(message), "\(name): \(error.description)")
        }
    }
}

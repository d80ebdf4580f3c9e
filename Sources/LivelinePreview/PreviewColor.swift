import Foundation
import LivelineCore

/// A colour as the device resolves it: sRGB components and opacity, dynamic system colours taken for
/// the light or dark appearance (HIG values, see docs/previews.md).
struct PreviewColor: Sendable, Equatable {
    var red: Double, green: Double, blue: Double, alpha: Double

    init(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#RRGGBB` as 0–255 components.
    init(hex: UInt32, alpha: Double = 1) {
        self.init(Double(hex >> 16 & 0xFF), Double(hex >> 8 & 0xFF), Double(hex & 0xFF), alpha)
    }

    static let black = PreviewColor(hex: 0x000000)
    static let white = PreviewColor(hex: 0xFFFFFF)
    static let clear = PreviewColor(0, 0, 0, 0)

    /// The CSS value: `#RRGGBB`, or `rgba()` when not opaque.
    var css: String {
        if alpha >= 1 { return hex }
        return "rgba(\(Int(red.rounded())),\(Int(green.rounded())),\(Int(blue.rounded())),\(JSONValue.javaScriptNumber((alpha * 1000).rounded() / 1000)))"
    }

    /// `#RRGGBB`, ignoring opacity.
    var hex: String {
        func two(_ v: Double) -> String {
            let n = Int(min(255, max(0, v.rounded())))
            let digits = Array("0123456789ABCDEF")
            return String([digits[n / 16], digits[n % 16]])
        }
        return "#" + two(red) + two(green) + two(blue)
    }

    /// This colour drawn over an opaque `base`.
    func over(_ base: PreviewColor) -> PreviewColor {
        let a = min(1, max(0, alpha))
        return PreviewColor(red * a + base.red * (1 - a), green * a + base.green * (1 - a), blue * a + base.blue * (1 - a), 1)
    }

    /// The colour as CSS `filter: brightness(amount)` draws it (each component times `amount`).
    func dimmed(_ amount: Double) -> PreviewColor { PreviewColor(red * amount, green * amount, blue * amount, alpha) }

    /// The same colour at `opacity` times its alpha.
    func opacity(_ opacity: Double) -> PreviewColor { PreviewColor(red, green, blue, alpha * min(1, max(0, opacity))) }

    // MARK: Parsing

    /// A colour string as Voltra's parser reads it (`#RGB`, `#RGBA`, `#RRGGBB`, `#RRGGBBAA`, bare
    /// `RRGGBB(AA)`, `rgb()`, `rgba()`, `hsl()`, `hsla()`, system names), nil when the device ignores it.
    static func parse(_ text: String?, dark: Bool) -> PreviewColor? {
        guard let raw = text?.trimmingCharacters(in: .whitespaces), !raw.isEmpty, raw.count <= 64 else { return nil }
        let s = raw.lowercased()
        if let named = named(s, dark: dark) { return named }
        let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
        if hex.allSatisfy(\.isHexDigit), s.hasPrefix("#") ? [3, 4, 6, 8].contains(hex.count) : [6, 8].contains(hex.count) {
            let digits = hex.count <= 4 ? hex.map { "\($0)\($0)" }.joined() : hex
            guard let value = UInt64(digits, radix: 16) else { return nil }
            if digits.count == 8 {
                return PreviewColor(hex: UInt32(value >> 8), alpha: Double(value & 0xFF) / 255)
            }
            return PreviewColor(hex: UInt32(value))
        }
        for function in ["rgba(", "rgb(", "hsla(", "hsl("] where s.hasPrefix(function) && s.hasSuffix(")") {
            let arguments = s.dropFirst(function.count).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard (3...4).contains(arguments.count) else { return nil }
            func number(_ text: String, percentOf scale: Double) -> Double? {
                text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 * scale } : Double(text)
            }
            let alpha = arguments.count == 4 ? number(arguments[3], percentOf: 1) : 1
            if function.hasPrefix("rgb") {
                guard let r = number(arguments[0], percentOf: 255), let g = number(arguments[1], percentOf: 255),
                      let b = number(arguments[2], percentOf: 255), let alpha, [r, g, b, alpha].allSatisfy(\.isFinite) else { return nil }
                return PreviewColor(min(255, max(0, r)), min(255, max(0, g)), min(255, max(0, b)), min(1, max(0, alpha)))
            }
            guard let h = Double(arguments[0].replacingOccurrences(of: "deg", with: "")), let sat = number(arguments[1], percentOf: 1),
                  let light = number(arguments[2], percentOf: 1), let alpha, [h, sat, light, alpha].allSatisfy(\.isFinite) else { return nil }
            return hsl(h, min(1, max(0, sat)), min(1, max(0, light)), min(1, max(0, alpha)))
        }
        return nil
    }

    private static func hsl(_ h: Double, _ s: Double, _ l: Double, _ a: Double) -> PreviewColor {
        let c = (1 - abs(2 * l - 1)) * s
        let hue = (h.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let x = c * (1 - abs(hue.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch hue {
        case ..<1: (c, x, 0)
        case ..<2: (x, c, 0)
        case ..<3: (0, c, x)
        case ..<4: (0, x, c)
        case ..<5: (x, 0, c)
        default: (c, 0, x)
        }
        let m = l - c / 2
        return PreviewColor((r + m) * 255, (g + m) * 255, (b + m) * 255, a)
    }

    /// SwiftUI's named colours, iOS 26 values (HIG colour table), light or dark.
    static func named(_ name: String, dark: Bool) -> PreviewColor? {
        let pairs: [String: (UInt32, UInt32)] = [
            "red": (0xFF383C, 0xFF4245), "orange": (0xFF8D28, 0xFF9230), "yellow": (0xFFCC00, 0xFFD600),
            "green": (0x34C759, 0x30D158), "mint": (0x00C8B3, 0x00DAC3), "teal": (0x00C3D0, 0x00D2E0),
            "cyan": (0x00C0E8, 0x3CD3FE), "blue": (0x0088FF, 0x0091FF), "indigo": (0x6155F5, 0x6D7CFF),
            "purple": (0xCB30E0, 0xDB34F2), "pink": (0xFF2D55, 0xFF375F), "brown": (0xAC7F5E, 0xB78A66),
            "gray": (0x8E8E93, 0x8E8E93), "white": (0xFFFFFF, 0xFFFFFF), "black": (0x000000, 0x000000),
        ]
        if let pair = pairs[name] { return PreviewColor(hex: dark ? pair.1 : pair.0) }
        switch name {
        case "clear", "transparent": return .clear
        case "primary": return Palette(dark: dark).label
        case "secondary": return Palette(dark: dark).secondaryLabel
        default: return nil
        }
    }
}

/// The system colours of one appearance (HIG; the Dynamic Island always uses the dark ones).
struct Palette: Sendable, Equatable {
    var dark: Bool

    var label: PreviewColor { dark ? .white : .black }
    var secondaryLabel: PreviewColor { dark ? PreviewColor(235, 235, 245, 0.6) : PreviewColor(60, 60, 67, 0.6) }
    /// `systemFill`: progress tracks, placeholders.
    var fill: PreviewColor { dark ? PreviewColor(120, 120, 128, 0.36) : PreviewColor(120, 120, 128, 0.2) }
    var separator: PreviewColor { dark ? PreviewColor(84, 84, 88, 0.6) : PreviewColor(60, 60, 67, 0.29) }
    /// `systemBackground`: the Lock Screen's default background.
    var background: PreviewColor { dark ? .black : .white }
    var secondaryBackground: PreviewColor { dark ? PreviewColor(hex: 0x1C1C1E) : PreviewColor(hex: 0xF2F2F7) }
    var blue: PreviewColor { PreviewColor.named("blue", dark: dark)! }
    var green: PreviewColor { PreviewColor.named("green", dark: dark)! }
}

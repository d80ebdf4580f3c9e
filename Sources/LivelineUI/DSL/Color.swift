import LivelineCore

/// A color as Voltra's parser reads it: `#RGB[A]`, `#RRGGBB[AA]`, `rgb()/rgba()`, `hsl()/hsla()` or a name.
public struct Color: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The string on the wire.
    public let value: String

    /// A color written as Voltra accepts it (`"#38BDF8"`, `"rgba(0,0,0,0.5)"`, `"orange"`).
    public init(_ value: String) { self.value = value }
    public init(stringLiteral value: String) { self.value = value }

    /// `#RRGGBB` from a 24-bit integer, e.g. `Color(hex: 0x38BDF8)`.
    public init(hex: UInt32) { value = "#" + String(format6: hex) }

    /// `rgba(r,g,b,a)` with components 0...255 and alpha 0...1.
    public static func rgba(_ r: Int, _ g: Int, _ b: Int, _ a: Double = 1) -> Color {
        a == 1 ? Color("rgb(\(r),\(g),\(b))") : Color("rgba(\(r),\(g),\(b),\(JSONValue.javaScriptNumber(a)))")
    }

    public var description: String { value }

    public static let red: Color = "red", orange: Color = "orange", yellow: Color = "yellow", green: Color = "green"
    public static let mint: Color = "mint", teal: Color = "teal", cyan: Color = "cyan", blue: Color = "blue"
    public static let indigo: Color = "indigo", purple: Color = "purple", pink: Color = "pink", brown: Color = "brown"
    public static let white: Color = "white", gray: Color = "gray", black: Color = "black", clear: Color = "clear"
    public static let primary: Color = "primary", secondary: Color = "secondary"
}

extension String {
    init(format6 value: UInt32) {
        let hex = String(value & 0xFFFFFF, radix: 16, uppercase: true)
        self = String(repeating: "0", count: 6 - hex.count) + hex
    }
}

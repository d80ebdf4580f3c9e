import Foundation

/// The color strings Voltra's Swift `JSColorParser` reads, to lint colors the device would ignore.
enum ColorSyntax {
    static let names: Set<String> = [
        "red", "orange", "yellow", "green", "mint", "teal", "cyan", "blue", "indigo", "purple", "pink", "brown", "white",
        "gray", "black", "clear", "transparent", "primary", "secondary",
    ]

    /// Full prop or style names whose value is a color.
    static let colorKeys: Set<String> = [
        "color", "backgroundColor", "borderColor", "shadowColor", "tintColor", "trackColor", "progressColor",
    ]

    /// Whether the device parses `text` as a color (`backgroundColor` also takes CSS gradients).
    static func isValid(_ text: String, gradientAllowed: Bool = false) -> Bool {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if names.contains(s) { return true }
        let hex = s.hasPrefix("#") ? String(s.dropFirst()) : s
        if hex.allSatisfy(\.isHexDigit), s.hasPrefix("#") ? [3, 4, 6, 8].contains(hex.count) : [6, 8].contains(hex.count) {
            return true
        }
        for function in ["rgb(", "rgba(", "hsl(", "hsla("] where s.hasPrefix(function) && s.hasSuffix(")") {
            let arguments = s.dropFirst(function.count).dropLast().split(separator: ",")
            return (3...4).contains(arguments.count)
        }
        if gradientAllowed {
            return ["linear-gradient(", "radial-gradient(", "conic-gradient("].contains { s.hasPrefix($0) } && s.hasSuffix(")")
        }
        return false
    }
}

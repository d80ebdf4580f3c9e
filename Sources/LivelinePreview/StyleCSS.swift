import Foundation
import LivelineCore

/// A Voltra style object as CSS declarations, read as the device reads it (React Native names,
/// SwiftUI behaviour): lengths in points, colours for the appearance, unsafe values dropped.
struct StyleCSS {
    var palette: Palette
    /// Dynamic Type's scale for text naming a `fontFamily` (the device draws it with
    /// `Font.custom(_:size:)`, which scales; `Font.system(size:)` does not).
    var textScale: Double = 1

    /// A length: a number, a numeric string, `"N%"` or `auto`.
    /// iOS 26's Liquid Glass (`glassEffect` `regular` or `clear`): a translucent capsule (its default
    /// shape) over what lies behind; nothing for other values.
    static func glass(_ style: JSONObject) -> [String] {
        let kind = (style["glassEffect"]?.stringValue ?? "").lowercased()
        guard kind == "regular" || kind == "clear" else { return [] }
        var out = ["background:rgba(255,255,255,\(kind == "regular" ? "0.18" : "0.08"))", "backdrop-filter:blur(12px)",
                   "box-shadow:inset 0 0 0 0.5px rgba(255,255,255,0.4)"]
        if style["borderRadius"] == nil { out.append("border-radius:999px") }
        return out
    }

    static func length(_ v: JSONValue) -> String? {
        if let n = v.numberValue, n.isFinite { return CSS.px(n) }
        if let s = v.stringValue {
            if s == "auto" { return "auto" }
            if s.hasSuffix("%"), let n = Double(s.dropLast()), n.isFinite { return CSS.number(n) + "%" }
            if let n = Double(s), n.isFinite { return CSS.px(n) }
        }
        return nil
    }

    /// A colour value, or a CSS gradient for backgrounds.
    func color(_ v: JSONValue?, gradient: Bool = false) -> String? {
        guard let s = v?.stringValue else { return nil }
        if let c = PreviewColor.parse(s, dark: palette.dark) { return c.css }
        if gradient, s.lowercased().hasPrefix("linear-gradient("), s.hasSuffix(")") { return CSS.safe(s) }
        return nil
    }

    /// The declarations for `style`. Sizes and spacing go on the element's box; text keys set the
    /// font of the element and what it holds (CSS inheritance, as SwiftUI's environment).
    func declarations(_ style: JSONObject) -> [String] {
        var out: [String] = []
        for member in style {
            let v = member.value
            switch member.key {
            case "width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight", "borderRadius", "flexBasis":
                if let l = Self.length(v) { out.append("\(Self.kebab(member.key)):\(l)") }
                if ["width", "height"].contains(member.key), Self.length(v) != nil, Self.length(v) != "auto" {
                    out.append("flex-shrink:0")
                }
            case "padding", "paddingTop", "paddingBottom", "paddingLeft", "paddingRight", "paddingVertical", "paddingHorizontal",
                 "paddingStart", "paddingEnd", "margin", "marginTop", "marginBottom", "marginLeft", "marginRight", "marginVertical",
                 "marginHorizontal", "marginStart", "marginEnd":
                continue  // resolved together below: specific edge over axis over all, as the device does
            case "color":
                if let c = color(v) { out.append("color:\(c)") }
            case "backgroundColor":
                if let c = color(v, gradient: true) { out.append("background:\(c)") }
            case "borderWidth":
                // The device strokes a border only in a `borderColor`: without one it draws none.
                if let n = v.numberValue, n.isFinite, n > 0, let c = color(style["borderColor"]) { out.append("border:\(CSS.px(n)) solid \(c)") }
            case "opacity":
                if let n = v.numberValue, n.isFinite { out.append("opacity:\(CSS.number(min(1, max(0, n))))") }
            case "flexGrow", "flexShrink", "zIndex":
                if let n = v.numberValue, n.isFinite { out.append("\(Self.kebab(member.key)):\(CSS.number(n))") }
            case "aspectRatio":
                if let n = v.numberValue, n.isFinite, n > 0 { out.append("aspect-ratio:\(CSS.number(n))") }
            case "flex":
                if let n = v.numberValue, n.isFinite { out.append(n > 0 ? "flex:\(CSS.number(n)) 1 0%" : "flex:none") }
            case "fontSize":
                if let n = v.numberValue, n.isFinite, n > 0 {
                    out.append("font-size:\(CSS.px(min(style["fontFamily"]?.stringValue != nil ? n * textScale : n, 400)))")
                    // SF's optical sizes: Text below 20 points, Display from 20 (a smaller text inside a
                    // larger one switches back); a family named in the style wins.
                    if style["fontFamily"] == nil { out.append("font-family:var(\(n >= 20 ? "--ll-display" : "--ll-text"))") }
                }
            case "fontWeight":
                // A named family is drawn with `Font.custom(_:size:)`, which takes no weight: regular.
                if style["fontFamily"]?.stringValue == nil, let w = Self.weight(v) { out.append("font-weight:\(w)") }
            case "fontFamily":
                if let s = v.stringValue {
                    out.append("font-family:\(Self.family(s))")
                    out.append("font-weight:400")
                    if style["fontSize"] == nil { out.append("font-size:\(CSS.px(min(17 * textScale, 400)))") }
                }
            case "letterSpacing":
                if let n = v.numberValue, n.isFinite { out.append("letter-spacing:\(CSS.px(n))") }
            case "lineHeight":
                if let n = v.numberValue, n.isFinite, n > 0 { out.append("line-height:\(CSS.px(n))") }
            case "textAlign":
                if let s = v.stringValue, ["left", "center", "right", "justify"].contains(s) { out.append("text-align:\(s)") }
            case "textDecorationLine":
                if let s = v.stringValue, ["underline", "line-through", "underline line-through"].contains(s) {
                    out.append("text-decoration-line:\(s)")
                }
            case "fontVariant":
                let list = v.arrayValue?.compactMap(\.stringValue) ?? []
                if list.contains("tabular-nums") { out.append("font-variant-numeric:tabular-nums") }
                if list.contains("small-caps") { out.append("font-variant-caps:small-caps") }
            case "monospacedDigit":
                if v.boolValue == true { out.append("font-variant-numeric:tabular-nums") }
            case "overflow":
                if v.stringValue == "hidden" { out.append("overflow:hidden") }
            case "alignItems", "alignSelf", "justifyContent", "flexDirection":
                if let s = v.stringValue, s.allSatisfy({ $0.isLetter || $0 == "-" }), s.count < 20 { out.append("\(Self.kebab(member.key)):\(s)") }
            case "glassEffect":
                out += Self.glass(style)
            case "gap", "top", "left", "position":
                continue  // a stack's spacing, and placement, below
            case "shadowRadius":
                if let n = v.numberValue, n.isFinite {
                    let opacity = style["shadowOpacity"]?.numberValue ?? 1
                    let c = (PreviewColor.parse(style["shadowColor"]?.stringValue, dark: palette.dark) ?? .black).opacity(opacity)
                    let offset = style["shadowOffset"]?.objectValue
                    out.append("box-shadow:\(CSS.px(offset?["width"]?.numberValue ?? 0)) \(CSS.px(offset?["height"]?.numberValue ?? 0)) \(CSS.px(n)) \(c.css)")
                }
            case "transform":
                if let t = Self.transform(v) { out.append("transform:\(t)") }
            default:
                continue
            }
        }
        // left/top place the element: absolute (the default) puts its centre there in its parent;
        // relative offsets it from where it would be; static ignores them, as the device does.
        if style["left"] != nil || style["top"] != nil {
            let left = style["left"].flatMap(Self.length) ?? "0px", top = style["top"].flatMap(Self.length) ?? "0px"
            switch style["position"]?.stringValue ?? "absolute" {
            case "absolute": out += ["position:absolute", "left:\(left)", "top:\(top)"]
            case "relative": out += ["position:relative", "left:\(left)", "top:\(top)"]
            default: break
            }
        }
        let padding = PreviewValues.edges(style, "padding")
        if [padding.top, padding.leading, padding.bottom, padding.trailing].contains(where: { $0 != 0 }) {
            out.append("padding:\(CSS.px(padding.top)) \(CSS.px(padding.trailing)) \(CSS.px(padding.bottom)) \(CSS.px(padding.leading))")
        }
        let margin = PreviewValues.edges(style, "margin")
        if [margin.top, margin.leading, margin.bottom, margin.trailing].contains(where: { $0 != 0 }) {
            out.append("margin:\(CSS.px(margin.top)) \(CSS.px(margin.trailing)) \(CSS.px(margin.bottom)) \(CSS.px(margin.leading))")
        }
        if style["borderRadius"] != nil { out.append("overflow:hidden") }
        return out
    }

    /// `bold`, `normal`, or 100…900.
    static func weight(_ v: JSONValue) -> String? {
        let text = v.stringValue ?? v.numberValue.map(JSONValue.javaScriptNumber)
        guard let text else { return nil }
        if text == "bold" { return "700" }
        if text == "normal" { return "400" }
        if let n = Int(text), (100...900).contains(n) { return String(n / 100 * 100) }
        return nil
    }

    /// A font family as the device resolves `Font.custom(name, size:)`: a face iOS ships draws in
    /// its stand-in (monospaced, serif or sans); any other name, SwiftUI's design words included
    /// ("monospaced", "rounded"), is a font the phone does not have and falls back to the system font.
    static func family(_ name: String) -> String {
        let lower = name.lowercased()
        let monospaced: Set = ["menlo", "courier", "courier new"]
        let serif: Set = ["georgia", "times new roman", "baskerville", "didot", "hoefler text", "palatino", "charter", "iowan old style",
                          "cochin", "bodoni 72", "american typewriter", "new york"]
        if monospaced.contains(lower) { return "var(--ll-mono)" }
        if serif.contains(lower) { return "var(--ll-serif)" }
        return "var(--ll-text)"
    }

    /// `transform: [{rotate: "45deg"}, {scale: 2}]` as CSS.
    static func transform(_ v: JSONValue) -> String? {
        var parts: [String] = []
        for entry in v.arrayValue ?? [] {
            guard let object = entry.objectValue else { continue }
            for member in object {
                switch member.key {
                case "rotate", "rotateZ":
                    guard let s = member.value.stringValue else { continue }
                    if s.hasSuffix("deg"), let n = Double(s.dropLast(3)), n.isFinite { parts.append("rotate(\(CSS.number(n))deg)") }
                    if s.hasSuffix("rad"), let n = Double(s.dropLast(3)), n.isFinite { parts.append("rotate(\(CSS.number(n * 180 / .pi))deg)") }
                case "scale", "scaleX", "scaleY":
                    if let n = member.value.numberValue, n.isFinite { parts.append("\(member.key)(\(CSS.number(n)))") }
                default: continue
                }
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// `paddingTop` → `padding-top`.
    static func kebab(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) }
        }
        return out
    }
}

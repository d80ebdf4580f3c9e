import Foundation
import LivelineCore

/// Writes an element tree as HTML with inline CSS, roughly as the device draws it.
///
/// Every text and attribute value is escaped; style values pass only when they are numbers or
/// strings made of characters CSS values need (no `;`, `{`, quotes, `url(`), so a payload cannot
/// inject markup, script or external requests into the page.
struct HTMLRenderer: Sendable {
    var values: PreviewValues

    /// `text` with `& < > " '` escaped, for element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A CSS value from a payload string, or nil when it could break out of the declaration.
    static func safeCSS(_ text: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#%.,()- +")
        let lower = text.lowercased()
        guard !text.isEmpty, text.count <= 200, text.allSatisfy(allowed.contains),
              !["url(", "image(", "expression(", "attr(", "var(", "env("].contains(where: lower.contains) else { return nil }
        return text
    }

    /// A CSS color from a device color string (`#RGB`, `rgb()`, names, gradients for backgrounds).
    static func color(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let named: [String: String] = [
            "primary": "#FFFFFF", "secondary": "rgba(235,235,245,0.6)", "clear": "transparent", "mint": "#00C7BE",
            "teal": "#30B0C7", "cyan": "#32ADE6", "indigo": "#5856D6", "blue": "#0A84FF", "green": "#30D158",
            "red": "#FF453A", "orange": "#FF9F0A", "yellow": "#FFD60A", "pink": "#FF375F", "purple": "#BF5AF2",
            "brown": "#AC8E68", "gray": "#8E8E93",
        ]
        if let mapped = named[text.lowercased()] { return mapped }
        if !text.hasPrefix("#"), [6, 8].contains(text.count), text.allSatisfy(\.isHexDigit) { return "#" + text }
        return safeCSS(text)
    }

    /// `n` points as CSS pixels, to two decimals; `0px` for a value that is not finite.
    static func px(_ n: Double) -> String {
        guard n.isFinite else { return "0px" }
        // Past 1e15 there are no decimals to round, and `n * 100` could overflow.
        return JSONValue.javaScriptNumber(n.magnitude < 1e15 ? (n * 100).rounded() / 100 : n) + "px"
    }

    // MARK: Elements

    /// The element as HTML.
    func render(_ e: UIElement) -> String {
        let style = PreviewValues.style(e)
        var css = Self.css(style)
        let id = e.idString.map { " data-id=\"\(Self.escape($0))\"" } ?? ""
        func tag(_ name: String, _ cls: String, _ extra: [String] = [], _ inner: String) -> String {
            let all = extra + css
            let styleAttribute = all.isEmpty ? "" : " style=\"\(Self.escape(all.joined(separator: ";")))\""
            return "<\(name) class=\"\(cls)\"\(id)\(styleAttribute)>\(inner)</\(name)>"
        }
        let children = PreviewValues.children(e).map(render).joined()
        switch e.component {
        case .text:
            var extra: [String] = []
            if let lines = PreviewValues.lineLimit(e) {
                extra += ["display:-webkit-box", "-webkit-box-orient:vertical", "-webkit-line-clamp:\(lines)", "overflow:hidden"]
            }
            switch PreviewValues.string(e, "multilineTextAlignment") {
            case "center": extra.append("text-align:center")
            case "right": extra.append("text-align:right")
            default: break
            }
            return tag("span", "ll-t", extra, Self.escape(PreviewValues.text(e)))
        case .symbol:
            let name = PreviewValues.string(e, "name") ?? "?"
            var extra: [String] = []
            if let tint = Self.color(PreviewValues.string(e, "tintColor")) { extra.append("color:\(tint)") }
            if let size = PreviewValues.number(e, "size") { extra.append("font-size:\(Self.px(size * 0.8))") }
            let glyph = PreviewValues.symbolGlyphs[name]
            return "<span class=\"ll-sf\" title=\"\(Self.escape(name))\"\(id)\(Self.attribute(extra + css))>"
                + Self.escape(glyph ?? "[sf:\(name)]") + "</span>"
        case .label:
            let icon = PreviewValues.string(e, "systemImage").map { name in
                "<span class=\"ll-sf\" title=\"\(Self.escape(name))\">\(Self.escape(PreviewValues.symbolGlyphs[name] ?? "[sf:\(name)]"))</span> "
            } ?? ""
            return tag("span", "ll-label", [], icon + Self.escape(PreviewValues.string(e, "title") ?? ""))
        case .image:
            let source = PreviewValues.imageSource(e)
            if let data = source.base64, data.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }) {
                return "<img class=\"ll-img\" alt=\"\" src=\"data:image/png;base64,\(data)\"\(id)\(Self.attribute(css))>"
            }
            let fallback = PreviewValues.elements(e, "fallback")
            if source.asset == nil && !fallback.isEmpty { return tag("div", "ll-v", [], fallback.map(render).joined()) }
            return tag("span", "ll-img", [], Self.escape(source.asset.map { "[img:\($0)]" } ?? "[img]"))
        case .toggle:
            let on = PreviewValues.bool(e, "defaultValue") ?? false
            let title = PreviewValues.string(e, "title").map { "<span class=\"ll-t\">\(Self.escape($0))</span>" } ?? ""
            return tag("span", "ll-toggle", [], title + "<span class=\"ll-switch\(on ? " on" : "")\"></span>")
        case .timer:
            // The resolved text, plus the range as data attributes so a page script may tick it.
            var data = ""
            for (prop, attribute) in [("startAtMs", "start-ms"), ("endAtMs", "end-ms"), ("durationMs", "duration-ms")] {
                if let n = PreviewValues.number(e, prop), n.isFinite { data += " data-\(attribute)=\"\(JSONValue.javaScriptNumber(n))\"" }
            }
            data += " data-direction=\"\(PreviewValues.string(e, "direction") == "up" ? "up" : "down")\""
            return "<span class=\"ll-t ll-timer\"\(id)\(data)\(Self.attribute(css))>\(Self.escape(values.timerText(e)))</span>"
        case .button:
            return tag("span", "ll-btn", [], children.isEmpty ? "Button" : children)
        case .linearProgressView:
            let f = values.fraction(e)
            let track = Self.color(PreviewValues.string(e, "trackColor")) ?? "rgba(255,255,255,0.2)"
            let fill = Self.color(PreviewValues.string(e, "progressColor")) ?? "#0A84FF"
            let height = PreviewValues.number(e, "height").map(Self.px) ?? "4px"
            let radius = PreviewValues.number(e, "cornerRadius").map(Self.px) ?? "2px"
            let bar = "<div class=\"ll-bar\" style=\"background:\(track);height:\(height);border-radius:\(radius)\">"
                + "<div style=\"width:\(Self.percent(f));background:\(fill);border-radius:\(radius)\"></div></div>"
            return tag("div", "ll-progress", [], label(e, "label") + bar + label(e, "currentValueLabel"))
        case .circularProgressView:
            let f = values.fraction(e)
            let track = Self.color(PreviewValues.string(e, "trackColor")) ?? "rgba(255,255,255,0.2)"
            let fill = Self.color(PreviewValues.string(e, "progressColor")) ?? "#0A84FF"
            return tag("div", "ll-v", [], ring(f, fill: fill, track: track, inner: label(e, "currentValueLabel")) + label(e, "label"))
        case .gauge:
            let f = values.fraction(e)
            let tint = Self.color(PreviewValues.string(e, "tintColor")) ?? "#FFFFFF"
            let current = label(e, "currentValueLabel")
            if PreviewValues.isCircularGauge(e) {
                return ring(f, fill: tint, track: "rgba(255,255,255,0.2)", inner: current)
            }
            let bar = "<div class=\"ll-bar\" style=\"flex:1;background:rgba(255,255,255,0.2);height:6px;border-radius:3px\">"
                + "<div style=\"width:\(Self.percent(f));background:\(tint);border-radius:3px\"></div></div>"
            return tag("div", "ll-progress", [], current + "<div class=\"ll-h\">" + label(e, "minimumValueLabel") + bar
                       + label(e, "maximumValueLabel") + "</div>")
        case .vStack, .glassContainer, .mask, .link, .view:
            var extra = ["align-items:\(Self.flexAlign(PreviewValues.string(e, "alignment"), default: "center"))"]
            if let spacing = PreviewValues.number(e, "spacing") { extra.append("gap:\(Self.px(spacing))") }
            if e.component == .view {
                extra = []
                if css.contains(where: { $0.hasPrefix("flex-direction") }) == false { extra.append("flex-direction:column") }
            }
            if e.component == .link, let destination = PreviewValues.string(e, "destination") {
                css.append("cursor:pointer")
                return "<div class=\"ll-v ll-link\" title=\"\(Self.escape(destination))\"\(id)\(Self.attribute(extra + css))>\(children)</div>"
            }
            return tag("div", "ll-v", extra, children)
        case .hStack:
            var extra = ["align-items:\(Self.flexAlign(PreviewValues.string(e, "alignment"), default: "center"))"]
            if let spacing = PreviewValues.number(e, "spacing") { extra.append("gap:\(Self.px(spacing))") }
            return tag("div", "ll-h", extra, children)
        case .zStack:
            return tag("div", "ll-z", [], children)
        case .linearGradient:
            return tag("div", "ll-z", gradient(e).map { ["background:\($0)"] } ?? [], children)
        case .groupBox:
            let title = PreviewValues.elements(e, "label").map(render).joined()
            return tag("div", "ll-group", [], (title.isEmpty ? "" : "<div class=\"ll-group-label\">\(title)</div>") + children)
        case .spacer:
            let min = PreviewValues.number(e, "minLength").map(Self.px) ?? "0px"
            return tag("div", "ll-spacer", ["min-width:\(min)", "min-height:\(min)"], "")
        case .divider:
            return tag("div", "ll-divider", [], "")
        case .chart:
            return tag("div", "ll-chart", [], chart(e))
        }
    }

    private static func attribute(_ declarations: [String]) -> String {
        declarations.isEmpty ? "" : " style=\"\(escape(declarations.joined(separator: ";")))\""
    }

    private static func percent(_ f: Double) -> String { JSONValue.javaScriptNumber((f * 1000).rounded() / 10) + "%" }

    private func label(_ e: UIElement, _ name: String) -> String {
        let list = PreviewValues.elements(e, name)
        return list.isEmpty ? "" : "<div class=\"ll-sub\">" + list.map(render).joined() + "</div>"
    }

    private func ring(_ f: Double, fill: String, track: String, inner: String) -> String {
        "<div class=\"ll-ring\" style=\"background:conic-gradient(\(fill) \(Self.percent(f)),\(track) 0)\"><div>\(inner)</div></div>"
    }

    private static func flexAlign(_ value: String?, default fallback: String) -> String {
        switch value {
        case "leading", "top", "topLeading", "firstTextBaseline": "flex-start"
        case "trailing", "bottom", "bottomTrailing", "lastTextBaseline": "flex-end"
        case "center": "center"
        default: fallback
        }
    }

    /// LinearGradient's `colors` (`a|b`), `stops` (`a@0|b@1`) and points as a CSS gradient.
    private func gradient(_ e: UIElement) -> String? {
        var stops: [String] = []
        if let text = PreviewValues.string(e, "stops") {
            for part in text.split(separator: "|") {
                let pieces = part.split(separator: "@")
                guard let c = Self.color(String(pieces[0])) else { continue }
                let at = pieces.count > 1 ? Double(pieces[1]).map { " " + Self.percent($0) } ?? "" : ""
                stops.append(c + at)
            }
        } else if let text = PreviewValues.string(e, "colors") {
            stops = text.split(separator: "|").compactMap { Self.color(String($0)) }
        }
        guard stops.count >= 2 else { return nil }
        func point(_ text: String?, _ fallback: (Double, Double)) -> (Double, Double) {
            guard let text else { return fallback }
            let keywords: [String: (Double, Double)] = [
                "topLeading": (0, 0), "top": (0.5, 0), "topTrailing": (1, 0), "leading": (0, 0.5), "center": (0.5, 0.5),
                "trailing": (1, 0.5), "bottomLeading": (0, 1), "bottom": (0.5, 1), "bottomTrailing": (1, 1),
            ]
            if let k = keywords[text] { return k }
            let xy = text.split(separator: ",").compactMap { Double($0) }
            return xy.count == 2 ? (xy[0], xy[1]) : fallback
        }
        let start = point(PreviewValues.string(e, "startPoint"), (0.5, 0))
        let end = point(PreviewValues.string(e, "endPoint"), (0.5, 1))
        let angle = atan2(end.0 - start.0, start.1 - end.1) * 180 / .pi
        return "linear-gradient(\(JSONValue.javaScriptNumber(angle.rounded()))deg,\(stops.joined(separator: ",")))"
    }

    /// A small inline SVG: bars or a line of the first mark with data, or sector shares as a list.
    private func chart(_ e: UIElement) -> String {
        let marks = PreviewValues.chartMarks(e)
        guard let mark = marks.first(where: { !$0.values.isEmpty }) else { return "<span class=\"ll-t\">[chart]</span>" }
        if mark.kind == "sector" {
            let total = mark.values.reduce(0, +)
            return zip(mark.labels, mark.values).map {
                "<span class=\"ll-t\">\(Self.escape($0)) \(PreviewValues.percent(total > 0 ? $1 / total : 0))</span>"
            }.joined(separator: " ")
        }
        let high = max(mark.values.max() ?? 1, 0), low = min(mark.values.min() ?? 0, 0)
        let span = high > low ? high - low : 1
        let n = Double(mark.values.count)
        func y(_ v: Double) -> String { JSONValue.javaScriptNumber((60 - (v - low) / span * 56).rounded()) }
        var shapes = ""
        if mark.kind == "bar" {
            for (i, v) in mark.values.enumerated() {
                let x = Double(i) * 200 / n
                shapes += "<rect x=\"\(JSONValue.javaScriptNumber(x.rounded()))\" y=\"\(y(v))\" width=\"\(JSONValue.javaScriptNumber(max(1, (200 / n - 2).rounded())))\" height=\"\(JSONValue.javaScriptNumber(max(0, 60 - (Double(y(v)) ?? 60))))\"/>"
            }
        } else {
            let points = mark.values.enumerated().map { i, v in
                JSONValue.javaScriptNumber((n > 1 ? Double(i) * 200 / (n - 1) : 100).rounded()) + "," + y(v)
            }
            shapes = "<polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
        }
        return "<svg viewBox=\"0 0 200 60\" width=\"100%\" height=\"60\" fill=\"currentColor\">\(shapes)</svg>"
    }

    // MARK: Style

    /// CSS declarations for a style object; values that are not safe are dropped.
    static func css(_ style: JSONObject) -> [String] {
        var out: [String] = []
        func length(_ v: JSONValue) -> String? {
            if let n = v.numberValue, n.isFinite { return px(n) }
            if let s = v.stringValue {
                if s == "auto" { return "auto" }
                if s.hasSuffix("%"), Double(s.dropLast()) != nil { return s }
                if let n = Double(s), n.isFinite { return px(n) }
            }
            return nil
        }
        for member in style {
            let v = member.value
            switch member.key {
            case "padding", "paddingTop", "paddingBottom", "paddingLeft", "paddingRight", "margin", "marginTop", "marginBottom",
                 "marginLeft", "marginRight", "width", "height", "minWidth", "maxWidth", "minHeight", "maxHeight", "borderRadius",
                 "gap", "letterSpacing", "top", "left", "fontSize", "lineHeight", "flexBasis":
                if let l = length(v) { out.append("\(kebab(member.key)):\(l)") }
            case "paddingVertical", "paddingHorizontal", "marginVertical", "marginHorizontal",
                 "paddingStart", "paddingEnd", "marginStart", "marginEnd":
                guard let l = length(v) else { continue }
                let base = member.key.hasPrefix("padding") ? "padding" : "margin"
                let sides = member.key.hasSuffix("Vertical") ? ["top", "bottom"] : member.key.hasSuffix("Horizontal") ? ["left", "right"]
                    : member.key.hasSuffix("Start") ? ["left"] : ["right"]
                for side in sides { out.append("\(base)-\(side):\(l)") }
            case "color":
                if let c = color(v.stringValue) { out.append("color:\(c)") }
            case "backgroundColor":
                if let c = color(v.stringValue) { out.append("background:\(c)") }
            case "borderWidth":
                if let n = v.numberValue { out.append("border-width:\(px(n))"); out.append("border-style:solid") }
            case "borderColor":
                if let c = color(v.stringValue) { out.append("border-color:\(c)") }
            case "opacity", "flexGrow", "flexShrink", "zIndex", "aspectRatio":
                if let n = v.numberValue, n.isFinite { out.append("\(kebab(member.key)):\(JSONValue.javaScriptNumber(n))") }
            case "flex":
                if let n = v.numberValue, n.isFinite { out.append(n > 0 ? "flex:\(JSONValue.javaScriptNumber(n)) 1 0%" : "flex:none") }
            case "fontWeight":
                let weight = v.stringValue ?? v.numberValue.map(JSONValue.javaScriptNumber)
                if let weight, ["normal", "bold"].contains(weight) || (Int(weight).map { (100...900).contains($0) } ?? false) {
                    out.append("font-weight:\(weight)")
                }
            case "textAlign", "alignItems", "alignSelf", "justifyContent", "flexDirection", "overflow", "textDecorationLine", "position":
                if let s = v.stringValue, s.allSatisfy({ $0.isLetter || $0 == "-" || $0 == " " }) {
                    out.append("\(member.key == "textDecorationLine" ? "text-decoration-line" : kebab(member.key)):\(s)")
                    if member.key == "position", s == "absolute" { out.append("z-index:1") }
                }
            case "fontFamily":
                if let s = v.stringValue, s.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" }) {
                    out.append("font-family:'\(s)',system-ui")
                }
            case "fontVariant":
                let list = v.arrayValue?.compactMap(\.stringValue) ?? []
                if list.contains("tabular-nums") { out.append("font-variant-numeric:tabular-nums") }
                if list.contains("small-caps") { out.append("font-variant-caps:small-caps") }
            case "shadowRadius":
                if let n = v.numberValue {
                    let c = color(style["shadowColor"]?.stringValue) ?? "rgba(0,0,0,0.5)"
                    let offset = style["shadowOffset"]?.objectValue
                    out.append("box-shadow:\(px(offset?["width"]?.numberValue ?? 0)) \(px(offset?["height"]?.numberValue ?? 0)) \(px(n)) \(c)")
                }
            default:
                continue
            }
        }
        return out
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

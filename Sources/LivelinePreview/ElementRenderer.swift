import Foundation
import LivelineCore
import LivelineUI

/// Writes an element tree as HTML and CSS that follows SwiftUI's layout at real point sizes: stacks
/// as flex boxes with SwiftUI's alignment and spacing, spacers and fills as flex growth, text in the
/// system font stack that truncates with an ellipsis and never breaks inside a word.
struct ElementRenderer {
    var values: PreviewValues
    var palette: Palette
    /// Text is one line unless it sets `numberOfLines` (the compact and minimal Island, the expanded
    /// Island's leading, trailing and center regions).
    var singleLine: Bool
    /// The largest ring a gauge or circular progress view draws at (smaller in the compact and
    /// minimal Island, where accessory gauges fit the 36.67-point height).
    var ringLimit: Double = 44
    /// Set while drawing a Mask's mask element: the masked content, which each opaque shape shows.
    var maskCopy: String?
    /// Set inside a Mask (its content and its mask element), where a nested Mask is not drawn as one.
    var inMask = false
    /// Inside a GlassContainer: the distance under which its glass shapes merge into one (`spacing`, 0 by default).
    var glassMerge: Double = 0

    /// The axis of the stack an element sits in, which decides what a Spacer or a fill does.
    enum Axis { case vertical, horizontal, overlay }

    var styles: StyleCSS { StyleCSS(palette: palette, textScale: values.textScale) }

    /// A region's content: its element, or a fragment's elements top to bottom with a VStack's spacing.
    func region(_ list: [UIElement]) -> String {
        stack(list, axis: .vertical, spacing: nil)
    }

    /// The element as HTML, placed in a stack along `axis`; without its own glass when `glass` is
    /// false (it is part of a merged glass shape, GlassContainer).
    func render(_ e: UIElement, in axis: Axis, glass: Bool = true) -> String {
        let style = PreviewValues.style(e)
        if style["display"]?.stringValue == "none" { return "" }
        var css = placement(e, in: axis) + styles.declarations(style)
        if !glass {
            let own = StyleCSS.glass(style)
            css.removeAll { own.contains($0) }
        }
        let id = e.idString.map { " data-id=\"\(CSS.escape($0))\"" } ?? ""
        func tag(_ name: String, _ cls: String, _ extra: [String], _ inner: String, attributes: String = "") -> String {
            if let copy = maskCopy, let shape = Self.maskShape(style, extra + css) {
                // Inside a Mask's mask element: the shape shows the masked content instead of its own fill.
                return "<\(name) class=\"\(cls) ll-mask-shape\"\(id)\(attributes)\(CSS.style(shape))>\(inner)\(copy)</\(name)>"
            }
            return "<\(name) class=\"\(cls)\"\(id)\(attributes)\(CSS.style(extra + css))>\(inner)</\(name)>"
        }
        switch e.component {
        case .text:
            return tag("span", "ll-text", textCSS(e, lineLimit: PreviewValues.lineLimit(e)), InlineMarkdown.html(PreviewValues.text(e)))
        case .timer:
            var extra = textCSS(e, lineLimit: PreviewValues.lineLimit(e) ?? (singleLine ? 1 : nil))
            extra.append("font-variant-numeric:tabular-nums")
            // A timer's text takes the width it is offered and draws leading-aligned (SwiftUI).
            if axis == .horizontal { extra.append("flex:1 1 auto") }
            return tag("span", "ll-text ll-timer", extra, CSS.escape(values.timerText(e)), attributes: timerData(e))
        case .symbol:
            let name = PreviewValues.string(e, "name") ?? ""
            let box = SymbolMetrics.box(name, size: Layout.symbolSize(e))
            var extra = ["width:\(CSS.px(box.width))", "height:\(CSS.px(box.height))"]
            // `tintColor`, else the first of `colors` (palette and multicolor symbols draw in one colour here).
            let first = PreviewValues.string(e, "colors")?.split(separator: "|").first.map { JSONValue.string(String($0)) }
            if let tint = styles.color(PreviewValues.value(e, "tintColor")) ?? styles.color(first) { extra.append("color:\(tint)") }
            let known = Symbols.resolve(name) != nil
            if known { extra.append("justify-content:flex-start") }
            let inner = Self.symbol(name, weight: PreviewValues.string(e, "weight"), ink: box.ink, grid: SymbolMetrics.of(name).grid)
            return tag("span", known ? "ll-sym" : "ll-sym ll-sym-missing", extra, inner,
                       attributes: " data-symbol=\"\(CSS.escape(name))\" title=\"\(CSS.escape(name))\"")
        case .label:
            let title = PreviewValues.string(e, "title") ?? ""
            var inner = ""
            if let icon = PreviewValues.string(e, "systemImage") {
                let known = Symbols.resolve(icon) != nil
                inner += "<span class=\"ll-sym ll-label-icon\(known ? "" : " ll-sym-missing")\" data-symbol=\"\(CSS.escape(icon))\">"
                    + Self.symbol(icon, weight: nil) + "</span>"
            }
            if !title.isEmpty { inner += "<span class=\"ll-text\"\(CSS.style(textCSS(e, lineLimit: 1)))>\(CSS.escape(title))</span>" }
            return tag("span", "ll-label", [], inner)
        case .image: return image(e, css: css, id: id)
        case .toggle: return toggle(e, tag: tag)
        case .button:
            let children = PreviewValues.children(e)
            let inner = children.isEmpty ? "<span class=\"ll-text\">Button</span>" : children.map { render($0, in: .horizontal) }.joined()
            // The system's button looks: a grey capsule, a tinted one (`borderedProminent`), or none.
            // The device draws a button without a style as its label alone (Voltra's buttons are plain).
            let look: [String] = switch PreviewValues.string(e, "buttonStyle") {
            case "borderedProminent": ["background:\(palette.blue.css)", "color:#FFFFFF"]
            case "bordered": ["background:\(palette.fill.css)"]
            default: ["background:none", "padding:0", "font-weight:inherit"]
            }
            return tag("span", "ll-button", look, inner)
        case .linearProgressView: return linearProgress(e, tag: tag)
        case .circularProgressView: return circularProgress(e, tag: tag)
        case .gauge: return gauge(e, tag: tag)
        case .mask: return mask(e, tag: tag)
        case .glassContainer where glassMerge == 0 && PreviewValues.number(e, "spacing").map({ $0 > 0 && $0.isFinite }) == true:
            var merging = self
            merging.glassMerge = min(PreviewValues.number(e, "spacing") ?? 0, 1000)
            return merging.render(e, in: axis, glass: glass)
        case .vStack, .glassContainer, .link, .view:
            if e.component == .view || PreviewValues.string(e, "layout") == "flex" { return flex(e, tag: tag) }
            let align = Self.crossAlign(PreviewValues.string(e, "alignment"), vertical: false)
            let inner = stack(PreviewValues.children(e), axis: .vertical, spacing: PreviewValues.stackSpacing(e))
            var attributes = ""
            if e.component == .link, let destination = PreviewValues.string(e, "destination") {
                attributes = " title=\"\(CSS.escape(destination))\""
            }
            return tag("div", "ll-v", ["align-items:\(align)"], inner, attributes: attributes)
        case .hStack:
            if PreviewValues.string(e, "layout") == "flex" { return flex(e, tag: tag) }
            let align = Self.crossAlign(PreviewValues.string(e, "alignment"), vertical: true)
            let inner = stack(PreviewValues.children(e), axis: .horizontal, spacing: PreviewValues.stackSpacing(e))
            return tag("div", "ll-h", ["align-items:\(align)"], inner)
        case .zStack:
            let (h, v) = Self.zAlign(PreviewValues.string(e, "alignment"))
            let inner = PreviewValues.children(e).map { render($0, in: .overlay) }.joined()
            return tag("div", "ll-z", ["justify-items:\(h)", "align-items:\(v)"], inner)
        case .linearGradient:
            let inner = PreviewValues.children(e).map { render($0, in: .overlay) }.joined()
            if let g = gradient(e) { css.append("background:\(g)") }
            return tag("div", "ll-z ll-fill", [], inner)
        case .groupBox:
            let title = PreviewValues.elements(e, "label").map { render($0, in: .vertical) }.joined()
            let body = stack(PreviewValues.children(e), axis: .vertical, spacing: nil)
            return tag("div", "ll-group", ["background:\(palette.secondaryBackground.css)"],
                       (title.isEmpty ? "" : "<div class=\"ll-group-label\">\(title)</div>") + body)
        case .spacer:
            let min = PreviewValues.number(e, "minLength").map { max(0, $0) } ?? 8
            switch axis {
            case .horizontal: css.append("min-width:\(CSS.px(min))")
            case .vertical: css.append("min-height:\(CSS.px(min))")
            case .overlay: break
            }
            return tag("div", "ll-spacer", [], "")
        case .divider:
            let line = axis == .horizontal ? ["width:0.5px", "align-self:stretch"] : ["height:0.5px", "align-self:stretch"]
            return tag("div", "ll-divider", line + ["background:\(palette.separator.css)"], "")
        case .chart:
            return tag("div", "ll-chart", [], chart(e))
        }
    }

    // MARK: Stacks

    /// Children of a stack with SwiftUI's spacing: `spacing` between each pair, or by default 8
    /// between views and 2 between texts on top of each other (text spacing comes from the font's leading).
    func stack(_ children: [UIElement], axis: Axis, spacing: Double?) -> String {
        if glassMerge > 0, let merged = mergedGlassStack(children, axis: axis, spacing: spacing) { return merged }
        var out = ""
        var previous: UIElement?
        for child in children where PreviewValues.style(child)["display"]?.stringValue != "none" {
            let html = render(child, in: axis)
            if let previous, !html.isEmpty {
                let gap = spacing.map { max(0, min($0, 1000)) } ?? Self.defaultSpacing(previous, child, axis: axis)
                if gap > 0 {
                    out += "<i class=\"ll-gap\" style=\"\(axis == .horizontal ? "width" : "height"):\(CSS.px(gap))\"></i>"
                }
            }
            out += html
            if !html.isEmpty { previous = child }
        }
        return out
    }

    static func defaultSpacing(_ a: UIElement, _ b: UIElement, axis: Axis) -> Double {
        let texts: Set<Component> = [.text, .timer, .label]
        if axis == .vertical && texts.contains(a.component) && texts.contains(b.component) { return 2 }
        return 8
    }

    /// Voltra's flexbox layout (`View`, and stacks with `layout: "flex"`): React Native defaults.
    func flex(_ e: UIElement, tag: (String, String, [String], String, String) -> String) -> String {
        let style = PreviewValues.style(e)
        let row = (style["flexDirection"]?.stringValue ?? "column").hasPrefix("row")
        let inner = PreviewValues.children(e).map { render($0, in: row ? .horizontal : .vertical) }.joined()
        var extra = ["display:flex", "flex-direction:column", "align-items:stretch"]
        let gap = PreviewValues.stackSpacing(e)
        if gap > 0 { extra.append("gap:\(CSS.px(gap))") }
        return tag("div", "ll-flex", extra, inner, "")
    }

    /// How an element sits in its stack: growing along the axis (Spacer, fills), stretching across it.
    func placement(_ e: UIElement, in axis: Axis) -> [String] {
        var out: [String] = []
        let wide = Layout.expandsHorizontally(e), tall = Layout.expandsVertically(e)
        switch axis {
        case .horizontal:
            if e.component == .spacer { out.append("flex:1 1 0") } else if wide { out.append("flex:1 1 0") }
            if tall { out.append("align-self:stretch") }
        case .vertical:
            if e.component == .spacer { out.append("flex:1 1 0") } else if tall { out.append("flex:1 1 0") }
            if wide { out.append("align-self:stretch") }
        case .overlay:
            if wide { out.append("justify-self:stretch") }
            if tall { out.append("align-self:stretch") }
        }
        if Layout.isRigid(e) { out.append("flex-shrink:0") }
        // flexGrow grows the view both ways, as the device's flexible frame does: across the stack too.
        if let grow = PreviewValues.style(e)["flexGrow"]?.numberValue, grow > 0, axis != .overlay, !out.contains("align-self:stretch") {
            out.append("align-self:stretch")
        }
        // Placed by its centre in its parent (SwiftUI's `position`).
        if Self.isPlaced(e) { out.append("translate:-50% -50%") }
        // A view holding a placed child takes all the space it is offered, as `position` makes it.
        if PreviewValues.children(e).contains(where: Self.isPlaced) { out += ["align-self:stretch", "justify-self:stretch", "flex:1 1 auto"] }
        return out
    }

    /// Whether `left`/`top` place the element absolutely (no `position`, or `absolute`).
    static func isPlaced(_ e: UIElement) -> Bool {
        let style = PreviewValues.style(e)
        guard style["left"] != nil || style["top"] != nil else { return false }
        return (style["position"]?.stringValue ?? "absolute") == "absolute"
    }

    /// `alignment` of a VStack (leading/center/trailing) or an HStack (top/center/bottom) as flex alignment.
    static func crossAlign(_ value: String?, vertical: Bool) -> String {
        switch value {
        case "leading", "top": "flex-start"
        case "trailing", "bottom": "flex-end"
        case "firstTextBaseline", "lastTextBaseline": vertical ? "baseline" : "center"
        default: "center"
        }
    }

    /// A ZStack's `alignment` (`topLeading` …) as grid alignment.
    static func zAlign(_ value: String?) -> (String, String) {
        let v = (value ?? "center").lowercased()
        let h = v.contains("leading") ? "start" : v.contains("trailing") ? "end" : "center"
        let vertical = v.hasPrefix("top") ? "start" : v.hasPrefix("bottom") ? "end" : "center"
        return (h, vertical)
    }

    // MARK: Text

    /// The declarations of a text: one line with a tail ellipsis, or `lineLimit` lines, never
    /// breaking inside a word; alignment from `multilineTextAlignment`.
    func textCSS(_ e: UIElement, lineLimit: Int?) -> [String] {
        var out: [String] = []
        let lines = lineLimit ?? (singleLine ? 1 : nil)
        if lines == 1 {
            out.append("white-space:nowrap")
            out.append("text-overflow:ellipsis")
            out.append("overflow:hidden")
        } else if let lines {
            out += ["display:-webkit-box", "-webkit-box-orient:vertical", "-webkit-line-clamp:\(lines)", "overflow:hidden"]
        }
        switch PreviewValues.string(e, "multilineTextAlignment") {
        case "center": out.append("text-align:center")
        case "right", "trailing": out.append("text-align:right")
        default: break
        }
        return out
    }

    func timerData(_ e: UIElement) -> String {
        var data = ""
        for (prop, attribute) in [("startAtMs", "start-ms"), ("endAtMs", "end-ms"), ("durationMs", "duration-ms")] {
            if let n = PreviewValues.number(e, prop), n.isFinite { data += " data-\(attribute)=\"\(JSONValue.javaScriptNumber(n))\"" }
        }
        data += " data-direction=\"\(PreviewValues.string(e, "direction") == "up" ? "up" : "down")\""
        // What a page needs to tick the timer as the device does (the dashboards' script reads these).
        if PreviewValues.bool(e, "showHours") == true { data += " data-show-hours=\"true\"" }
        if PreviewValues.string(e, "textStyle") == "relative" { data += " data-text-style=\"relative\"" }
        let templates = PreviewValues.templates(e)
        for key in ["running", "completed"] {
            if let text = templates[key] { data += " data-\(key)=\"\(CSS.escape(text))\"" }
        }
        return data
    }
}

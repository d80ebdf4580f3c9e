import Foundation
import LivelineCore
import LivelineUI

/// What SwiftUI's layout decides before drawing: which views take all the room offered along an
/// axis, which keep their size, and about how tall a region's content is (to size the Lock Screen
/// and the expanded Island, which grow with their content between 84 and 160 points).
enum Layout {
    /// Whether the element takes all the width offered: a Spacer or a fill in an HStack, a bar,
    /// a divider, a gradient, `width: "100%"`, `flex > 0`, or a stack holding one of those.
    static func expandsHorizontally(_ e: UIElement) -> Bool {
        let style = PreviewValues.style(e)
        if let width = style["width"] { return width.stringValue == "100%" }
        if style["maxWidth"]?.stringValue == "100%" || (style["flex"]?.numberValue ?? 0) > 0 || (style["flexGrow"]?.numberValue ?? 0) > 0 {
            return true
        }
        switch e.component {
        case .linearProgressView, .chart, .linearGradient: return true
        case .gauge: return !(PreviewValues.string(e, "gaugeStyle") ?? "").lowercased().contains("circular")
        case .hStack: return PreviewValues.children(e).contains { $0.component == .spacer || expandsHorizontally($0) }
        case .vStack, .zStack, .glassContainer, .mask, .link, .view, .groupBox, .button:
            return PreviewValues.children(e).contains { $0.component != .spacer && expandsHorizontally($0) }
        default: return false
        }
    }

    /// Whether the element takes all the height offered: a Spacer in a VStack, a gradient,
    /// `height: "100%"`, or a stack holding one of those.
    static func expandsVertically(_ e: UIElement) -> Bool {
        let style = PreviewValues.style(e)
        if let height = style["height"] { return height.stringValue == "100%" }
        if style["maxHeight"]?.stringValue == "100%" { return true }
        switch e.component {
        case .linearGradient: return true
        case .vStack: return PreviewValues.children(e).contains { $0.component == .spacer || expandsVertically($0) }
        case .hStack, .zStack, .glassContainer, .mask, .link, .groupBox:
            return PreviewValues.children(e).contains { $0.component != .spacer && expandsVertically($0) }
        default: return false
        }
    }

    /// A symbol's point size: its `size` (default 24), about a fifth smaller or larger at the
    /// `small` and `large` image scales. Its frame is SymbolMetrics's box at that size.
    static func symbolSize(_ e: UIElement) -> Double {
        let size = PreviewValues.number(e, "size").map { min(max($0, 1), 400) } ?? 24
        switch PreviewValues.string(e, "scale") {
        case "small": return (size * 0.8 * 100).rounded() / 100
        case "large": return (size * 1.25 * 100).rounded() / 100
        default: return size
        }
    }

    /// Views that keep their size when a row is short of room (SwiftUI serves them first).
    static func isRigid(_ e: UIElement) -> Bool {
        switch e.component {
        case .symbol, .image, .toggle, .button, .circularProgressView, .divider: true
        case .gauge: (PreviewValues.string(e, "gaugeStyle") ?? "").lowercased().contains("circular")
        default: false
        }
    }

    // MARK: Estimating sizes

    /// About how wide and tall the element draws when offered `width` points, for sizing the
    /// presentations that grow with their content. Text widths use Inter's average advance.
    /// `font` is the size inherited from the enclosing views (a stack's `fontSize` applies to its texts).
    static func size(_ e: UIElement, width: Double, singleLine: Bool, values: PreviewValues, font: Double = 17) -> (width: Double, height: Double) {
        let style = PreviewValues.style(e)
        if style["display"]?.stringValue == "none" || style["position"]?.stringValue == "absolute" { return (0, 0) }
        let padding = PreviewValues.edges(style, "padding"), margin = PreviewValues.edges(style, "margin")
        let chromeW = padding.leading + padding.trailing + margin.leading + margin.trailing
        let chromeH = padding.top + padding.bottom + margin.top + margin.bottom
        let fixedW = style["width"]?.numberValue, fixedH = style["height"]?.numberValue
        let inner = max(0, (fixedW ?? width) - chromeW)
        var content = intrinsic(e, width: inner, singleLine: singleLine, values: values, font: fontSize(e, inherited: font, scale: values.textScale))
        if let fixedW { content.width = max(0, fixedW - padding.leading - padding.trailing) }
        if let fixedH { content.height = max(0, fixedH - padding.top - padding.bottom) }
        var h = content.height + chromeH
        if let minH = style["minHeight"]?.numberValue { h = max(h, minH) }
        if let maxH = style["maxHeight"]?.numberValue { h = min(h, maxH) }
        return (min(width, content.width + chromeW), h)
    }

    /// The same for several elements stacked top to bottom with the default spacing.
    static func stackHeight(_ list: [UIElement], width: Double, singleLine: Bool, values: PreviewValues) -> Double {
        var total = 0.0
        for (i, e) in list.enumerated() {
            total += size(e, width: width, singleLine: singleLine, values: values).height
            if i > 0 { total += ElementRenderer.defaultSpacing(list[i - 1], e, axis: .vertical) }
        }
        return total
    }

    /// The element's own `fontSize`, else the one it inherits.
    /// Text naming a `fontFamily` is scaled by Dynamic Type (`scale`), from 17 points when it sets no size.
    static func fontSize(_ e: UIElement, inherited: Double, scale: Double = 1) -> Double {
        let style = PreviewValues.style(e)
        let own = style["fontSize"]?.numberValue.flatMap { $0.isFinite && $0 > 0 ? min($0, 400) : nil }
        if style["fontFamily"]?.stringValue != nil { return min((own ?? 17) * scale, 400) }
        return own ?? inherited
    }

    /// Width of `text` at `size` points: Inter's advances average about 0.55 em (digits 0.62).
    static func textWidth(_ text: String, size: Double) -> Double {
        var em = 0.0
        for c in text {
            if c.isNumber { em += 0.62 } else if c == " " { em += 0.28 } else if c.isUppercase { em += 0.68 } else { em += 0.54 }
        }
        return em * size
    }

    static func textSize(_ text: String, _ e: UIElement, font size: Double, width: Double, singleLine: Bool) -> (width: Double, height: Double) {
        let w = textWidth(text, size: size)
        let limit = PreviewValues.lineLimit(e) ?? (singleLine ? 1 : 40)
        let lines = width > 0 ? min(Double(limit), max(1, (w / width).rounded(.up))) : 1
        let lineHeight = PreviewValues.style(e)["lineHeight"]?.numberValue ?? size * 1.2
        return (min(w, width), lines * lineHeight)
    }

    private static func intrinsic(_ e: UIElement, width: Double, singleLine: Bool, values: PreviewValues, font: Double) -> (width: Double, height: Double) {
        func stack(_ list: [UIElement], vertical: Bool, spacing: Double?) -> (width: Double, height: Double) {
            let shown = list.filter { PreviewValues.style($0)["display"]?.stringValue != "none" }
            if vertical {
                var w = 0.0, h = 0.0
                for (i, child) in shown.enumerated() {
                    let s = size(child, width: width, singleLine: singleLine, values: values, font: font)
                    w = max(w, s.width)
                    h += s.height + (i > 0 ? spacing ?? ElementRenderer.defaultSpacing(shown[i - 1], child, axis: .vertical) : 0)
                }
                return (w, h)
            }
            let gaps = Double(max(0, shown.count - 1)) * (spacing ?? 8)
            let rigid = shown.filter(isRigid).map { size($0, width: width, singleLine: singleLine, values: values, font: font).width }.reduce(0, +)
            let flexible = max(1, shown.filter { !isRigid($0) && $0.component != .spacer }.count)
            let share = max(0, width - gaps - rigid) / Double(flexible)
            var w = gaps, h = 0.0
            for child in shown {
                let s = size(child, width: isRigid(child) ? width : share, singleLine: singleLine, values: values, font: font)
                w += s.width
                h = max(h, s.height)
            }
            return (w, h)
        }
        let captionHeight = 16.0
        switch e.component {
        case .text: return textSize(InlineMarkdown.plain(PreviewValues.text(e)), e, font: font, width: width, singleLine: singleLine)
        case .timer: return textSize(values.timerText(e), e, font: font, width: width, singleLine: singleLine)
        case .label:
            let t = textSize(PreviewValues.string(e, "title") ?? "", e, font: font, width: width, singleLine: true)
            return (t.width + font * 1.45, max(t.height, font * 1.2))
        case .symbol:
            let box = SymbolMetrics.box(PreviewValues.string(e, "name") ?? "", size: symbolSize(e))
            return (box.width, box.height)
        case .image:
            let style = PreviewValues.style(e)
            return (style["width"]?.numberValue ?? 40, style["height"]?.numberValue ?? 40)
        case .toggle: return (51 + (PreviewValues.string(e, "title") == nil ? 0 : 60), 31)
        case .button:
            let s = stack(PreviewValues.children(e), vertical: false, spacing: nil)
            return (s.width + 28, max(s.height, 20) + 14)
        case .linearProgressView:
            let labels = ["label", "currentValueLabel"].filter { !PreviewValues.elements(e, $0).isEmpty }.count
            return (width, (PreviewValues.number(e, "height") ?? 4) + Double(labels) * (captionHeight + 4))
        case .circularProgressView:
            return (40, 40 + (PreviewValues.elements(e, "label").isEmpty ? 0 : captionHeight + 4))
        case .gauge:
            if (PreviewValues.string(e, "gaugeStyle") ?? "").lowercased().contains("circular") { return (44, 44) }
            return (width, 4 + (PreviewValues.elements(e, "currentValueLabel").isEmpty ? 0 : captionHeight + 4))
        case .vStack, .glassContainer, .mask, .link, .view:
            let row = e.component == .view && PreviewValues.style(e)["flexDirection"]?.stringValue?.hasPrefix("row") == true
            return stack(PreviewValues.children(e), vertical: !row, spacing: PreviewValues.stackSpacing(e))
        case .hStack: return stack(PreviewValues.children(e), vertical: false, spacing: PreviewValues.stackSpacing(e))
        case .zStack, .linearGradient:
            let sizes = PreviewValues.children(e).map { size($0, width: width, singleLine: singleLine, values: values, font: font) }
            return (sizes.map(\.width).max() ?? 0, sizes.map(\.height).max() ?? 0)
        case .groupBox:
            let body = stack(PreviewValues.children(e), vertical: true, spacing: nil)
            return (width, body.height + 32 + (PreviewValues.elements(e, "label").isEmpty ? 0 : 28))
        case .spacer: return (0, PreviewValues.number(e, "minLength") ?? 8)
        case .divider: return (width, 0.5)
        case .chart: return (width, 60)
        }
    }
}

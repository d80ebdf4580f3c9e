import LivelineCore
import LivelineUI

/// Lays out one element tree as monospaced text, roughly as SwiftUI would: stacks side by side or
/// top to bottom, spacers taking the room left, text wrapping when a row is too narrow.
///
/// Points become columns at about 8 points a column (padding 16 is two columns) and lines at about
/// 16 points a line; colors, fonts and backgrounds are not drawn.
struct TextRenderer {
    var values: PreviewValues
    /// Ideal widths and expansion, computed once per element (layout asks for them repeatedly).
    /// Used by one preview call on one thread.
    private let memo = Memo()

    init(values: PreviewValues) { self.values = values }

    private final class Memo {
        var ideal: [ObjectIdentifier: Int] = [:]
        var expands: [ObjectIdentifier: Bool] = [:]
    }

    // MARK: Measuring

    /// The width the element wants on one line, before any wrapping.
    func ideal(_ e: UIElement) -> Int {
        if let known = memo.ideal[ObjectIdentifier(e)] { return known }
        let width = measure(e)
        memo.ideal[ObjectIdentifier(e)] = width
        return width
    }

    private func measure(_ e: UIElement) -> Int {
        let box = chrome(e)
        let content: Int
        switch e.component {
        case .text: content = TextBlock.wrap(InlineMarkdown.plain(PreviewValues.text(e)), to: Int.max / 4).map(TextBlock.columns).max() ?? 0
        case .symbol: content = TextBlock.columns(symbol(e))
        case .label: content = TextBlock.columns(label(e))
        case .image:
            let fallback = PreviewValues.elements(e, "fallback")
            content = imageIsMissing(e) && !fallback.isEmpty ? stackIdeal(fallback) : TextBlock.columns(image(e))
        case .toggle: content = TextBlock.columns(toggle(e))
        case .timer: content = TextBlock.columns(values.timerText(e))
        case .button:
            let children = PreviewValues.children(e)
            content = (children.isEmpty ? 6 : stackIdeal(children)) + 4
        case .linearProgressView, .gauge, .circularProgressView:
            content = progressIdeal(e)
        case .hStack:
            let children = PreviewValues.children(e)
            content = children.map(ideal).reduce(0, +) + max(0, children.count - 1) * gap(e)
        case .vStack, .zStack, .glassContainer, .mask, .link, .view, .linearGradient:
            content = stackIdeal(PreviewValues.children(e))
        case .groupBox:
            let label = PreviewValues.elements(e, "label")
            content = max(stackIdeal(PreviewValues.children(e)), stackIdeal(label) + 2) + 2
        case .spacer: content = 0
        case .divider: content = 1
        case .chart: content = max(12, (PreviewValues.chartMarks(e).map(\.values.count).max() ?? 0) + 8)
        }
        if let fixed = fixedWidth(e) { return fixed + box.leading + box.trailing }
        return content + box.leading + box.trailing
    }

    private func stackIdeal(_ list: [UIElement]) -> Int { list.map(ideal).max() ?? 0 }

    /// Points as columns (about 8 points a column), clamped to a sane range.
    static func columns(_ points: Double) -> Int {
        points.isFinite ? Int(min(max(points / 8, 0), 400).rounded()) : 0
    }

    /// Points as lines (about 16 points a line), at most 4.
    static func lines(_ points: Double) -> Int {
        points.isFinite ? Int(min(max(points / 16, 0), 4)) : 0
    }

    /// Whether the element takes all the width it is offered (a bar, a divider, a row with a spacer).
    func expands(_ e: UIElement) -> Bool {
        if let known = memo.expands[ObjectIdentifier(e)] { return known }
        let result = computeExpands(e)
        memo.expands[ObjectIdentifier(e)] = result
        return result
    }

    private func computeExpands(_ e: UIElement) -> Bool {
        if fixedWidth(e) != nil { return false }
        let style = PreviewValues.style(e)
        if style["width"]?.stringValue == "100%" || style["flex"].flatMap(\.numberValue).map({ $0 > 0 }) == true
            || style["flexGrow"].flatMap(\.numberValue).map({ $0 > 0 }) == true {
            return true
        }
        switch e.component {
        case .linearProgressView, .divider, .chart, .spacer: return true
        case .gauge: return !PreviewValues.isCircularGauge(e)
        case .hStack, .vStack, .zStack, .glassContainer, .mask, .link, .view, .groupBox, .button, .linearGradient:
            return PreviewValues.children(e).contains(where: expands)
        default: return false
        }
    }

    /// A `width` style in points, as columns.
    private func fixedWidth(_ e: UIElement) -> Int? {
        guard let points = PreviewValues.style(e)["width"]?.numberValue, points >= 0 else { return nil }
        return Self.columns(points)
    }

    /// Columns between the children of an HStack: one by default, `spacing` at 8 points a column.
    private func gap(_ e: UIElement) -> Int {
        guard let spacing = PreviewValues.number(e, "spacing") ?? PreviewValues.style(e)["gap"]?.numberValue else { return 1 }
        return min(4, Self.columns(spacing))
    }

    /// Padding, border and margin, in columns and lines.
    private func chrome(_ e: UIElement) -> (top: Int, leading: Int, bottom: Int, trailing: Int) {
        let style = PreviewValues.style(e)
        let padding = PreviewValues.edges(style, "padding")
        let margin = PreviewValues.edges(style, "margin")
        let border = bordered(style) ? 1 : 0
        let cols = Self.columns, rows = Self.lines
        return (rows(padding.top) + rows(margin.top) + border, cols(padding.leading) + cols(margin.leading) + border,
                rows(padding.bottom) + rows(margin.bottom) + border, cols(padding.trailing) + cols(margin.trailing) + border)
    }

    private func bordered(_ style: JSONObject) -> Bool { (style["borderWidth"]?.numberValue ?? 0) > 0 }

    // MARK: Rendering

    /// The element in at most `width` columns.
    func render(_ e: UIElement, width: Int) -> TextBlock {
        let width = max(0, width)
        let style = PreviewValues.style(e)
        if style["display"]?.stringValue == "none" || style["opacity"]?.numberValue == 0 { return .empty }
        let box = chrome(e)
        let available = max(0, min(width, fixedWidth(e).map { $0 + box.leading + box.trailing } ?? width) - box.leading - box.trailing)
        var block = content(e, width: available)
        if expands(e) || fixedWidth(e) != nil { block = block.padded(to: available) }
        if block.isEmpty && !bordered(style) { return block }
        let padding = PreviewValues.edges(style, "padding")
        let margin = PreviewValues.edges(style, "margin")
        let cols = Self.columns, rows = Self.lines
        block = block.inset(top: rows(padding.top), leading: cols(padding.leading), bottom: rows(padding.bottom), trailing: cols(padding.trailing))
        if bordered(style) { block = block.framed(rounded: (style["borderRadius"]?.numberValue ?? 0) > 0, margin: 0) }
        return block.inset(top: rows(margin.top), leading: cols(margin.leading), bottom: rows(margin.bottom), trailing: cols(margin.trailing))
    }

    /// Several elements top to bottom (a fragment, a region with more than one root).
    func renderStack(_ list: [UIElement], width: Int, alignment: HorizontalPlacement = .center) -> TextBlock {
        let blocks = list.filter { $0.component != .spacer }.map { render($0, width: width) }
        let common = list.contains(where: expands) ? width : min(width, blocks.map(\.width).max() ?? 0)
        return TextBlock.vertical(blocks, width: common, alignment: alignment)
    }

    private func content(_ e: UIElement, width: Int) -> TextBlock {
        switch e.component {
        case .text:
            let block = TextBlock(TextBlock.wrap(InlineMarkdown.plain(PreviewValues.text(e)), to: width))
            let aligned = block.padded(to: block.width, textAlignment(e))
            return PreviewValues.lineLimit(e).map { aligned.limited(to: $0) } ?? aligned
        case .symbol: return line(symbol(e), width)
        case .label: return TextBlock(TextBlock.wrap(label(e), to: width))
        case .image:
            let fallback = PreviewValues.elements(e, "fallback")
            if imageIsMissing(e) && !fallback.isEmpty { return renderStack(fallback, width: width) }
            return line(image(e), width)
        case .toggle: return line(toggle(e), width)
        case .timer: return TextBlock(TextBlock.wrap(values.timerText(e), to: width))
        case .button:
            let children = PreviewValues.children(e)
            let inner = children.isEmpty ? TextBlock(["Button"]) : renderStack(children, width: max(0, width - 4))
            if inner.height == 1 { return line("[ " + inner.lines[0].trimmingTrailingSpaces + " ]", width) }
            return inner.framed(rounded: true)
        case .linearProgressView: return linearProgress(e, width: width)
        case .circularProgressView: return circular(e, width: width)
        case .gauge: return PreviewValues.isCircularGauge(e) ? circular(e, width: width) : linearGauge(e, width: width)
        case .vStack, .glassContainer, .view, .mask, .link:
            let flexRow = e.component == .view && PreviewValues.style(e)["flexDirection"]?.stringValue == "row"
            if flexRow { return row(e, width: width, alignment: .center) }
            var spacing = 0
            if let points = PreviewValues.number(e, "spacing"), points >= 24 { spacing = 1 }
            let children = PreviewValues.children(e).filter { $0.component != .spacer }
            let blocks = children.map { render($0, width: width) }
            let common = expands(e) ? width : min(width, blocks.map(\.width).max() ?? 0)
            return TextBlock.vertical(blocks, width: common, alignment: stackAlignment(e), spacing: spacing)
        case .hStack: return row(e, width: width, alignment: rowAlignment(e))
        case .zStack, .linearGradient:
            let blocks = PreviewValues.children(e).map { render($0, width: width) }
            return TextBlock.overlay(blocks, horizontal: stackAlignment(e), vertical: .center)
        case .groupBox:
            let label = renderStack(PreviewValues.elements(e, "label"), width: max(0, width - 6), alignment: .leading)
            let body = renderStack(PreviewValues.children(e), width: max(0, width - 4), alignment: .leading)
            let title = label.lines.first?.trimmingTrailingSpaces
            let inner = TextBlock.vertical(Array(label.lines.dropFirst()).isEmpty ? [body] : [TextBlock(Array(label.lines.dropFirst())), body])
            return (inner.isEmpty ? TextBlock([""]) : inner).framed(rounded: true, title: title)
        case .spacer: return .empty
        case .divider: return TextBlock([String(repeating: "─", count: width)])
        case .chart: return chart(e, width: width)
        }
    }

    private func line(_ text: String, _ width: Int) -> TextBlock { TextBlock([TextBlock.truncate(text, to: width)]) }

    private func textAlignment(_ e: UIElement) -> HorizontalPlacement {
        switch PreviewValues.string(e, "multilineTextAlignment") ?? PreviewValues.style(e)["textAlign"]?.stringValue {
        case "center": .center
        case "right": .trailing
        default: .leading
        }
    }

    private func stackAlignment(_ e: UIElement) -> HorizontalPlacement {
        let value = PreviewValues.string(e, "alignment") ?? PreviewValues.style(e)["alignItems"]?.stringValue ?? "center"
        switch value {
        case "leading", "topLeading", "bottomLeading", "flex-start", "start": return .leading
        case "trailing", "topTrailing", "bottomTrailing", "flex-end", "end": return .trailing
        default: return .center
        }
    }

    private func rowAlignment(_ e: UIElement) -> VerticalPlacement {
        switch PreviewValues.string(e, "alignment") {
        case "top", "firstTextBaseline": .top
        case "bottom", "lastTextBaseline": .bottom
        default: .center
        }
    }

    /// An HStack: children side by side. Each child gets a fair share of the width (narrow ones
    /// keep their ideal width, wide ones wrap); expanding children, else spacers, take what is left.
    private func row(_ e: UIElement, width: Int, alignment: VerticalPlacement) -> TextBlock {
        let children = PreviewValues.children(e).filter {
            let s = PreviewValues.style($0)
            return s["display"]?.stringValue != "none"
        }
        guard !children.isEmpty else { return .empty }
        let gapWidth = gap(e)
        let gaps = Array(repeating: gapWidth, count: children.count - 1)
        var remaining = max(0, width - gaps.reduce(0, +))
        var widths = Array(repeating: 0, count: children.count)
        let spacers = children.indices.filter { children[$0].component == .spacer }
        for i in spacers {
            let min = Self.columns(PreviewValues.number(children[i], "minLength") ?? 0)
            widths[i] = min
            remaining = max(0, remaining - min)
        }
        let flexible = children.indices.filter { children[$0].component != .spacer && expands(children[$0]) }
        var fixed = children.indices.filter { children[$0].component != .spacer && !expands(children[$0]) }
        // Views that cannot wrap (symbols, images) get their width first, as SwiftUI serves the least
        // flexible views first; the others share the rest, narrow ones first.
        fixed.sort { (rigid(children[$0]) ? 0 : 1, ideal(children[$0])) < (rigid(children[$1]) ? 0 : 1, ideal(children[$1])) }
        // Each text keeps a few columns even when a symbol is wide, so a crowded row still shows it.
        var reserved = Array(repeating: 0, count: children.count)
        for i in fixed where !rigid(children[i]) {
            reserved[i] = min(ideal(children[i]), 3, remaining)
            remaining -= reserved[i]
        }
        for i in fixed where rigid(children[i]) {
            widths[i] = min(ideal(children[i]), remaining)
            remaining -= widths[i]
        }
        remaining += reserved.reduce(0, +)
        var left = fixed.count + flexible.count - fixed.filter { rigid(children[$0]) }.count
        for i in fixed where !rigid(children[i]) {
            let share = remaining / max(1, left)
            widths[i] = min(ideal(children[i]), max(reserved[i], share))
            remaining -= widths[i]
            left -= 1
        }
        var blocks = children.indices.map { i in children[i].component == .spacer ? TextBlock([], width: widths[i]) : nil as TextBlock? }
        for i in fixed {
            let block = oneLine(children[i], render(children[i], width: widths[i]), width: widths[i])
            remaining += widths[i] - block.width
            widths[i] = block.width
            blocks[i] = block
        }
        let grow = flexible.isEmpty ? spacers : flexible
        if !grow.isEmpty {
            let each = remaining / grow.count
            var extra = remaining - each * grow.count
            for i in grow {
                widths[i] += each + (extra > 0 ? 1 : 0)
                if extra > 0 { extra -= 1 }
            }
        }
        for i in flexible { blocks[i] = render(children[i], width: widths[i]) }
        let resolved = children.indices.map { i in
            let block = blocks[i] ?? .empty
            return TextBlock(block.lines, width: widths[i])
        }
        // Dividers in a row stand upright, as tall as the row.
        let height = resolved.map(\.height).max() ?? 0
        let upright = children.indices.map { i in
            children[i].component == .divider ? TextBlock(Array(repeating: "│", count: max(1, height)), width: 1) : resolved[i]
        }
        return TextBlock.horizontal(upright, gaps: gaps, alignment: alignment)
    }

    /// A text in a row stays on one line, cut with `…` when short of room, as SwiftUI truncates a
    /// label beside others rather than breaking a name over lines (unless it sets `numberOfLines`).
    private func oneLine(_ e: UIElement, _ block: TextBlock, width: Int) -> TextBlock {
        guard [.text, .timer, .label].contains(e.component), block.height > 1, PreviewValues.lineLimit(e) == nil,
              PreviewValues.style(e).isEmpty || !bordered(PreviewValues.style(e)) else { return block }
        let joined = block.lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
        return TextBlock([TextBlock.truncate(joined, to: width)])
    }

    /// Views drawn on one line that cannot wrap.
    private func rigid(_ e: UIElement) -> Bool {
        switch e.component {
        case .symbol, .image, .toggle, .circularProgressView, .divider: true
        case .gauge: PreviewValues.isCircularGauge(e)
        default: false
        }
    }

    // MARK: Leaves

    func symbol(_ e: UIElement) -> String { "[sf:\(PreviewValues.string(e, "name") ?? "?")]" }

    private func label(_ e: UIElement) -> String {
        let title = PreviewValues.string(e, "title") ?? ""
        guard let icon = PreviewValues.string(e, "systemImage") else { return title }
        return "[sf:\(icon)]" + (title.isEmpty ? "" : " " + title)
    }

    private func imageIsMissing(_ e: UIElement) -> Bool {
        let source = PreviewValues.imageSource(e)
        return source.asset == nil && source.base64 == nil
    }

    private func image(_ e: UIElement) -> String {
        let source = PreviewValues.imageSource(e)
        if let asset = source.asset { return "[img:\(asset)]" }
        return "[img]"
    }

    private func toggle(_ e: UIElement) -> String {
        let on = PreviewValues.bool(e, "defaultValue") ?? false
        let title = PreviewValues.string(e, "title") ?? ""
        return (on ? "[x]" : "[ ]") + (title.isEmpty ? "" : " " + title)
    }

    private func progressIdeal(_ e: UIElement) -> Int {
        let labels = ["label", "currentValueLabel", "minimumValueLabel", "maximumValueLabel"].map { stackIdeal(PreviewValues.elements(e, $0)) }
        if e.component == .circularProgressView || PreviewValues.isCircularGauge(e) {
            return max(labels[0], 2 + max(labels[1], 4))
        }
        return max(labels[0], labels[1], 12 + labels[2] + labels[3])
    }

    /// `██████░░░░` across `width`.
    static func bar(_ fraction: Double, width: Int) -> String {
        guard width > 0 else { return "" }
        let share = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((share * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    /// ○ ◔ ◑ ◕ ●
    static func ring(_ fraction: Double) -> String {
        switch fraction {
        case ..<0.0001: "○"
        case ..<0.375: "◔"
        case ..<0.625: "◑"
        case ..<0.9999: "◕"
        default: "●"
        }
    }

    private func linearProgress(_ e: UIElement, width: Int) -> TextBlock {
        let label = renderStack(PreviewValues.elements(e, "label"), width: width, alignment: .leading)
        let current = renderStack(PreviewValues.elements(e, "currentValueLabel"), width: width, alignment: .leading)
        let bar = TextBlock([Self.bar(values.fraction(e), width: width)])
        return TextBlock.vertical([label, bar, current], width: width)
    }

    private func linearGauge(_ e: UIElement, width: Int) -> TextBlock {
        let current = renderStack(PreviewValues.elements(e, "currentValueLabel"), width: width)
        let low = renderStack(PreviewValues.elements(e, "minimumValueLabel"), width: width / 3).lines.first?.trimmingTrailingSpaces ?? ""
        let high = renderStack(PreviewValues.elements(e, "maximumValueLabel"), width: width / 3).lines.first?.trimmingTrailingSpaces ?? ""
        let ends = (low.isEmpty ? 0 : TextBlock.columns(low) + 1) + (high.isEmpty ? 0 : TextBlock.columns(high) + 1)
        let bar = (low.isEmpty ? "" : low + " ") + Self.bar(values.fraction(e), width: max(1, width - ends)) + (high.isEmpty ? "" : " " + high)
        return TextBlock.vertical([current, TextBlock([bar])], width: width, alignment: .center)
    }

    private func circular(_ e: UIElement, width: Int) -> TextBlock {
        let f = values.fraction(e)
        let current = renderStack(PreviewValues.elements(e, "currentValueLabel"), width: max(0, width - 2))
        let text = current.lines.first?.trimmingTrailingSpaces ?? PreviewValues.percent(f)
        let label = renderStack(PreviewValues.elements(e, "label"), width: width)
        return TextBlock.vertical([TextBlock([TextBlock.truncate(Self.ring(f) + " " + text, to: width)]), label], alignment: .center)
    }

    private func chart(_ e: UIElement, width: Int) -> TextBlock {
        let marks = PreviewValues.chartMarks(e)
        guard let mark = marks.first(where: { !$0.values.isEmpty }) else { return line("[chart]", width) }
        if mark.kind == "sector" {
            let total = mark.values.reduce(0, +)
            let parts = zip(mark.labels, mark.values).map { "\($0) \(PreviewValues.percent(total > 0 ? $1 / total : 0))" }
            return TextBlock(TextBlock.wrap("[chart] " + parts.joined(separator: ", "), to: width))
        }
        let levels = Array("▁▂▃▄▅▆▇█")
        let low = min(0, mark.values.min() ?? 0), high = mark.values.max() ?? 1
        var values = mark.values
        let room = max(1, width - 8)
        if values.count > room { values = (0..<room).map { mark.values[$0 * mark.values.count / room] } }
        let spark = values.map { v in
            let level = (v - low) / (high - low) * 7.999
            return levels[level.isFinite ? Int(min(7, max(0, level))) : 0]
        }
        return line("[chart] " + String(spark), width)
    }
}

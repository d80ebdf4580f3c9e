/// A rectangle of monospaced text: lines of at most `width` display columns.
///
/// Widths count terminal columns, not characters: East Asian wide characters and emoji take two,
/// combining marks none. Every operation keeps lines at or under the width it is given.
struct TextBlock: Sendable, Equatable {
    /// The lines, without trailing padding unless padded on purpose.
    var lines: [String]
    /// The display width the block occupies (at least the widest line).
    var width: Int

    /// A block of `lines`, as wide as the widest.
    init(_ lines: [String]) {
        self.lines = lines
        self.width = lines.map(TextBlock.columns).max() ?? 0
    }

    /// A block of `lines` occupying `width` columns.
    init(_ lines: [String], width: Int) {
        self.lines = lines
        self.width = max(width, lines.map(TextBlock.columns).max() ?? 0)
    }

    /// Nothing: no lines, no width.
    static let empty = TextBlock([])

    var height: Int { lines.count }
    var isEmpty: Bool { lines.isEmpty }

    // MARK: Measuring and cutting strings

    /// Display columns of one character.
    static func columns(_ character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii != 0x7F ? 1 : 0 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return 2 }
        if scalars.count > 1, scalars.contains(where: { $0.value == 0xFE0F }), first.properties.isEmoji { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    /// Display columns of a string.
    static func columns(_ text: some StringProtocol) -> Int {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        return text.reduce(0) { $0 + columns($1) }
    }

    private static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    /// `text` cut to at most `width` columns, ending in `…` when something was cut.
    static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = columns(character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` padded with spaces to `width` columns, placed by `alignment`.
    static func pad(_ text: String, to width: Int, _ alignment: HorizontalPlacement = .leading) -> String {
        let gap = max(0, width - columns(text))
        switch alignment {
        case .leading: return text + String(repeating: " ", count: gap)
        case .center: return String(repeating: " ", count: gap / 2) + text + String(repeating: " ", count: gap - gap / 2)
        case .trailing: return String(repeating: " ", count: gap) + text
        }
    }

    /// Word-wraps `text` (which may hold newlines) to lines of at most `width` columns, breaking
    /// only between words: a word longer than a line is cut with `…` (never split over lines).
    static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var used = 0
            let count = lines.count
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let w = columns(word)
                if used > 0 && used + 1 + w <= width {
                    line += " " + word
                    used += 1 + w
                    continue
                }
                if used > 0 { lines.append(line); line = ""; used = 0 }
                if w > width {
                    lines.append(truncate(String(word), to: width))
                    continue
                }
                line = String(word)
                used = w
            }
            if used > 0 || lines.count == count { lines.append(line) }
        }
        return lines
    }

    // MARK: Combining blocks

    /// Every line padded to exactly `width` columns (lines too wide are truncated).
    func padded(to width: Int, _ alignment: HorizontalPlacement = .leading) -> TextBlock {
        TextBlock(lines.map { TextBlock.pad(TextBlock.truncate($0, to: width), to: width, alignment) }, width: width)
    }

    /// At most `count` lines; the last kept line ends in `…` when lines were dropped.
    func limited(to count: Int) -> TextBlock {
        guard count > 0, lines.count > count else { return self }
        var kept = Array(lines.prefix(count))
        let last = kept[count - 1].trimmingTrailingSpaces
        kept[count - 1] = TextBlock.columns(last) + 1 <= width ? last + "…" : TextBlock.truncate(last + "……", to: width)
        return TextBlock(kept, width: width)
    }

    /// Blank lines above and below, and blank columns left and right.
    func inset(top: Int = 0, leading: Int = 0, bottom: Int = 0, trailing: Int = 0) -> TextBlock {
        guard top > 0 || leading > 0 || bottom > 0 || trailing > 0 else { return self }
        let inner = padded(to: width)
        let total = width + leading + trailing
        let blank = String(repeating: " ", count: total)
        let body = inner.lines.map { String(repeating: " ", count: leading) + $0 + String(repeating: " ", count: trailing) }
        return TextBlock(Array(repeating: blank, count: top) + body + Array(repeating: blank, count: bottom), width: total)
    }

    /// The block in a frame of box-drawing characters, with an optional title in the top edge and a
    /// note in the bottom edge.
    func framed(rounded: Bool = false, title: String? = nil, note: String? = nil, margin: Int = 1) -> TextBlock {
        let inner = padded(to: width).inset(leading: margin, trailing: margin)
        let (tl, tr, bl, br) = rounded ? ("╭", "╮", "╰", "╯") : ("┌", "┐", "└", "┘")
        func edge(_ left: String, _ right: String, _ label: String?, trailingLabel: Bool) -> String {
            let run = inner.width
            guard let label, !label.isEmpty, run >= 4 else { return left + String(repeating: "─", count: run) + right }
            let text = " " + TextBlock.truncate(label, to: run - 3) + " "
            let rest = run - 1 - TextBlock.columns(text)
            return trailingLabel
                ? left + String(repeating: "─", count: rest) + text + "─" + right
                : left + "─" + text + String(repeating: "─", count: rest) + right
        }
        let top = edge(tl, tr, title, trailingLabel: false)
        let bottom = edge(bl, br, note, trailingLabel: true)
        return TextBlock([top] + inner.lines.map { "│" + $0 + "│" } + [bottom], width: inner.width + 2)
    }

    /// Blocks stacked top to bottom, each placed in the common width by `alignment`.
    static func vertical(_ blocks: [TextBlock], width: Int? = nil, alignment: HorizontalPlacement = .leading, spacing: Int = 0) -> TextBlock {
        let visible = blocks.filter { !$0.isEmpty }
        let common = width ?? visible.map(\.width).max() ?? 0
        var lines: [String] = []
        for (i, block) in visible.enumerated() {
            if i > 0 { lines += Array(repeating: String(repeating: " ", count: common), count: spacing) }
            lines += block.padded(to: common, alignment).lines
        }
        return TextBlock(lines, width: common)
    }

    /// Blocks side by side, each padded to its width, placed vertically by `alignment`, with
    /// `gaps[i]` blank columns before block `i + 1`.
    static func horizontal(_ blocks: [TextBlock], gaps: [Int], alignment: VerticalPlacement = .center) -> TextBlock {
        let height = blocks.map(\.height).max() ?? 0
        guard height > 0 else { return TextBlock([], width: blocks.map(\.width).reduce(0, +) + gaps.reduce(0, +)) }
        var columnsOfLines = Array(repeating: "", count: height)
        for (i, block) in blocks.enumerated() {
            if i > 0 {
                let gap = String(repeating: " ", count: i - 1 < gaps.count ? gaps[i - 1] : 0)
                for row in 0..<height { columnsOfLines[row] += gap }
            }
            let padded = block.padded(to: block.width)
            let extra = height - padded.height
            let above = switch alignment {
            case .top: 0
            case .center: extra / 2
            case .bottom: extra
            }
            let blank = String(repeating: " ", count: block.width)
            for row in 0..<height {
                let index = row - above
                columnsOfLines[row] += index >= 0 && index < padded.height ? padded.lines[index] : blank
            }
        }
        return TextBlock(columnsOfLines.map { $0.trimmingTrailingSpaces },
                         width: blocks.map(\.width).reduce(0, +) + gaps.prefix(max(0, blocks.count - 1)).reduce(0, +))
    }

    /// Blocks drawn on top of each other (later ones over earlier ones, spaces transparent).
    static func overlay(_ blocks: [TextBlock], horizontal: HorizontalPlacement = .center, vertical: VerticalPlacement = .center) -> TextBlock {
        let visible = blocks.filter { !$0.isEmpty }
        let width = visible.map(\.width).max() ?? 0
        let height = visible.map(\.height).max() ?? 0
        var grid = Array(repeating: Array(repeating: Character(" "), count: width), count: height)
        var wideTail = Array(repeating: Array(repeating: false, count: width), count: height)
        for block in visible {
            let padded = block.padded(to: width, horizontal)
            let extra = height - padded.height
            let top = switch vertical {
            case .top: 0
            case .center: extra / 2
            case .bottom: extra
            }
            for (r, line) in padded.lines.enumerated() {
                var col = 0
                for character in line {
                    let w = columns(character)
                    if character != " " && col < width {
                        grid[top + r][col] = character
                        wideTail[top + r][col] = false
                        for k in 1..<max(1, w) where col + k < width { wideTail[top + r][col + k] = true }
                    }
                    col += w
                }
            }
        }
        let lines = grid.enumerated().map { r, row in
            String(row.enumerated().compactMap { wideTail[r][$0.offset] ? nil : $0.element })
                .trimmingTrailingSpaces
        }
        return TextBlock(lines, width: width)
    }
}

/// Where a narrower line goes in a wider column.
enum HorizontalPlacement: Sendable { case leading, center, trailing }

/// Where a shorter block goes in a taller row.
enum VerticalPlacement: Sendable { case top, center, bottom }

extension String {
    /// The string without trailing spaces.
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// SF Symbol names as inline SVG stand-ins.
extension ElementRenderer {
    /// The inline SVG of an SF Symbol's stand-in, or a labelled placeholder for a name without one.
    /// With `ink`, the stand-in's `grid` box is drawn over that box of the symbol's frame (the room
    /// the SF Symbol's ink takes there); without it, the whole 24-point grid fills the frame.
    static func symbol(_ name: String, weight: String?, ink: (x: Double, y: Double, width: Double, height: Double)? = nil,
                       grid: (x: Double, y: Double, width: Double, height: Double) = (0, 0, 24, 24)) -> String {
        let stroke: Double = switch weight {
        case "ultraLight": 1
        case "thin": 1.25
        case "light": 1.5
        case "medium": 2.1
        case "semibold": 2.3
        case "bold": 2.5
        case "heavy": 2.7
        case "black": 2.9
        default: 1.9
        }
        guard let icon = Symbols.resolve(name) else {
            let short = name.split(separator: ".").first.map(String.init) ?? "?"
            return "<span class=\"ll-sym-label\">\(CSS.escape(String(short.prefix(6))))</span>"
        }
        let frame = ink.map { "viewBox=\"\(CSS.number(grid.x)) \(CSS.number(grid.y)) \(CSS.number(grid.width)) \(CSS.number(grid.height))\" "
            + "preserveAspectRatio=\"none\" width=\"\(CSS.number($0.width))\" height=\"\(CSS.number($0.height))\" style=\"margin-left:\(CSS.px($0.x))\"" }
            ?? "viewBox=\"0 0 24 24\" width=\"100%\" height=\"100%\""
        let open = "<svg \(frame) fill=\"none\" stroke=\"currentColor\" "
            + "stroke-width=\"\(CSS.number(stroke))\" stroke-linecap=\"round\" stroke-linejoin=\"round\" aria-hidden=\"true\">"
        let id = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60))
        let glyph = icon.parts.map { $0.svg(filled: icon.filled) }.joined()
        if icon.enclosure == nil, icon.filled, icon.parts.contains(where: \.isCut) {
            // The filled variant: inner lines and dots cut out of the shapes, as SF's .fill symbols draw them.
            let drawn = icon.parts.filter { !$0.isCut }.map { $0.svg(filled: true) }.joined()
            let cuts = icon.parts.filter(\.isCut).map { $0.svg(filled: true, ink: "#000") }.joined()
            return open + "<mask id=\"ll-f-\(id)\"><rect x=\"-2\" y=\"-2\" width=\"28\" height=\"28\" fill=\"#fff\"/>\(cuts)</mask>"
                + "<g mask=\"url(#ll-f-\(id))\">\(drawn)</g></svg>"
        }
        guard let enclosure = icon.enclosure else { return open + glyph + "</svg>" }
        let outline = enclosure == "circle" ? "M12 1.5a10.5 10.5 0 1 0 0 21a10.5 10.5 0 1 0 0-21z" : "M2 2h20v20H2z"
        let inner = "<g transform=\"translate(12 12) scale(0.56) translate(-12 -12)\" stroke-width=\"\(CSS.number(stroke / 0.56))\">\(glyph)</g>"
        if !icon.filled { return open + "<path d=\"\(outline)\"/>" + inner + "</svg>" }
        // Filled: the shape in the tint with the glyph cut out of it.
        let knockout = inner.replacingOccurrences(of: "currentColor", with: "#000")
        return open + "<mask id=\"ll-k-\(id)\"><rect width=\"24\" height=\"24\" fill=\"#fff\"/><g stroke=\"#000\">\(knockout)</g></mask>"
            + "<path d=\"\(outline)\" fill=\"currentColor\" stroke=\"none\" mask=\"url(#ll-k-\(id))\"/></svg>"
    }
}

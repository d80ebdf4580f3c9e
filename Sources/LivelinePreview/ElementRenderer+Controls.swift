import Foundation
import LivelineCore
import LivelineUI

/// Images, toggles, progress views, gauges, gradients and charts.
extension ElementRenderer {
    typealias Tag = (_ name: String, _ cls: String, _ extra: [String], _ inner: String, _ attributes: String) -> String

    /// An inline base64 image as it is; an asset by name as a labelled placeholder of its frame
    /// (the preview has no app's asset catalog); the fallback when there is no source.
    func image(_ e: UIElement, css: [String], id: String) -> String {
        let source = PreviewValues.imageSource(e)
        let style = PreviewValues.style(e)
        var frame: [String] = []
        if style["width"] == nil { frame.append("width:40px") }
        if style["height"] == nil { frame.append("height:40px") }
        let fit = switch PreviewValues.string(e, "resizeMode") {
        case "contain": "contain"
        case "stretch": "fill"
        case "center": "none"
        default: "cover"
        }
        if let data = source.base64, data.count <= 200_000,
           data.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+/=".contains($0)) }) {
            return "<img class=\"ll-img\" alt=\"\"\(id) src=\"data:image/png;base64,\(data)\"\(CSS.style(frame + ["object-fit:\(fit)"] + css))>"
        }
        let fallback = PreviewValues.elements(e, "fallback")
        if source.asset == nil && !fallback.isEmpty {
            return "<div class=\"ll-v\"\(id)\(CSS.style(css))>\(fallback.map { render($0, in: .vertical) }.joined())</div>"
        }
        let name = source.asset ?? ""
        return "<span class=\"ll-img ll-img-missing\"\(id) title=\"\(CSS.escape(name))\" data-asset=\"\(CSS.escape(name))\""
            + "\(CSS.style(frame + ["background:\(palette.fill.css)"] + css))><span class=\"ll-sym-label\">\(CSS.escape(String(name.prefix(12))))</span></span>"
    }

    /// iOS's switch: 51 × 31, green when on.
    func toggle(_ e: UIElement, tag: Tag) -> String {
        let on = PreviewValues.bool(e, "defaultValue") ?? false
        let title = PreviewValues.string(e, "title").map { "<span class=\"ll-text\"\(CSS.style(textCSS(e, lineLimit: 1)))>\(CSS.escape($0))</span>" } ?? ""
        let track = on ? palette.green : palette.fill
        return tag("span", "ll-toggle", [], title + "<span class=\"ll-switch\(on ? " ll-on" : "")\" style=\"background:\(track.css)\"></span>",
                   " data-on=\"\(on)\"")
    }

    /// A bar 4 points high with capsule ends across the width offered, labels above and below.
    func linearProgress(_ e: UIElement, tag: Tag) -> String {
        let f = values.fraction(e)
        let track = styles.color(PreviewValues.value(e, "trackColor")) ?? palette.fill.css
        let fill = styles.color(PreviewValues.value(e, "progressColor")) ?? palette.blue.css
        let height = PreviewValues.number(e, "height").map { min(max($0, 1), 100) } ?? 4
        let radius = PreviewValues.number(e, "cornerRadius").map { max($0, 0) } ?? height / 2
        let bar = "<div class=\"ll-bar\" style=\"background:\(track);height:\(CSS.px(height));border-radius:\(CSS.px(radius))\">"
            + "<div style=\"width:\(CSS.percent(f));background:\(fill);border-radius:\(CSS.px(radius))\"></div></div>"
        return tag("div", "ll-progress", [], labels(e, "label") + bar + labels(e, "currentValueLabel"), " data-fraction=\"\(CSS.number(f))\"")
    }

    /// A closed ring (the `accessoryCircularCapacity` look a circular ProgressView takes in a Live Activity).
    func circularProgress(_ e: UIElement, tag: Tag) -> String {
        let f = values.fraction(e)
        let track = styles.color(PreviewValues.value(e, "trackColor")) ?? palette.fill.css
        let fill = styles.color(PreviewValues.value(e, "progressColor")) ?? palette.blue.css
        let width = PreviewValues.number(e, "lineWidth").map { min(max($0, 1), 20) } ?? 4
        let size = min(40, ringLimit)
        let ring = ring(f, size: size, line: min(width, size / 6), fill: fill, track: track, open: false, inner: labels(e, "currentValueLabel"))
        return tag("div", "ll-v", ["align-items:center", "gap:4px"], ring + labels(e, "label"), " data-fraction=\"\(CSS.number(f))\"")
    }

    /// A gauge: an open ring (`accessoryCircular`), a closed one (`…Capacity`), or a bar with its ends' labels.
    func gauge(_ e: UIElement, tag: Tag) -> String {
        let f = values.fraction(e)
        let tint = styles.color(PreviewValues.value(e, "tintColor")) ?? palette.label.css
        let style = PreviewValues.string(e, "gaugeStyle") ?? "automatic"
        if style.lowercased().contains("circular") {
            let open = !style.contains("Capacity")
            let ends = open ? "<div class=\"ll-gauge-ends\">" + labels(e, "minimumValueLabel") + labels(e, "maximumValueLabel") + "</div>" : ""
            let size = min(44, ringLimit)
            let ring = ring(f, size: size, line: size / 9.5, fill: tint, track: palette.fill.css, open: open, inner: labels(e, "currentValueLabel") + ends)
            return tag("div", "ll-v", ["align-items:center"], ring, " data-fraction=\"\(CSS.number(f))\"")
        }
        let bar = "<div class=\"ll-bar\" style=\"flex:1 1 0;background:\(palette.fill.css);height:4px;border-radius:2px\">"
            + "<div style=\"width:\(CSS.percent(f));background:\(tint);border-radius:2px\"></div></div>"
        let row = "<div class=\"ll-h\" style=\"align-self:stretch;align-items:center;gap:6px\">" + labels(e, "minimumValueLabel") + bar
            + labels(e, "maximumValueLabel") + "</div>"
        return tag("div", "ll-progress", [], labels(e, "currentValueLabel") + row, " data-fraction=\"\(CSS.number(f))\"")
    }

    /// A component-valued prop's elements in a small caption style.
    func labels(_ e: UIElement, _ name: String) -> String {
        let list = PreviewValues.elements(e, name)
        return list.isEmpty ? "" : "<div class=\"ll-caption\">" + list.map { render($0, in: .vertical) }.joined() + "</div>"
    }

    /// A ring `size` points across: the track, and `fraction` of it drawn clockwise from the top (an
    /// open ring leaves a gap at the bottom and draws its share of the 270° arc).
    func ring(_ fraction: Double, size: Double, line: Double, fill: String, track: String, open: Bool, inner: String) -> String {
        let r = (size - line) / 2
        let circumference = 2 * Double.pi * r
        let arc = open ? circumference * 0.75 : circumference
        let rotate = open ? 135.0 : -90.0
        func circle(_ color: String, _ length: Double) -> String {
            "<circle cx=\"\(CSS.number(size / 2))\" cy=\"\(CSS.number(size / 2))\" r=\"\(CSS.number(r))\" fill=\"none\" stroke=\"\(color)\" "
                + "stroke-width=\"\(CSS.number(line))\" stroke-linecap=\"round\" stroke-dasharray=\"\(CSS.number(length)) \(CSS.number(circumference))\" "
                + "transform=\"rotate(\(CSS.number(rotate)) \(CSS.number(size / 2)) \(CSS.number(size / 2)))\"/>"
        }
        let shown = fraction > 0 ? circle(fill, max(0.01, arc * fraction)) : ""
        return "<div class=\"ll-ring\" style=\"width:\(CSS.px(size));height:\(CSS.px(size))\">"
            + "<svg viewBox=\"0 0 \(CSS.number(size)) \(CSS.number(size))\" width=\"\(CSS.number(size))\" height=\"\(CSS.number(size))\">"
            + circle(track, arc) + shown + "</svg><div class=\"ll-ring-label\">\(inner)</div></div>"
    }

    /// LinearGradient's `colors` (`a|b`), `stops` (`a@0|b@1`) and points as a CSS gradient.
    func gradient(_ e: UIElement) -> String? {
        var stops: [String] = []
        if let text = PreviewValues.string(e, "stops") {
            for part in text.split(separator: "|").prefix(32) {
                let pieces = part.split(separator: "@")
                guard let c = PreviewColor.parse(String(pieces[0]), dark: palette.dark) else { continue }
                let at = pieces.count > 1 ? Double(pieces[1]).map { " " + CSS.percent($0) } ?? "" : ""
                stops.append(c.css + at)
            }
        } else if let text = PreviewValues.string(e, "colors") {
            stops = text.split(separator: "|").prefix(32).compactMap { PreviewColor.parse(String($0), dark: palette.dark)?.css }
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
            return xy.count == 2 && xy.allSatisfy(\.isFinite) ? (xy[0], xy[1]) : fallback
        }
        let start = point(PreviewValues.string(e, "startPoint"), (0.5, 0))
        let end = point(PreviewValues.string(e, "endPoint"), (0.5, 1))
        let angle = atan2(end.0 - start.0, start.1 - end.1) * 180 / .pi
        return "linear-gradient(\(CSS.number(angle.rounded()))deg,\(stops.joined(separator: ",")))"
    }

    /// A small inline SVG of the first mark with data: bars, a line, or sector shares as text.
    func chart(_ e: UIElement) -> String {
        let marks = PreviewValues.chartMarks(e)
        guard let mark = marks.first(where: { !$0.values.isEmpty }) else { return "<span class=\"ll-caption\">Chart</span>" }
        if mark.kind == "sector" {
            let total = mark.values.reduce(0, +)
            return zip(mark.labels, mark.values).map {
                "<span class=\"ll-caption\">\(CSS.escape($0)) \(PreviewValues.percent(total > 0 ? $1 / total : 0))</span>"
            }.joined(separator: " ")
        }
        let values = mark.values.prefix(400).map { $0.isFinite ? $0 : 0 }
        let high = max(values.max() ?? 1, 0), low = min(values.min() ?? 0, 0)
        let span = high > low ? high - low : 1
        let n = Double(values.count)
        func y(_ v: Double) -> Double { (60 - (v - low) / span * 56).rounded() }
        var shapes = ""
        if mark.kind == "bar" {
            for (i, v) in values.enumerated() {
                shapes += "<rect x=\"\(CSS.number(Double(i) * 200 / n))\" y=\"\(CSS.number(y(v)))\" width=\"\(CSS.number(max(1, 200 / n - 2)))\" "
                    + "height=\"\(CSS.number(max(0, 60 - y(v))))\" rx=\"2\"/>"
            }
        } else {
            let points = values.enumerated().map { i, v in CSS.number(n > 1 ? Double(i) * 200 / (n - 1) : 100) + "," + CSS.number(y(v)) }
            shapes = "<polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
        }
        return "<svg viewBox=\"0 0 200 60\" width=\"100%\" height=\"60\" preserveAspectRatio=\"none\" fill=\"\(palette.blue.css)\" style=\"color:\(palette.blue.css)\">\(shapes)</svg>"
    }
}

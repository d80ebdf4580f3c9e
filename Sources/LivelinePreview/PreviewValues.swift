import Foundation
import LivelineCore
import LivelineUI

/// What the device computes from props before drawing: prop values with the device's defaults,
/// timer text at a given moment, progress fractions, style lengths. Shared by the text and HTML previews.
struct PreviewValues: Sendable {
    /// The moment the preview shows.
    var now: Date
    /// How much Dynamic Type scales text that names a `fontFamily` (1 at the default size).
    var textScale: Double = 1

    // MARK: Props

    static func value(_ element: UIElement, _ name: String) -> JSONValue? {
        if case .value(let v)? = element.prop(name), v != .null { return v }
        return nil
    }

    static func number(_ element: UIElement, _ name: String) -> Double? { value(element, name)?.numberValue }
    static func string(_ element: UIElement, _ name: String) -> String? { value(element, name)?.stringValue }
    static func bool(_ element: UIElement, _ name: String) -> Bool? { value(element, name)?.boolValue }

    /// The elements of a component-valued prop (`label`, `currentValueLabel`, ...).
    static func elements(_ element: UIElement, _ name: String) -> [UIElement] {
        switch element.prop(name) {
        case .element(let e)?: [e]
        case .elements(let list)?: list
        default: []
        }
    }

    /// The elements of a region, in order.
    static func elements(_ content: RegionContent) -> [UIElement] {
        switch content {
        case .element(let e): [e]
        case .fragment(let list): list
        }
    }

    /// The element's style properties (full names), empty when it has none.
    static func style(_ element: UIElement) -> JSONObject {
        if case .style(let style)? = element.prop("style"), let properties = style.properties { return properties }
        return JSONObject()
    }

    /// The child elements (not component-valued props) in order.
    static func children(_ element: UIElement) -> [UIElement] {
        switch element.children {
        case .single(let e): [e]
        case .list(let list): list
        case .none, .text: []
        }
    }

    /// A stack's spacing as the device reads it: the `spacing` prop, else the style's `gap`, else 0
    /// (Voltra passes 0 to SwiftUI's stacks, not SwiftUI's own default of about 8).
    static func stackSpacing(_ element: UIElement) -> Double {
        let value = number(element, "spacing") ?? style(element)["gap"]?.numberValue ?? 0
        return value.isFinite ? max(0, min(value, 1000)) : 0
    }

    /// The text of a Text element (`""` when it has none).
    static func text(_ element: UIElement) -> String {
        if case .text(let s) = element.children { return s }
        return ""
    }

    /// The line limit from the `numberOfLines` prop or style.
    static func lineLimit(_ element: UIElement) -> Int? {
        let n = number(element, "numberOfLines") ?? style(element)["numberOfLines"]?.numberValue
        guard let n, n >= 1, n < 1000 else { return nil }
        return Int(n)
    }

    // MARK: Edges

    /// Padding or margin in points on each edge: specific key over axis over all, as the device reads it.
    static func edges(_ style: JSONObject, _ prefix: String) -> (top: Double, leading: Double, bottom: Double, trailing: Double) {
        func n(_ key: String) -> Double? { style[key]?.numberValue }
        let all = n(prefix) ?? 0
        let vertical = n(prefix + "Vertical") ?? all
        let horizontal = n(prefix + "Horizontal") ?? all
        return (n(prefix + "Top") ?? vertical,
                n(prefix + "Left") ?? n(prefix + "Start") ?? horizontal,
                n(prefix + "Bottom") ?? vertical,
                n(prefix + "Right") ?? n(prefix + "End") ?? horizontal)
    }

    // MARK: Time

    /// A date from an epoch-millisecond prop.
    static func date(_ element: UIElement, _ name: String) -> Date? {
        number(element, name).map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    /// What a Timer shows at `now`: the live text with its running or completed template applied.
    ///
    /// Counting down (the default) shows the time left to `endAtMs` (or `startAtMs`/now + `durationMs`);
    /// counting up shows the time since `startAtMs` (a stopwatch without an end). Minutes and seconds
    /// as `m:ss`, or `h:mm:ss` with `showHours` once an hour or more is left (SwiftUI's
    /// `Text(timerInterval:showsHours:)`; the device's default is without hours, so 75 minutes read
    /// `75:00`). A finished timer rests at `0:00`; its `completed` template's `{time}` is `0:00`, or
    /// `0:00:00` with `showHours` (`0s` when relative). `textStyle: relative` reads like SwiftUI's relative date:
    /// `1 hr, 15 min`, `12 min, 5 sec`, counting on past the date.
    func timerText(_ element: UIElement) -> String {
        let start = Self.date(element, "startAtMs")
        var end = Self.date(element, "endAtMs")
        if end == nil, let duration = Self.number(element, "durationMs") {
            end = (start ?? now).addingTimeInterval(duration / 1000)
        }
        let up = Self.string(element, "direction") == "up"
        let hours = Self.bool(element, "showHours") ?? false
        let relative = Self.string(element, "textStyle") == "relative"
        var seconds: Double
        var completed: Bool
        if up {
            let from = start ?? now
            let to = end.map { min($0, now) } ?? now
            seconds = max(0, to.timeIntervalSince(from))
            completed = end.map { now >= $0 } ?? false
            seconds = seconds.rounded(.down)
        } else {
            let left = end.map { $0.timeIntervalSince(now) } ?? 0
            seconds = max(0, left).rounded(.up)
            completed = left <= 0
        }
        if relative {
            // A relative date counts from (or to) its date without stopping.
            let target = up ? (start ?? now) : (end ?? now)
            let offset = target.timeIntervalSince(now)
            seconds = offset > 0 ? offset.rounded(.up) : (-offset).rounded(.down)
        }
        seconds = seconds.isFinite ? min(seconds, 3_600_000_000) : 0  // beyond any real timer; keeps Int() in range
        let templates = Self.templates(element)
        if completed, let text = templates["completed"] {
            let zero = relative ? "0s" : hours ? "0:00:00" : "0:00"
            return text.replacingOccurrences(of: "{time}", with: zero)
        }
        let time = relative ? Self.relative(seconds) : Self.clock(seconds, hours: hours)
        if let text = templates["running"] { return text.replacingOccurrences(of: "{time}", with: time) }
        return time
    }

    /// `textTemplates`: a JSON string (as on the wire) or an object.
    static func templates(_ element: UIElement) -> [String: String] {
        guard let value = value(element, "textTemplates") else { return [:] }
        let object = value.objectValue ?? value.stringValue.flatMap { try? JSONValue.parse($0) }?.objectValue
        var out: [String: String] = [:]
        for member in object ?? JSONObject() { if let s = member.value.stringValue { out[member.key] = s } }
        return out
    }

    /// `m:ss` as SwiftUI's timer text draws it (no leading zero; minutes may pass 59), or `h:mm:ss`
    /// with `showHours` once an hour or more is left.
    static func clock(_ seconds: Double, hours: Bool) -> String {
        let total = Int(seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        if hours && total >= 3600 { return "\(total / 3600):\(two(total / 60 % 60)):\(two(total % 60))" }
        return "\(total / 60):\(two(total % 60))"
    }

    /// SwiftUI's relative date text: the two largest units, abbreviated: `2 wk, 3 days`,
    /// `1 day, 2 hr`, `2 hr, 5 min`, `12 min, 5 sec`, `40 sec`.
    static func relative(_ seconds: Double) -> String {
        let total = Int(seconds)
        let week = 7 * 86_400
        func days(_ n: Int) -> String { n == 1 ? "1 day" : "\(n) days" }
        if total >= week { return "\(total / week) wk, \(days(total % week / 86_400))" }
        if total >= 86_400 { return "\(days(total / 86_400)), \(total % 86_400 / 3600) hr" }
        if total >= 3600 { return "\(total / 3600) hr, \(total / 60 % 60) min" }
        if total >= 60 { return "\(total / 60) min, \(total % 60) sec" }
        return "\(total) sec"
    }

    // MARK: Progress

    /// How full a progress view or gauge is, 0...1: its value within its bounds, or `now` within its
    /// time range (reversed with `countDown`).
    func fraction(_ element: UIElement) -> Double {
        let gauge = element.component == .gauge
        var f: Double
        if let value = Self.number(element, "value") {
            let low = gauge ? Self.number(element, "minimumValue") ?? 0 : 0
            let high = Self.number(element, "maximumValue") ?? (gauge ? 1 : 100)
            f = high > low ? (value - low) / (high - low) : 0
        } else if let start = Self.date(element, "startAtMs"), let end = Self.date(element, "endAtMs"), end > start {
            f = now.timeIntervalSince(start) / end.timeIntervalSince(start)
        } else {
            f = 0
        }
        f = min(1, max(0, f.isFinite ? f : 0))
        if Self.bool(element, "countDown") == true && !gauge { f = 1 - f }
        return f
    }

    /// `40%`.
    static func percent(_ f: Double) -> String { f.isFinite ? "\(Int((min(max(f, 0), 1) * 100).rounded()))%" : "0%" }

    /// A gauge drawn as a ring rather than a bar.
    static func isCircularGauge(_ element: UIElement) -> Bool {
        (string(element, "gaugeStyle") ?? "").lowercased().contains("circular")
    }

    // MARK: Images and charts

    /// An Image's source: the asset name or the inline base64 data.
    static func imageSource(_ element: UIElement) -> (asset: String?, base64: String?) {
        guard let value = value(element, "source") else { return (nil, nil) }
        let object = value.objectValue ?? value.stringValue.flatMap { try? JSONValue.parse($0) }?.objectValue
        return (object?["assetName"]?.stringValue, object?["base64"]?.stringValue)
    }

    /// A Chart's marks as (kind, y values or sector values, categories), from the `marks` JSON string.
    static func chartMarks(_ element: UIElement) -> [(kind: String, values: [Double], labels: [String])] {
        guard let value = value(element, "marks") else { return [] }
        let list = value.arrayValue ?? value.stringValue.flatMap { try? JSONValue.parse($0) }?.arrayValue ?? []
        return list.compactMap { mark in
            guard let triple = mark.arrayValue, let kind = triple.first?.stringValue else { return nil }
            let points = triple.count > 1 ? triple[1].arrayValue ?? [] : []
            var values: [Double] = []
            var labels: [String] = []
            for point in points {
                guard let p = point.arrayValue else { continue }
                if kind == "sector" {
                    if let v = p.first?.numberValue { values.append(v) }
                    if p.count > 1 { labels.append(p[1].stringValue ?? p[1].jsonString) }
                } else if p.count > 1, let y = p[1].numberValue {
                    values.append(y)
                    labels.append(p[0].stringValue ?? p[0].jsonString)
                }
            }
            return (kind, values, labels)
        }
    }
}

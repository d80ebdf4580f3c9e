import Foundation
import LivelineCore
import LivelineUI

/// A plain-text mock of a Live Activity UI's Lock Screen and Dynamic Island, for terminals and
/// logs (`ActivityPreview` draws it as HTML).
///
/// ```swift
/// let preview = UIPreview(now: Date(), timeZone: TimeZone(identifier: "Europe/Lisbon")!)
/// print(preview.text(layout))              // Lock Screen card, then compact, minimal and expanded island
/// ```
/// Timers and time-based progress are resolved at `now`, so a countdown shows `mm:ss` left; the
/// clock in the Lock Screen header is `now` in `timeZone`. The same inputs give the same output.
/// Symbols are shown as `[sf:name]`, images as `[img:asset]`; colors and fonts are not drawn.
public struct UIPreview: Sendable {
    /// Which part of the UI to draw.
    public enum Surface: String, CaseIterable, Sendable {
        /// The Lock Screen (and StandBy) presentation.
        case lockScreen = "lock"
        /// The Dynamic Island: compact, minimal and expanded.
        case island
        /// Both, plus the supplemental small family when the layout has one.
        case all
    }

    /// The width of the text preview in columns (at least 24).
    public var width: Int
    /// The moment the preview shows: timers count to it, time-range progress is measured at it.
    public var now: Date
    /// The time zone of the clock shown in the Lock Screen header.
    public var timeZone: TimeZone

    /// A preview at `now`, `width` columns wide for text.
    public init(width: Int = 44, now: Date, timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) {
        self.width = max(24, width)
        self.now = now
        self.timeZone = timeZone
    }

    /// The text preview of `layout` at `now` (see `text(_:surface:)`).
    public static func text(_ layout: UILayout, surface: Surface = .all, width: Int = 44, now: Date,
                            timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) -> String {
        UIPreview(width: width, now: now, timeZone: timeZone).text(layout, surface: surface)
    }

    var values: PreviewValues { PreviewValues(now: now) }

    // MARK: Text

    /// The text preview of `surface`: framed mocks separated by blank lines, ending in a newline.
    public func text(_ layout: UILayout, surface: Surface = .all) -> String {
        let renderer = TextRenderer(values: values)
        var parts: [TextBlock] = []
        if surface != .island { parts.append(lockScreenBlock(layout, renderer)) }
        if surface != .lockScreen { parts += islandBlocks(layout, renderer) }
        if surface == .all, let small = layout.regions[.supplementalSmall] {
            let inner = renderer.renderStack(PreviewValues.elements(small), width: min(width, 28) - 4)
            parts.append(inner.padded(to: min(width, 28) - 4).framed(rounded: true, title: "Small family"))
        }
        return parts.map { $0.lines.map(\.trimmingTrailingSpaces).joined(separator: "\n") }.joined(separator: "\n\n") + "\n"
    }

    /// The text preview of a decoded payload (what the device would draw from it).
    public func text(_ decoded: DecodedUI, surface: Surface = .all) -> String { text(decoded.layout, surface: surface) }

    /// One region's content without a frame, laid out in `width` columns (default: the preview's
    /// width less the frame); empty when the region is absent or renders nothing.
    public func lines(_ region: Region, of layout: UILayout, width: Int? = nil) -> [String] {
        guard let content = layout.regions[region] else { return [] }
        return TextRenderer(values: values).renderStack(PreviewValues.elements(content), width: width ?? self.width - 4).lines.map(\.trimmingTrailingSpaces)
    }

    /// One element laid out in `width` columns, without a frame.
    public func lines(_ element: UIElement, width: Int) -> [String] {
        TextRenderer(values: values).render(element, width: width).lines.map(\.trimmingTrailingSpaces)
    }

    /// `HH:mm` of `now` in the preview's time zone.
    var clock: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute], from: now)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return two(c.hour) + ":" + two(c.minute)
    }

    func lockScreenBlock(_ layout: UILayout, _ renderer: TextRenderer) -> TextBlock {
        let inner = width - 4
        let content = layout.regions[.lockScreen].map { renderer.renderStack(PreviewValues.elements($0), width: inner) } ?? .empty
        let note = layout.lockScreenBackgroundTint.map { "tint \($0)" }
        return content.padded(to: inner, .center).framed(rounded: true, title: "Lock Screen · \(clock)", note: note)
    }

    func caption(_ text: String) -> TextBlock { TextBlock([TextBlock.truncate(text, to: width)]) }

    func islandBlocks(_ layout: UILayout, _ renderer: TextRenderer) -> [TextBlock] {
        let keyline = layout.keylineTint.map { "keyline \($0)" }
        // Compact: leading and trailing on one line either side of the camera.
        let pill = width - 6
        let side = (pill - 4 - 6) / 2
        func oneLine(_ region: Region, _ room: Int, _ placement: HorizontalPlacement) -> String {
            guard let content = layout.regions[region] else { return String(repeating: " ", count: room) }
            let block = renderer.renderStack(PreviewValues.elements(content), width: room)
            let first = block.lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            let text = block.lines.count > 1 ? TextBlock.truncate(first.trimmingTrailingSpaces + "…", to: room) : first
            return TextBlock.pad(text.trimmingCharacters(in: .whitespaces), to: room, placement)
        }
        let compactLine = oneLine(.islandCompactLeading, side, .leading) + "  ●   "
            + oneLine(.islandCompactTrailing, pill - 4 - 6 - side, .trailing)
        let compact = TextBlock.vertical([caption("Dynamic Island · compact"),
                                          TextBlock([compactLine]).framed(rounded: true).inset(leading: 3)])

        // Minimal: one small pill.
        let minimalText = oneLine(.islandMinimal, 16, .center).trimmingCharacters(in: .whitespaces)
        let minimal = TextBlock.vertical([caption("Dynamic Island · minimal" + (keyline.map { " · \($0)" } ?? "")),
                                          TextBlock([minimalText.isEmpty ? " " : minimalText]).framed(rounded: true)
                                              .inset(leading: max(0, (width - TextBlock.columns(minimalText) - 4) / 2))])

        // Expanded: leading | center | trailing, then bottom across.
        let inner = width - 4
        let third = inner / 3
        func block(_ region: Region, _ room: Int, _ alignment: HorizontalPlacement) -> TextBlock {
            guard let content = layout.regions[region] else { return .empty }
            return renderer.renderStack(PreviewValues.elements(content), width: room, alignment: alignment)
        }
        let leading = block(.islandExpandedLeading, third, .leading)
        let trailing = block(.islandExpandedTrailing, third, .trailing)
        let centerRoom = max(0, inner - leading.width - trailing.width - 2)
        let center = block(.islandExpandedCenter, centerRoom, .center)
        let top = TextBlock.horizontal([leading, center.padded(to: centerRoom, .center), trailing.padded(to: trailing.width, .trailing)],
                                       gaps: [1, 1], alignment: .top)
        let bottom = block(.islandExpandedBottom, inner, .center)
        let body = TextBlock.vertical([top, bottom], width: inner, alignment: .center)
        let expanded = (body.isEmpty ? TextBlock([""], width: inner) : body).padded(to: inner)
            .framed(rounded: true, title: "Dynamic Island · expanded")
        return [compact, minimal, expanded]
    }
}

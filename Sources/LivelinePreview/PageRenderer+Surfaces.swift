import Foundation
import LivelineCore
import LivelineUI

/// The places beyond the phone's four presentations where iOS draws a Live Activity: StandBy,
/// the `small` family (Apple Watch Smart Stack, CarPlay), two activities in the Island at once,
/// and the banner of an alerting update.
extension PageRenderer {
    /// StandBy: the Lock Screen view scaled 2× in the middle of the landscape screen, its
    /// background colour extended to the whole screen (HIG). StandBy is dark.
    func standBy(_ layout: UILayout) -> (String, PreviewBox) {
        let palette = Palette(dark: true)
        let renderer = ElementRenderer(values: values, palette: palette, singleLine: false)
        let list = elements(layout, .lockScreen)
        let lockWidth = phone.lockWidth
        let height = Geometry.grownHeight(Layout.stackHeight(list, width: lockWidth, singleLine: false, values: values))
        let tint = PreviewColor.parse(layout.lockScreenBackgroundTint, dark: true)
        let background = tint.map { $0.over(palette.background) } ?? palette.background
        let screen = (width: phone.screenHeight, height: phone.screenWidth)
        let view = "<div class=\"ll-standby-view\" style=\"width:\(CSS.px(lockWidth));height:\(CSS.px(height));transform:scale(2)\">"
            + regionDiv(.lockScreen, "ll-v ll-lock-region", renderer.region(list)) + "</div>"
        let style = ["width:\(CSS.px(screen.width))", "height:\(CSS.px(screen.height))", "background:\(background.css)", "color:\(palette.label.css)"]
        let box = "<div class=\"ll-box ll-standby\" data-ll-box=\"standby\"\(CSS.style(style))>\(view)</div>"
        let content = list.isEmpty ? [] : [PreviewRegion(name: Region.lockScreen.formPath, selector: Self.regionSelector(.standBy, .lockScreen),
                                                         x: (screen.width - 2 * lockWidth) / 2, y: (screen.height - 2 * height) / 2,
                                                         width: 2 * lockWidth, height: 2 * height)]
        return (wrap(.standBy, dark: true, box),
                PreviewBox(presentation: .standBy, selector: Self.selector(.standBy), width: screen.width, height: screen.height,
                           background: background.hex, content: content))
    }

    /// The `small` family's content: the supplemental small region when the layout has one, else
    /// compact leading and trailing side by side with no spacing (Voltra's fallback).
    func smallContent(_ layout: UILayout, _ renderer: ElementRenderer) -> (html: String, region: Region, empty: Bool) {
        let small = elements(layout, .supplementalSmall)
        if !small.isEmpty { return (regionDiv(.supplementalSmall, "ll-v ll-small-region", renderer.region(small)), .supplementalSmall, false) }
        let leading = elements(layout, .islandCompactLeading), trailing = elements(layout, .islandCompactTrailing)
        let row = "<div class=\"ll-h ll-small-fallback\">" + renderer.stack(leading, axis: .horizontal, spacing: 0)
            + renderer.stack(trailing, axis: .horizontal, spacing: 0) + "</div>"
        return (regionDiv(.islandCompactLeading, "ll-v ll-small-region", row), .islandCompactLeading, leading.isEmpty && trailing.isEmpty)
    }

    /// A tile of the `small` family: the Watch Smart Stack (49 mm: 191 × 81.5) or CarPlay (240 × 78),
    /// dark, with rounded corners.
    func small(_ layout: UILayout, _ presentation: Presentation) -> (String, PreviewBox) {
        var renderer = ElementRenderer(values: values, palette: Palette(dark: true), singleLine: true)
        renderer.ringLimit = 44
        let (width, height, radius): (Double, Double, Double) = presentation == .watchSmartStack ? (191, 81.5, 20) : (240, 78, 12)
        let (html, region, empty) = smallContent(layout, renderer)
        let style = ["width:\(CSS.px(width))", "height:\(CSS.px(height))", "border-radius:\(CSS.px(radius))"]
        let box = "<div class=\"ll-box ll-small\" data-ll-box=\"\(presentation.rawValue)\"\(CSS.style(style))>\(html)</div>"
        let content = empty ? [] : [PreviewRegion(name: region.formPath, selector: Self.regionSelector(presentation, region), x: 0, y: 0,
                                                  width: width, height: height)]
        return (wrap(presentation, dark: true, box),
                PreviewBox(presentation: presentation, selector: Self.selector(presentation), width: width, height: height,
                           background: Self.smallBackground, content: content))
    }

    static let smallBackground = "#1C1C1E"

    /// Two activities at once: one minimal attached to the Island's leading end, the other detached
    /// in its own circle beside it. Both are this activity's minimal view (two activities of its kind).
    func twoActivities(_ layout: UILayout) -> (String, PreviewBox) {
        var renderer = islandRenderer.tight
        renderer.ringLimit = 30
        let size = Geometry.minimalSize, gap = Geometry.detachedGap
        let list = elements(layout, .islandMinimal)
        let attached = "<div class=\"ll-island ll-attached\" style=\"width:\(CSS.px(size + Geometry.cameraWidth));height:\(CSS.px(size))\">"
            + regionDiv(.islandMinimal, "ll-v ll-minimal-region", renderer.region(list), style: ["width:\(CSS.px(size))"])
            + "<div class=\"ll-camera\" style=\"width:\(CSS.px(Geometry.cameraWidth))\"></div></div>"
        let detached = "<div class=\"ll-island ll-detached\" style=\"width:\(CSS.px(size));height:\(CSS.px(size))\">"
            + "<div class=\"ll-region ll-v ll-minimal-region\" data-ll-detached=\"true\">\(renderer.region(list))</div></div>"
        let width = Geometry.points(2 * size + Geometry.cameraWidth + gap)
        let box = "<div class=\"ll-box ll-two\" data-ll-box=\"island-two\"\(CSS.style(["width:\(CSS.px(width))", "height:\(CSS.px(size))", "gap:\(CSS.px(gap))"] + keyline(layout)))>"
            + attached + detached + "</div>"
        let content = list.isEmpty ? [] : [
            PreviewRegion(name: Region.islandMinimal.formPath, selector: Self.regionSelector(.islandTwo, .islandMinimal), x: 0, y: 0, width: size, height: size),
        ]
        return (wrap(.islandTwo, dark: true, box),
                PreviewBox(presentation: .islandTwo, selector: Self.selector(.islandTwo), width: width, height: size,
                           background: "#000000", content: content))
    }

    /// The banner of an alerting update on a phone without the Island: the Lock Screen view at the
    /// top of the screen (on a phone with the Island the expanded presentation shows instead). The
    /// alert's title and body, which a paired Apple Watch shows, are in the caption.
    func alertBanner(_ layout: UILayout) -> (String, PreviewBox) {
        let (box, preview) = lockBox(layout, presentation: .alertBanner)
        return (wrap(.alertBanner, dark: options.dark || options.alwaysOn, box), preview)
    }
}

/// The alert of an alerting update (`aps.alert`): what a paired Apple Watch shows, and the sign
/// that the phone lights up with the activity's banner or expanded Island.
public struct PreviewAlert: Sendable, Equatable {
    public var title: String
    public var body: String

    public init(title: String, body: String) {
        self.title = title
        self.body = body
    }
}

import Foundation
import LivelineCore
import LivelineUI

/// The four presentations, each as its box at iOS's sizes with the layout's regions placed in it.
extension PageRenderer {
    func lockScreen(_ layout: UILayout) -> (String, PreviewBox) {
        let (box, preview) = lockBox(layout, presentation: .lockScreen)
        return (wrap(.lockScreen, dark: options.dark || options.alwaysOn, box), preview)
    }

    /// The Lock Screen view's box as `presentation` (the Lock Screen, or the alert banner showing the
    /// same view). At reduced luminance (Always-On) it draws as if dark, dimmed.
    func lockBox(_ layout: UILayout, presentation: Presentation) -> (String, PreviewBox) {
        let dark = options.dark || options.alwaysOn
        let palette = Palette(dark: dark)
        let renderer = ElementRenderer(values: values, palette: palette, singleLine: false)
        let list = elements(layout, .lockScreen)
        let estimate = Layout.stackHeight(list, width: phone.lockWidth, singleLine: false, values: values)
        let height = Geometry.grownHeight(estimate)
        let tint = PreviewColor.parse(layout.lockScreenBackgroundTint, dark: dark)
        let background = tint.map { $0.over(palette.background) } ?? palette.background
        var style = ["width:\(CSS.px(phone.lockWidth))", "height:\(CSS.px(height))", "background:\(background.css)",
                     "color:\(palette.label.css)", "border-radius:\(CSS.px(Geometry.lockCornerRadius))"]
        if options.alwaysOn { style.append("filter:brightness(\(CSS.number(Geometry.alwaysOnBrightness)))") }
        let box = "<div class=\"ll-box ll-lock\" data-ll-box=\"\(presentation.rawValue)\"\(options.stale ? " data-stale=\"true\"" : "")"
            + "\(options.alwaysOn ? " data-always-on=\"true\"" : "")\(CSS.style(style))>"
            + regionDiv(.lockScreen, "ll-v ll-lock-region", renderer.region(list)) + "</div>"
        let content = list.isEmpty ? [] : [PreviewRegion(name: Region.lockScreen.formPath, selector: Self.regionSelector(presentation, .lockScreen),
                                                         x: 0, y: 0, width: phone.lockWidth, height: height)]
        // Dimmed, the background the screenshot shows is darker than the colour drawn.
        let shown = options.alwaysOn ? background.dimmed(Geometry.alwaysOnBrightness) : background
        return (box, PreviewBox(presentation: presentation, selector: Self.selector(presentation), width: phone.lockWidth, height: height,
                                background: shown.hex, content: content))
    }

    /// The Island: black in both appearances, so colours resolve with their dark variants.
    var islandRenderer: (tight: ElementRenderer, loose: ElementRenderer) {
        let palette = Palette(dark: true)
        return (ElementRenderer(values: values, palette: palette, singleLine: true), ElementRenderer(values: values, palette: palette, singleLine: false))
    }

    func keyline(_ layout: UILayout) -> [String] {
        // A thin line around the Island where what lies behind is dark; keylineTint tints it.
        if let tint = PreviewColor.parse(layout.keylineTint, dark: true) { return ["box-shadow:0 0 0 1px \(tint.opacity(0.6).css)"] }
        return options.dark ? ["box-shadow:0 0 0 1px rgba(255,255,255,0.14)"] : []
    }

    func compact(_ layout: UILayout) -> (String, PreviewBox) {
        var renderer = islandRenderer.tight
        renderer.ringLimit = 28
        let side = phone.compactSide, height = Geometry.compactHeight
        let leading = elements(layout, .islandCompactLeading), trailing = elements(layout, .islandCompactTrailing)
        let inset = Geometry.compactOuterInset
        let style = ["width:\(CSS.px(phone.compactWidth))", "height:\(CSS.px(height))"] + keyline(layout)
        let box = "<div class=\"ll-box ll-island ll-compact\" data-ll-box=\"island-compact\"\(CSS.style(style))>"
            + regionDiv(.islandCompactLeading, "ll-h ll-compact-side", renderer.region(leading),
                        style: ["width:\(CSS.px(side))", "padding-left:\(CSS.px(inset))"])
            + "<div class=\"ll-camera\" style=\"width:\(CSS.px(Geometry.cameraWidth))\"></div>"
            + regionDiv(.islandCompactTrailing, "ll-h ll-compact-side", renderer.region(trailing),
                        style: ["width:\(CSS.px(side))", "padding-right:\(CSS.px(inset))"])
            + "</div>"
        var content: [PreviewRegion] = []
        if !leading.isEmpty {
            content.append(PreviewRegion(name: Region.islandCompactLeading.formPath, selector: Self.regionSelector(.islandCompact, .islandCompactLeading),
                                         x: 0, y: 0, width: side, height: height))
        }
        if !trailing.isEmpty {
            content.append(PreviewRegion(name: Region.islandCompactTrailing.formPath, selector: Self.regionSelector(.islandCompact, .islandCompactTrailing),
                                         x: phone.compactTrailingX, y: 0, width: side, height: height))
        }
        return (wrap(.islandCompact, dark: true, box),
                PreviewBox(presentation: .islandCompact, selector: Self.selector(.islandCompact), width: phone.compactWidth, height: height,
                           background: "#000000", content: content))
    }

    func minimal(_ layout: UILayout) -> (String, PreviewBox) {
        var renderer = islandRenderer.tight
        renderer.ringLimit = 30
        let size = Geometry.minimalSize
        let list = elements(layout, .islandMinimal)
        let style = ["width:\(CSS.px(size))", "height:\(CSS.px(size))"] + keyline(layout)
        let box = "<div class=\"ll-box ll-island ll-minimal\" data-ll-box=\"island-minimal\"\(CSS.style(style))>"
            + regionDiv(.islandMinimal, "ll-v ll-minimal-region", renderer.region(list)) + "</div>"
        let content = list.isEmpty ? [] : [PreviewRegion(name: Region.islandMinimal.formPath, selector: Self.regionSelector(.islandMinimal, .islandMinimal),
                                                         x: 0, y: 0, width: size, height: size)]
        return (wrap(.islandMinimal, dark: true, box),
                PreviewBox(presentation: .islandMinimal, selector: Self.selector(.islandMinimal), width: size, height: size,
                           background: "#000000", content: content))
    }

    /// Leading and trailing beside the camera, center below it, bottom across under all three.
    func expanded(_ layout: UILayout) -> (String, PreviewBox) {
        let (tight, loose) = islandRenderer
        let width = phone.expandedWidth
        let top = Geometry.expandedMarginTop, sideMargin = Geometry.expandedMarginSide, bottomMargin = Geometry.expandedMarginBottom
        let column = (width - 2 * sideMargin - Geometry.cameraWidth) / 2
        let leading = elements(layout, .islandExpandedLeading), trailing = elements(layout, .islandExpandedTrailing)
        let center = elements(layout, .islandExpandedCenter), bottom = elements(layout, .islandExpandedBottom)
        let belowCamera = Geometry.cameraHeight - top
        func h(_ list: [UIElement], _ w: Double, _ single: Bool) -> Double { Layout.stackHeight(list, width: w, singleLine: single, values: values) }
        let centerHeight = center.isEmpty ? 0 : h(center, Geometry.cameraWidth, true)
        let row = max(h(leading, column, true), h(trailing, column, true), center.isEmpty ? 0 : belowCamera + centerHeight)
        let bottomHeight = h(bottom, width - 2 * sideMargin, false)
        let estimate = top + row + (bottom.isEmpty ? 0 : (row > 0 ? Geometry.expandedRowGap : 0) + bottomHeight) + bottomMargin
        let height = Geometry.grownHeight(estimate)
        let style = ["width:\(CSS.px(width))", "height:\(CSS.px(height))", "padding:\(CSS.px(top)) \(CSS.px(sideMargin)) \(CSS.px(bottomMargin))",
                     "border-radius:\(CSS.px(Geometry.islandCornerRadius))"] + keyline(layout)
        // The center is sized first (at least the camera's width), leading and trailing share the rest equally.
        let grid = "grid-template-columns:minmax(0,1fr) minmax(\(CSS.px(Geometry.cameraWidth)),auto) minmax(0,1fr);grid-template-rows:\(CSS.px(belowCamera)) auto"
        let box = "<div class=\"ll-box ll-island ll-expanded\" data-ll-box=\"island-expanded\"\(CSS.style(style))>"
            + "<div class=\"ll-expanded-top\" style=\"\(grid)\">"
            + regionDiv(.islandExpandedLeading, "ll-v ll-exp-leading", tight.region(leading))
            + regionDiv(.islandExpandedCenter, "ll-v ll-exp-center", tight.region(center))
            + regionDiv(.islandExpandedTrailing, "ll-v ll-exp-trailing", tight.region(trailing))
            + "</div>"
            + regionDiv(.islandExpandedBottom, "ll-v ll-exp-bottom", loose.region(bottom), style: bottom.isEmpty ? [] : ["margin-top:\(CSS.px(Geometry.expandedRowGap))"])
            + "</div>"
        var content: [PreviewRegion] = []
        func add(_ region: Region, _ list: [UIElement], _ x: Double, _ y: Double, _ w: Double, _ hh: Double) {
            guard !list.isEmpty else { return }
            content.append(PreviewRegion(name: region.formPath, selector: Self.regionSelector(.islandExpanded, region), x: x, y: y, width: w, height: hh))
        }
        add(.islandExpandedLeading, leading, sideMargin, top, column, row)
        add(.islandExpandedTrailing, trailing, width - sideMargin - column, top, column, row)
        add(.islandExpandedCenter, center, sideMargin + column, Geometry.cameraHeight, Geometry.cameraWidth, max(0, row - belowCamera))
        add(.islandExpandedBottom, bottom, sideMargin, top + row + Geometry.expandedRowGap, width - 2 * sideMargin,
            max(0, height - top - row - Geometry.expandedRowGap - bottomMargin))
        return (wrap(.islandExpanded, dark: true, box),
                PreviewBox(presentation: .islandExpanded, selector: Self.selector(.islandExpanded), width: width, height: height,
                           background: "#000000", content: content))
    }
}

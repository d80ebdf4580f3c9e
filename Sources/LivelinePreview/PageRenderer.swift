import Foundation
import LivelineCore
import LivelineUI

/// Lays out a layout's regions into the four presentations and writes the page, the fragments and
/// the boxes of a `PreviewDocument`.
struct PageRenderer {
    var options: PreviewOptions

    var values: PreviewValues { PreviewValues(now: options.at) }

    func document(_ layout: UILayout, warnings: [String]) -> PreviewDocument {
        var fragments: [Presentation: String] = [:]
        var boxes: [PreviewBox] = []
        var seen = Set<Presentation>()
        for presentation in options.presentations where seen.insert(presentation).inserted {
            let (fragment, box) = render(presentation, layout)
            fragments[presentation] = fragment
            boxes.append(box)
        }
        let html = page(layout, fragments: boxes.map { ($0, fragments[$0.presentation] ?? "") }, warnings: warnings)
        return PreviewDocument(html: html, stylesheet: Stylesheet.css, fragments: fragments, boxes: boxes, warnings: warnings)
    }

    // MARK: Presentations

    func elements(_ layout: UILayout, _ region: Region) -> [UIElement] {
        layout.regions[region].map(PreviewValues.elements) ?? []
    }

    func render(_ presentation: Presentation, _ layout: UILayout) -> (String, PreviewBox) {
        switch presentation {
        case .lockScreen: lockScreen(layout)
        case .islandCompact: compact(layout)
        case .islandMinimal: minimal(layout)
        case .islandExpanded: expanded(layout)
        }
    }

    /// `<div class="ll-preview …">` around one presentation's box.
    func wrap(_ presentation: Presentation, dark: Bool, _ box: String) -> String {
        "<div class=\"ll-preview \(dark ? "ll-dark" : "ll-light")\(options.stale ? " ll-is-stale" : "")\" data-ll-presentation=\"\(presentation.rawValue)\">"
            + box + "</div>"
    }

    static func selector(_ presentation: Presentation) -> String { "[data-ll-box=\"\(presentation.rawValue)\"]" }

    static func regionSelector(_ presentation: Presentation, _ region: Region) -> String {
        selector(presentation) + " [data-ll-region=\"\(region.formPath)\"]"
    }

    func regionDiv(_ region: Region, _ cls: String, _ inner: String, style: [String] = []) -> String {
        "<div class=\"ll-region \(cls)\" data-ll-region=\"\(region.formPath)\"\(CSS.style(style))>\(inner)</div>"
    }

    func lockScreen(_ layout: UILayout) -> (String, PreviewBox) {
        let palette = Palette(dark: options.dark)
        let renderer = ElementRenderer(values: values, palette: palette, singleLine: false)
        let list = elements(layout, .lockScreen)
        let estimate = Layout.stackHeight(list, width: Geometry.lockWidth, singleLine: false, values: values)
        let height = (min(Geometry.maxHeight, max(Geometry.minHeight, estimate)) * 100).rounded() / 100
        let tint = PreviewColor.parse(layout.lockScreenBackgroundTint, dark: options.dark)
        let background = tint.map { $0.over(palette.background) } ?? palette.background
        let style = ["width:\(CSS.px(Geometry.lockWidth))", "height:\(CSS.px(height))", "background:\(background.css)",
                     "color:\(palette.label.css)", "border-radius:\(CSS.px(Geometry.lockCornerRadius))"]
        let box = "<div class=\"ll-box ll-lock\" data-ll-box=\"lock-screen\"\(options.stale ? " data-stale=\"true\"" : "")\(CSS.style(style))>"
            + regionDiv(.lockScreen, "ll-v ll-lock-region", renderer.region(list)) + "</div>"
        let content = list.isEmpty ? [] : [PreviewRegion(name: Region.lockScreen.formPath, selector: Self.regionSelector(.lockScreen, .lockScreen),
                                                         x: 0, y: 0, width: Geometry.lockWidth, height: height)]
        return (wrap(.lockScreen, dark: options.dark, box),
                PreviewBox(presentation: .lockScreen, selector: Self.selector(.lockScreen), width: Geometry.lockWidth, height: height,
                           background: background.hex, content: content))
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
        let renderer = islandRenderer.tight
        let side = Geometry.compactSide, height = Geometry.compactHeight
        let leading = elements(layout, .islandCompactLeading), trailing = elements(layout, .islandCompactTrailing)
        let inset = Geometry.compactOuterInset
        let style = ["width:\(CSS.px(Geometry.compactWidth))", "height:\(CSS.px(height))"] + keyline(layout)
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
                                         x: Geometry.compactTrailingX, y: 0, width: side, height: height))
        }
        return (wrap(.islandCompact, dark: true, box),
                PreviewBox(presentation: .islandCompact, selector: Self.selector(.islandCompact), width: Geometry.compactWidth, height: height,
                           background: "#000000", content: content))
    }

    func minimal(_ layout: UILayout) -> (String, PreviewBox) {
        let renderer = islandRenderer.tight
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
        let width = Geometry.expandedWidth
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
        let height = (min(Geometry.maxHeight, max(Geometry.minHeight, estimate)) * 100).rounded() / 100
        let style = ["width:\(CSS.px(width))", "height:\(CSS.px(height))", "padding:\(CSS.px(top)) \(CSS.px(sideMargin)) \(CSS.px(bottomMargin))",
                     "border-radius:\(CSS.px(Geometry.islandCornerRadius))"] + keyline(layout)
        let grid = "grid-template-columns:minmax(0,1fr) \(CSS.px(Geometry.cameraWidth)) minmax(0,1fr);grid-template-rows:\(CSS.px(belowCamera)) auto"
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

    // MARK: Page

    /// `HH:mm` of `at` in the options' time zone.
    var clock: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = options.timeZone
        let c = calendar.dateComponents([.hour, .minute], from: options.at)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return two(c.hour) + ":" + two(c.minute)
    }

    func page(_ layout: UILayout, fragments: [(PreviewBox, String)], warnings: [String]) -> String {
        var body = ""
        for (box, fragment) in fragments {
            var caption = CSS.escape(box.presentation.title)
            if box.presentation == .lockScreen {
                caption += " · \(clock)"
                if options.stale { caption += " · <span class=\"ll-stale-badge\">stale: the content is out of date</span>" }
            }
            caption += " · \(CSS.number(box.width)) × \(CSS.number(box.height)) pt"
            body += "<figure class=\"ll-figure\" data-ll-figure=\"\(box.presentation.rawValue)\"><figcaption>\(caption)</figcaption>"
                + "<div class=\"ll-stage\">\(fragment)</div></figure>"
        }
        if !warnings.isEmpty {
            body += "<section class=\"ll-warnings\"><h2>Warnings</h2><ul>" + warnings.map { "<li>\(CSS.escape($0))</li>" }.joined() + "</ul></section>"
        }
        body += "<p class=\"ll-note\">A preview, not a device capture: Inter stands in for SF Pro, and the symbols are "
            + "Liveline's own stand-ins for SF Symbols. Drawn at \(CSS.escape(clock)) (\(CSS.escape(options.timeZone.identifier))), "
            + "\(options.dark ? "dark" : "light") appearance.</p>"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=\(Int(Geometry.screenWidth)),initial-scale=1">
            <title>Liveline preview</title>
            <style>\(Stylesheet.page)\(Stylesheet.css)</style>
            </head><body class="ll-page \(options.dark ? "ll-page-dark" : "ll-page-light")"><main>
            \(body)
            </main></body></html>

            """
    }
}

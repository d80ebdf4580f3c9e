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
        // An ended activity leaves the Dynamic Island at once; only its Lock Screen stays.
        for presentation in options.presentations where seen.insert(presentation).inserted && (!options.ended || presentation == .lockScreen) {
            let (fragment, box) = render(presentation, layout)
            fragments[presentation] = fragment
            boxes.append(box)
        }
        let html = page(fragments: boxes.map { ($0, fragments[$0.presentation] ?? "") }, warnings: warnings)
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

    // MARK: Page

    /// `HH:mm` of `at` in the options' time zone.
    var clock: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = options.timeZone
        let c = calendar.dateComponents([.hour, .minute], from: options.at)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        return two(c.hour) + ":" + two(c.minute)
    }

    func page(fragments: [(PreviewBox, String)], warnings: [String]) -> String {
        var body = ""
        for (box, fragment) in fragments {
            var caption = CSS.escape(box.presentation.title)
            if box.presentation == .lockScreen {
                caption += " · \(clock)"
                if options.stale { caption += " · <span class=\"ll-stale-badge\">stale: the content is out of date</span>" }
                if options.ended { caption += " · <span class=\"ll-ended-badge\">ended: on the Lock Screen until dismissed, gone from the Dynamic Island</span>" }
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

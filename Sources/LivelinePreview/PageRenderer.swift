import Foundation
import LivelineCore
import LivelineUI

/// Lays out a layout's regions into the four presentations and writes the page, the fragments and
/// the boxes of a `PreviewDocument`.
struct PageRenderer {
    var options: PreviewOptions
    /// What was drawn, in words for the page ("FlightAttributes through its template").
    var source: String = "a layout"

    var values: PreviewValues { PreviewValues(now: options.at, textScale: options.textSize.scale) }

    /// The phone the presentations are sized for.
    var phone: PreviewPhone { options.phone }

    /// What an ended activity still shows: the Lock Screen view (on the Lock Screen and in StandBy);
    /// iOS removes it from the Dynamic Island, the Watch and CarPlay at once.
    static let afterEnd: Set<Presentation> = [.lockScreen, .standBy]

    func document(_ layout: UILayout, warnings: [String]) -> PreviewDocument {
        var fragments: [Presentation: String] = [:]
        var boxes: [PreviewBox] = []
        var seen = Set<Presentation>()
        // An ended activity leaves the Dynamic Island at once; only its Lock Screen stays.
        for presentation in options.presentations where seen.insert(presentation).inserted && (!options.ended || Self.afterEnd.contains(presentation)) {
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
        case .islandTwo: twoActivities(layout)
        case .standBy: standBy(layout)
        case .watchSmartStack, .carPlay: small(layout, presentation)
        case .alertBanner: alertBanner(layout)
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

    /// The page column: the phone's width; with more than the phone's four presentations (or
    /// StandBy's landscape screen) a wider page whose figures flow side by side, so the page stays
    /// within the browser's window when each box is photographed.
    var mainCSS: String {
        let wide = options.presentations.contains(.standBy) || Set(options.presentations).subtracting(Presentation.standard).count > 0
        if !wide { return phone == .iPhone393 ? "" : ".ll-page main{width:\(Int(phone.screenWidth))px}" }
        let width = options.presentations.contains(.standBy) ? phone.screenHeight + 22 : 2 * phone.screenWidth
        return ".ll-page main{width:\(Int(width))px;display:flex;flex-wrap:wrap;align-items:flex-start;column-gap:8px}"
            + ".ll-page main>p,.ll-page main>section{flex:0 0 100%}"
    }

    func page(fragments: [(PreviewBox, String)], warnings: [String]) -> String {
        var body = ""
        for (box, fragment) in fragments {
            var caption = CSS.escape(box.presentation.title)
            if box.presentation == .alertBanner {
                caption += " (a phone without the Island; with it, the expanded Island lights up)"
                if let alert = options.alert {
                    caption += " · the Watch shows: <b>\(CSS.escape(alert.title))</b> \(CSS.escape(alert.body))"
                } else {
                    caption += " · the push has no alert: iOS shows no banner"
                }
            }
            if box.presentation == .lockScreen {
                caption += " · \(clock)"
                if options.alwaysOn { caption += " · Always-On (reduced luminance)" }
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
        body = "<p class=\"ll-source\" data-ll-source>Drawn: \(CSS.escape(source)) · \(CSS.escape(phone.title))"
            + (options.textSize == .large ? "" : " · text size \(options.textSize.rawValue.uppercased())") + "</p>" + body
        body += "<p class=\"ll-note\">A preview, not a device capture: Inter stands in for SF Pro, and the symbols are "
            + "Liveline's own stand-ins for SF Symbols. Drawn at \(CSS.escape(clock)) (\(CSS.escape(options.timeZone.identifier))), "
            + "\(options.dark ? "dark" : "light") appearance.</p>"
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=\(Int(phone.screenWidth)),initial-scale=1">
            <title>Liveline preview</title>
            <style>\(Stylesheet.page)\(Stylesheet.css)\(mainCSS)</style>
            </head><body class="ll-page \(options.dark ? "ll-page-dark" : "ll-page-light")"><main>
            \(body)
            </main></body></html>

            """
    }
}

import Foundation

/// Several states of one activity side by side on one page (`liveline preview --states`): a row
/// per state with its name, its Lock Screen and its compact Island, so a sequence of pushes reads
/// top to bottom and is photographed as one picture.
public struct PreviewStrip: Sendable {
    /// The page.
    public let html: String
    /// CSS selector of the strip: a screenshot of it is the whole sequence.
    public static let selector = "[data-ll-strip]"
    /// The states' warnings, each prefixed with its state's name.
    public let warnings: [String]

    /// The strip of `states` (name and document, in order); each document's Lock Screen and compact
    /// Island are shown, or what of them it drew.
    public init(_ states: [(name: String, document: PreviewDocument)], title: String) {
        var rows = ""
        var warnings: [String] = []
        for (index, state) in states.enumerated() {
            var cells = "<div class=\"ll-strip-name\"><b>\(index + 1).</b> \(CSS.escape(state.name))</div>"
            for presentation in [Presentation.lockScreen, .islandCompact] {
                guard let fragment = state.document.fragments[presentation] else { continue }
                cells += "<div class=\"ll-strip-cell\" data-ll-strip-cell=\"\(presentation.rawValue)\">\(fragment)</div>"
            }
            rows += "<div class=\"ll-strip-row\" data-ll-state=\"\(index + 1)\">\(cells)</div>"
            warnings += state.document.warnings.map { "\(state.name): \($0)" }
        }
        var body = "<h1 class=\"ll-strip-title\">\(CSS.escape(title))</h1><div class=\"ll-strip\" data-ll-strip=\"\(states.count)\">\(rows)</div>"
        if !warnings.isEmpty {
            body += "<section class=\"ll-warnings\"><h2>Warnings</h2><ul>" + warnings.map { "<li>\(CSS.escape($0))</li>" }.joined() + "</ul></section>"
        }
        html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Liveline preview: \(CSS.escape(title))</title>
            <style>\(Stylesheet.page)\(Stylesheet.css)\(Self.css)</style>
            </head><body class="ll-page ll-page-light"><main class="ll-strip-page">
            \(body)
            </main></body></html>

            """
        self.warnings = warnings
    }

    static let css = """
        .ll-page main.ll-strip-page{width:auto}\
        .ll-strip-title{font-size:14px;margin:8px 11px}\
        .ll-strip{display:inline-flex;flex-direction:column;gap:12px;padding:12px}\
        .ll-strip-row{display:flex;align-items:center;gap:16px}\
        .ll-strip-name{width:120px;font-size:12px}
        """
}

import Foundation
import LivelineCore
import LivelineSimulator

/// An activity drawn for the page: one HTML fragment per presentation, and the renderer's warnings.
struct RenderedActivity: Sendable {
    /// By presentation (`lock-screen`, `island-compact`, `island-minimal`, `island-expanded`).
    var fragments: [String: String]
    var warnings: [String]
}

/// The one place the dashboard turns an activity into pictures.
enum DeviceRendering {
    /// The presentations drawn, in page order.
    static let presentations = ["lock-screen", "island-compact", "island-minimal", "island-expanded"]

    /// The renderer's stylesheet, sent once per page.
    static let stylesheet = ""

    /// Draws `activity` as its device shows it at `now`.
    static func render(_ activity: ActivitySnapshot, at now: Date) -> RenderedActivity {
        var rows = ""
        for member in activity.contentState.objectValue ?? [:] {
            rows += "<div><b>\(HTML.escape(member.key))</b> \(HTML.escape(member.value.stringValue ?? member.value.jsonString))</div>"
        }
        let html = "<div class=\"plain\">\(rows)</div>"
        return RenderedActivity(fragments: Dictionary(uniqueKeysWithValues: presentations.map { ($0, html) }), warnings: [])
    }
}

/// Escaping text for HTML.
enum HTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

import Foundation
import LivelineCore

/// Escaping and whitelisting for the HTML and CSS a preview writes from payload values: text and
/// attributes escaped, CSS values built from parsed numbers and colours or, for the few strings that
/// pass through, only characters CSS values need (no `;`, braces, quotes, `url(`), so a payload can
/// inject no markup, script or request.
enum CSS {
    /// `text` with `& < > " '` escaped, for element content and quoted attributes.
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// A CSS value from a payload string, or nil when it could break out of the declaration or load anything.
    static func safe(_ text: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789#%.,()- +")
        let lower = text.lowercased()
        guard !text.isEmpty, text.count <= 300, text.allSatisfy(allowed.contains),
              !["url(", "image(", "expression(", "attr(", "var(", "env(", "element(", "paint("].contains(where: lower.contains) else { return nil }
        return text
    }

    /// `n` points as CSS pixels, to two decimals; `0px` for a value that is not finite.
    static func px(_ n: Double) -> String {
        guard n.isFinite else { return "0px" }
        return number(n) + "px"
    }

    /// A number with at most two decimals (huge values clamped).
    static func number(_ n: Double) -> String {
        guard n.isFinite else { return "0" }
        let clamped = min(max(n, -100_000), 100_000)
        return JSONValue.javaScriptNumber((clamped * 100).rounded() / 100)
    }

    /// `0.4` as `40%`.
    static func percent(_ f: Double) -> String { number(min(1, max(0, f.isFinite ? f : 0)) * 100) + "%" }

    /// A `style="…"` attribute, or nothing when there are no declarations (a declaration repeated
    /// word for word is written once).
    static func style(_ declarations: [String]) -> String {
        var seen = Set<String>()
        let unique = declarations.filter { seen.insert($0).inserted }
        return unique.isEmpty ? "" : " style=\"\(escape(unique.joined(separator: ";")))\""
    }
}

/// Text for HTML that other pages drawing previews write around them (the dashboard's).
public enum HTMLText {
    /// `text` with `& < > " '` escaped, for element content and quoted attributes.
    public static func escape(_ text: String) -> String {
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

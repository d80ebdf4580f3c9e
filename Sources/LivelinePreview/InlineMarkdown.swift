/// The inline Markdown the device renders in a Text (SwiftUI's `Text` from a string key):
/// `**bold**`, `*italic*` or `_italic_`, `~~strikethrough~~`, `` `code` `` and `[label](url)` (the
/// label in the accent colour). Anything else stays as typed.
enum InlineMarkdown {
    /// `text` as HTML: escaped, with the marked runs wrapped.
    static func html(_ text: String) -> String {
        guard text.contains(where: { "*_~`[".contains($0) }) else { return CSS.escape(text) }
        return render(Array(text))
    }

    /// The text without its Markdown markers (what takes up room on the line).
    static func plain(_ text: String) -> String {
        guard text.contains(where: { "*_~`[".contains($0) }) else { return text }
        var out = ""
        var html = render(Array(text))
        // Drop the tags; unescape what `render` escaped.
        while let open = html.firstIndex(of: "<") {
            out += html[..<open]
            guard let close = html[open...].firstIndex(of: ">") else { break }
            html = String(html[html.index(after: close)...])
        }
        out += html
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    private static let marks: [(open: String, close: String, tag: String)] = [
        ("**", "**", "b"), ("~~", "~~", "s"), ("`", "`", "code"), ("*", "*", "i"), ("_", "_", "i"),
    ]

    private static func render(_ chars: [Character]) -> String {
        var out = ""
        var i = 0
        func starts(_ s: String, at index: Int) -> Bool {
            let pattern = Array(s)
            return index + pattern.count <= chars.count && Array(chars[index..<index + pattern.count]) == pattern
        }
        func find(_ s: String, from index: Int) -> Int? {
            var j = index
            while j < chars.count { if starts(s, at: j) { return j }; j += 1 }
            return nil
        }
        outer: while i < chars.count {
            if chars[i] == "[", let close = find("](", from: i + 1), let end = find(")", from: close + 2), close > i + 1 {
                out += "<span class=\"ll-md-link\">" + render(Array(chars[(i + 1)..<close])) + "</span>"
                i = end + 1
                continue
            }
            for mark in marks where starts(mark.open, at: i) {
                let from = i + mark.open.count
                if let close = find(mark.close, from: from), close > from, chars[from] != " " {
                    let inner = Array(chars[from..<close])
                    let body = mark.tag == "code" ? CSS.escape(String(inner)) : render(inner)
                    out += "<\(mark.tag) class=\"ll-md\">" + body + "</\(mark.tag)>"
                    i = close + mark.close.count
                    continue outer
                }
            }
            out += CSS.escape(String(chars[i]))
            i += 1
        }
        return out
    }
}

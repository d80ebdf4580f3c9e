import Foundation
import LivelineCore

extension UIPreview {
    /// A self-contained HTML page drawing `surface`: the Lock Screen as a card, the Dynamic Island as
    /// black pills. Inline CSS only, no script, no external resources; all payload text is escaped.
    public func html(_ layout: UILayout, surface: Surface = .all) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <title>Liveline preview</title>
        <style>body{margin:0;padding:24px;background:#E5E7EB;font-family:system-ui,-apple-system,sans-serif}</style>
        </head><body>
        \(htmlFragment(layout, surface: surface))
        </body></html>
        """
    }

    /// The HTML page of a decoded payload (what the device would draw from it).
    public func html(_ decoded: DecodedUI, surface: Surface = .all) -> String { html(decoded.layout, surface: surface) }

    /// The preview as one `<div class="ll-preview">` with its own `<style>`, to embed in a page
    /// (a dashboard); class names all start with `ll-`.
    public func htmlFragment(_ layout: UILayout, surface: Surface = .all) -> String {
        let renderer = HTMLRenderer(values: values)
        func region(_ r: Region) -> String {
            guard let content = layout.regions[r] else { return "" }
            return content.elements.map(renderer.render).joined()
        }
        var out = "<div class=\"ll-preview\"><style>\(Self.stylesheet)</style>"
        if surface != .island {
            let tint = HTMLRenderer.color(layout.lockScreenBackgroundTint).map { " style=\"background:\(HTMLRenderer.escape($0))\"" } ?? ""
            out += "<figure class=\"ll-surface\"><figcaption>Lock Screen · \(HTMLRenderer.escape(clock))</figcaption>"
            out += "<div class=\"ll-lock\"\(tint)><div class=\"ll-region ll-v\">\(region(.lockScreen))</div></div></figure>"
        }
        if surface != .lockScreen {
            let keyline = HTMLRenderer.color(layout.keylineTint).map { " style=\"box-shadow:0 0 0 2px \(HTMLRenderer.escape($0))\"" } ?? ""
            out += "<figure class=\"ll-surface\"><figcaption>Dynamic Island · compact</figcaption><div class=\"ll-island ll-compact\">"
            out += "<div class=\"ll-region ll-h\">\(region(.islandCompactLeading))</div><div class=\"ll-camera\"></div>"
            out += "<div class=\"ll-region ll-h ll-end\">\(region(.islandCompactTrailing))</div></div></figure>"
            out += "<figure class=\"ll-surface\"><figcaption>Dynamic Island · minimal</figcaption>"
            out += "<div class=\"ll-island ll-minimal\"\(keyline)><div class=\"ll-region ll-h\">\(region(.islandMinimal))</div></div></figure>"
            out += "<figure class=\"ll-surface\"><figcaption>Dynamic Island · expanded</figcaption><div class=\"ll-island ll-expanded\">"
            out += "<div class=\"ll-row\"><div class=\"ll-region ll-v ll-start\">\(region(.islandExpandedLeading))</div>"
            out += "<div class=\"ll-region ll-v ll-center\">\(region(.islandExpandedCenter))</div>"
            out += "<div class=\"ll-region ll-v ll-end\">\(region(.islandExpandedTrailing))</div></div>"
            out += "<div class=\"ll-region ll-v\">\(region(.islandExpandedBottom))</div></div></figure>"
        }
        if surface == .all, layout.regions[.supplementalSmall] != nil {
            out += "<figure class=\"ll-surface\"><figcaption>Small family</figcaption>"
            out += "<div class=\"ll-lock ll-small\"><div class=\"ll-region ll-v\">\(region(.supplementalSmall))</div></div></figure>"
        }
        return out + "</div>"
    }

    /// The CSS of the preview; every selector is under `.ll-preview`.
    static let stylesheet = """
        .ll-preview{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start;color:#fff;font:15px/1.25 system-ui,-apple-system,sans-serif}\
        .ll-preview figure{margin:0}\
        .ll-preview figcaption{color:#374151;font-size:12px;margin:0 0 6px 4px}\
        .ll-preview .ll-lock{width:360px;box-sizing:border-box;padding:14px;border-radius:22px;background:rgba(28,28,30,.92);overflow:hidden}\
        .ll-preview .ll-small{width:170px}\
        .ll-preview .ll-island{background:#000;color:#fff;box-sizing:border-box;overflow:hidden}\
        .ll-preview .ll-compact{width:250px;height:37px;border-radius:19px;display:flex;align-items:center;padding:0 12px;gap:6px}\
        .ll-preview .ll-compact>.ll-region{flex:1;overflow:hidden;white-space:nowrap}\
        .ll-preview .ll-camera{width:90px;flex:none}\
        .ll-preview .ll-minimal{min-width:37px;height:37px;border-radius:19px;display:flex;align-items:center;justify-content:center;padding:0 8px}\
        .ll-preview .ll-expanded{width:370px;min-height:84px;border-radius:42px;padding:14px 22px;display:flex;flex-direction:column;gap:6px}\
        .ll-preview .ll-row{display:flex;gap:8px;align-items:flex-start}\
        .ll-preview .ll-row>.ll-center{flex:1;align-items:center}\
        .ll-preview .ll-start{align-items:flex-start}\
        .ll-preview .ll-end{justify-content:flex-end;align-items:flex-end}\
        .ll-preview .ll-v{display:flex;flex-direction:column}\
        .ll-preview .ll-h{display:flex;flex-direction:row;align-items:center;gap:8px}\
        .ll-preview .ll-z{display:grid;place-items:center}\
        .ll-preview .ll-z>*{grid-area:1/1}\
        .ll-preview .ll-region{min-width:0;gap:8px}\
        .ll-preview .ll-t{font-size:17px;white-space:pre-wrap}\
        .ll-preview .ll-timer{font-variant-numeric:tabular-nums}\
        .ll-preview .ll-sf{font-size:19px;line-height:1}\
        .ll-preview .ll-img{display:inline-block;min-width:24px;min-height:24px;border-radius:4px;background:rgba(255,255,255,.15);font-size:11px;object-fit:cover}\
        .ll-preview .ll-btn{display:inline-flex;gap:6px;align-items:center;padding:6px 12px;border-radius:14px;background:rgba(255,255,255,.18)}\
        .ll-preview .ll-toggle{display:inline-flex;gap:8px;align-items:center}\
        .ll-preview .ll-switch{width:40px;height:24px;border-radius:12px;background:rgba(255,255,255,.25);position:relative}\
        .ll-preview .ll-switch:after{content:"";position:absolute;top:2px;left:2px;width:20px;height:20px;border-radius:10px;background:#fff}\
        .ll-preview .ll-switch.on{background:#30D158}\
        .ll-preview .ll-switch.on:after{left:18px}\
        .ll-preview .ll-progress{display:flex;flex-direction:column;gap:4px;align-self:stretch;flex:1}\
        .ll-preview .ll-bar{overflow:hidden;display:flex}\
        .ll-preview .ll-ring{width:36px;height:36px;border-radius:50%;display:grid;place-items:center}\
        .ll-preview .ll-ring>div{width:28px;height:28px;border-radius:50%;background:#000;display:grid;place-items:center;font-size:11px}\
        .ll-preview .ll-sub{font-size:12px;opacity:.8}\
        .ll-preview .ll-sub .ll-t,.ll-preview .ll-ring .ll-t{font-size:inherit}\
        .ll-preview .ll-group{background:rgba(255,255,255,.1);border-radius:12px;padding:10px;display:flex;flex-direction:column;gap:6px}\
        .ll-preview .ll-group-label{font-weight:600}\
        .ll-preview .ll-spacer{flex:1}\
        .ll-preview .ll-divider{align-self:stretch;min-height:1px;min-width:1px;background:rgba(255,255,255,.3)}\
        .ll-preview .ll-chart{align-self:stretch;min-width:120px}
        """
}

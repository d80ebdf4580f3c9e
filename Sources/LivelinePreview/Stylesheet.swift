/// The CSS of previews. `css` is what fragments need (every selector under `.ll-preview`, the same
/// for every document); `page` lays out a whole preview page.
enum Stylesheet {
    /// Font stacks: Apple's faces where they exist, then Inter (Debian `fonts-inter-variable`) as
    /// the look-alike (Inter Display from 20 pt, as SF switches from Text to Display), emoji from Noto.
    static let css = """
        .ll-preview{--ll-text:-apple-system,BlinkMacSystemFont,"SF Pro Text","Inter","Noto Sans","Noto Color Emoji",system-ui,sans-serif;\
        --ll-display:-apple-system,BlinkMacSystemFont,"SF Pro Display","Inter Display","Inter","Noto Sans","Noto Color Emoji",system-ui,sans-serif;\
        --ll-mono:ui-monospace,"SF Mono","JetBrains Mono","DejaVu Sans Mono","Noto Color Emoji",monospace;\
        --ll-serif:ui-serif,"New York","Noto Serif","DejaVu Serif",serif;\
        --ll-rounded:ui-rounded,"SF Pro Rounded","Inter","Noto Color Emoji",sans-serif;\
        display:inline-block;font-family:var(--ll-text);font-size:17px;font-weight:400;line-height:1.2;letter-spacing:-0.02em;\
        font-feature-settings:"calt","case" 0;-webkit-font-smoothing:antialiased;text-align:left}\
        .ll-preview *{box-sizing:border-box;min-width:0;margin:0}\
        .ll-preview .ll-box{position:relative;overflow:hidden;display:flex;flex-direction:column;isolation:isolate}\
        .ll-preview .ll-region{display:flex;flex-direction:column;min-height:0;overflow:hidden;position:relative}\
        .ll-preview .ll-lock-region{flex:1 1 auto;align-items:center;justify-content:center;width:100%}\
        .ll-preview .ll-island{background:#000;color:#fff}\
        .ll-preview .ll-compact{flex-direction:row;align-items:stretch;border-radius:44px}\
        .ll-preview .ll-compact-side{flex:none;display:flex;flex-direction:row;align-items:center;justify-content:center}\
        .ll-preview .ll-camera{flex:none}\
        .ll-preview .ll-minimal{border-radius:44px;align-items:center;justify-content:center}\
        .ll-preview .ll-minimal-region{width:100%;height:100%;align-items:center;justify-content:center}\
        .ll-preview .ll-expanded-top{display:grid;flex:none}\
        .ll-preview .ll-exp-leading{grid-column:1;grid-row:1/3;align-items:flex-start;justify-content:flex-start}\
        .ll-preview .ll-exp-trailing{grid-column:3;grid-row:1/3;align-items:flex-end;justify-content:flex-start}\
        .ll-preview .ll-exp-center{grid-column:2;grid-row:2;align-items:center;max-width:\(CSS.px(Geometry.expandedCenterMaxWidth))}\
        .ll-preview .ll-exp-bottom{flex:1 1 auto;align-items:center;justify-content:flex-start}\
        .ll-preview .ll-exp-leading *,.ll-preview .ll-exp-trailing *,.ll-preview .ll-exp-center *{max-width:100%}\
        .ll-preview .ll-md{font:inherit}.ll-preview b.ll-md{font-weight:700}.ll-preview i.ll-md{font-style:italic}\
        .ll-preview s.ll-md{text-decoration:line-through}.ll-preview code.ll-md{font-family:var(--ll-mono)}\
        .ll-preview .ll-md-link{color:#0A84FF}\
        .ll-preview .ll-v{display:flex;flex-direction:column;justify-content:center;position:relative}\
        .ll-preview .ll-h{display:flex;flex-direction:row;justify-content:center;position:relative}\
        .ll-preview .ll-z{display:grid;position:relative}\
        .ll-preview .ll-z>*{grid-area:1/1}\
        .ll-preview .ll-mask-content{display:grid;visibility:hidden}.ll-preview .ll-mask-content>*{grid-area:1/1}\
        .ll-preview .ll-mask-layer{position:absolute;inset:0;display:grid;place-items:center}.ll-preview .ll-mask-layer>*{grid-area:1/1}\
        .ll-preview .ll-mask-layer :not(.ll-mask-copy,.ll-mask-copy *){position:static!important}\
        .ll-preview .ll-mask-copy{position:absolute;left:0;top:0;width:100%;height:100%;display:grid;visibility:visible}\
        .ll-preview .ll-mask-copy>*{grid-area:1/1}\
        .ll-preview .ll-gap{display:block;flex:none}\
        .ll-preview .ll-spacer{display:block}\
        .ll-preview .ll-text{display:block;flex:0 1 auto;white-space:pre-wrap;overflow-wrap:normal;word-break:normal}\
        .ll-preview .ll-sym{display:inline-flex;flex:none;align-items:center;justify-content:center}\
        .ll-preview .ll-sym svg{display:block;overflow:visible}\
        .ll-preview .ll-sym-missing{border:1.5px solid currentColor;border-radius:28%;opacity:.85;overflow:hidden}\
        .ll-preview .ll-sym-label{display:block;font-size:7px;line-height:1;font-weight:600;letter-spacing:0;white-space:nowrap;overflow:hidden;text-overflow:clip;max-width:100%;padding:0 1px}\
        .ll-preview .ll-label{display:inline-flex;flex-direction:row;align-items:center;gap:.35em}\
        .ll-preview .ll-label-icon{width:1.2em;height:1.2em}\
        .ll-preview .ll-button{display:inline-flex;flex-direction:row;align-items:center;justify-content:center;gap:6px;padding:7px 14px;border-radius:999px;font-weight:600}\
        .ll-preview .ll-toggle{display:inline-flex;flex-direction:row;align-items:center;gap:8px}\
        .ll-preview .ll-switch{display:block;width:51px;height:31px;border-radius:16px;position:relative;flex:none}\
        .ll-preview .ll-switch::after{content:"";position:absolute;top:2px;left:2px;width:27px;height:27px;border-radius:50%;background:#fff;box-shadow:0 2px 4px rgba(0,0,0,.2)}\
        .ll-preview .ll-switch.ll-on::after{left:22px}\
        .ll-preview .ll-progress{display:flex;flex-direction:column;gap:4px}\
        .ll-preview .ll-bar{display:flex;overflow:hidden;width:100%;flex:none}\
        .ll-preview .ll-bar>div{height:100%}\
        .ll-preview .ll-ring{position:relative;flex:none}\
        .ll-preview .ll-ring>svg{position:absolute;left:0;top:0}\
        .ll-preview .ll-ring-label{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;font-size:12px;font-weight:600}\
        .ll-preview .ll-gauge-ends{position:absolute;left:0;right:0;bottom:-2px;display:flex;justify-content:space-between;font-size:8px}\
        .ll-preview .ll-caption{display:flex;flex-direction:column;font-size:13px}\
        .ll-preview .ll-divider{display:block;flex:none}\
        .ll-preview .ll-group{display:flex;flex-direction:column;gap:8px;padding:16px;border-radius:12px}\
        .ll-preview .ll-group-label{font-weight:600}\
        .ll-preview .ll-img{display:block;flex:none}\
        .ll-preview .ll-img-missing{display:inline-flex;align-items:center;justify-content:center;border-radius:8px;overflow:hidden}\
        .ll-preview .ll-chart{display:block;align-self:stretch;min-width:120px}\
        .ll-preview .ll-fill{align-self:stretch;flex:1 1 auto}\
        .ll-preview .ll-standby{align-items:center;justify-content:center}\
        .ll-preview .ll-standby-view{display:flex;flex-direction:column;flex:none;transform-origin:center}\
        .ll-preview .ll-small{background:\(PageRenderer.smallBackground);color:#fff;padding:8px 10px}\
        .ll-preview .ll-small-region{flex:1 1 auto;align-items:stretch;justify-content:center}\
        .ll-preview .ll-small-fallback{align-items:center;justify-content:space-between;width:100%}\
        .ll-preview .ll-two{flex-direction:row;align-items:stretch;overflow:visible}\
        .ll-preview .ll-attached{display:flex;flex-direction:row;border-radius:44px;flex:none}\
        .ll-preview .ll-detached{display:flex;border-radius:50%;flex:none;align-items:center;justify-content:center}
        """

    /// The page around the fragments: one column as wide as the phone's screen.
    static let page = """
        html{scrollbar-width:none}html,body{margin:0;padding:0}\
        .ll-page{font:13px/1.35 "Inter",system-ui,sans-serif;padding:0 0 16px}\
        .ll-page-light{background:#E5E5EA;color:#3A3A3C}\
        .ll-page-dark{background:#1C1C1E;color:#AEAEB2}\
        .ll-page main{width:393px}\
        .ll-figure{margin:0;padding:12px 0 4px}\
        .ll-figure figcaption{padding:0 11px 6px;font-size:12px}\
        .ll-stage{display:flex;justify-content:center}\
        .ll-stale-badge{color:#FF8D28;font-weight:600}.ll-ended-badge{font-weight:600}\
        .ll-warnings{margin:12px 11px;padding:8px 12px;border-radius:10px;background:rgba(255,141,40,.16)}\
        .ll-warnings h2{font-size:13px;margin:0 0 4px}\
        .ll-warnings ul{margin:0;padding-left:18px}\
        .ll-note{margin:12px 11px 0;font-size:11px;opacity:.8}\
        .ll-source{margin:10px 11px 0;font-size:12px;line-height:16px;height:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}

        """
}

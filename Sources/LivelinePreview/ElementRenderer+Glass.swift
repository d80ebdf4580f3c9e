import LivelineUI

/// GlassContainer: glass views closer to each other than the container's `spacing` blend into one
/// shape (SwiftUI's GlassEffectContainer; "the spacing specifies the distance between elements at
/// which they begin to merge", and the default 0 merges nothing, which is what Voltra passes when
/// no spacing is given). A static picture draws the merged views as one glass capsule round the run,
/// each view without its own glass; views further apart keep their own.
extension ElementRenderer {
    /// The stack's children with runs of close glass views merged, or nil when no two are that close.
    func mergedGlassStack(_ children: [UIElement], axis: Axis, spacing: Double?) -> String? {
        let shown = children.filter { PreviewValues.style($0)["display"]?.stringValue != "none" }
        func isGlass(_ e: UIElement) -> Bool { !StyleCSS.glass(PreviewValues.style(e)).isEmpty }
        func gap(_ a: UIElement, _ b: UIElement) -> Double { spacing.map { max(0, min($0, 1000)) } ?? Self.defaultSpacing(a, b, axis: axis) }
        // Runs of neighbouring glass views whose gaps are under the merging distance.
        var runs: [Range<Int>] = []
        var start = 0
        for i in shown.indices {
            let joins = i > 0 && isGlass(shown[i]) && isGlass(shown[i - 1]) && gap(shown[i - 1], shown[i]) < glassMerge
            if !joins {
                if i - start > 1 { runs.append(start..<i) }
                start = i
            }
        }
        if shown.count - start > 1, isGlass(shown[start]) { runs.append(start..<shown.count) }
        guard !runs.isEmpty else { return nil }

        func gapHTML(_ size: Double) -> String {
            size > 0 ? "<i class=\"ll-gap\" style=\"\(axis == .horizontal ? "width" : "height"):\(CSS.px(size))\"></i>" : ""
        }
        var out = ""
        var previous: UIElement?
        var i = 0
        while i < shown.count {
            let child = shown[i]
            if let run = runs.first(where: { $0.lowerBound == i }) {
                var inner = ""
                for j in run {
                    if j > run.lowerBound { inner += gapHTML(gap(shown[j - 1], shown[j])) }
                    inner += render(shown[j], in: axis, glass: false)
                }
                if let previous { out += gapHTML(gap(previous, child)) }
                out += mergedShape(Array(shown[run]), axis: axis, inner: inner)
                previous = shown[run.upperBound - 1]
                i = run.upperBound
                continue
            }
            let html = render(child, in: axis)
            if let previous, !html.isEmpty { out += gapHTML(gap(previous, child)) }
            out += html
            if !html.isEmpty { previous = child }
            i += 1
        }
        return out
    }

    /// One glass shape round merged views: the first view's glass and corner radius, growing where they grow.
    private func mergedShape(_ views: [UIElement], axis: Axis, inner: String) -> String {
        let first = PreviewValues.style(views[0])
        var css = StyleCSS.glass(first)
        if let radius = first["borderRadius"]?.numberValue, radius.isFinite { css.append("border-radius:\(CSS.px(max(0, radius)))") }
        let along = axis == .horizontal ? views.contains(where: Layout.expandsHorizontally) : views.contains(where: Layout.expandsVertically)
        let across = axis == .horizontal ? views.contains(where: Layout.expandsVertically) : views.contains(where: Layout.expandsHorizontally)
        if along { css.append("flex:1 1 0") }
        if across { css.append("align-self:stretch") }
        css.append("align-items:center")
        return "<div class=\"\(axis == .vertical ? "ll-v" : "ll-h") ll-glass-merged\"\(CSS.style(css))>\(inner)</div>"
    }
}

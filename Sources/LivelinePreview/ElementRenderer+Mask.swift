import LivelineCore
import LivelineUI

/// `Mask`: the children drawn only where the mask element is opaque (SwiftUI's `.mask { }`), as the
/// device draws Voltra's workout zones: one gradient bar shown through five pills is five pills.
///
/// HTML has no mask made of laid-out elements, so the page lays the children out once, invisibly,
/// to give the Mask its size, then draws the mask element over that box with each of its opaque
/// shapes (a view with a `backgroundColor`, a gradient) clipped to its own outline and showing a
/// copy of the children placed at the Mask's corner. Text and symbols in a mask element are drawn
/// as they are, not as holes onto the children. A mask element of more than `maskShapeLimit`
/// shapes, and a Mask inside another, draw the children unmasked.
extension ElementRenderer {
    /// The most opaque shapes one mask element may have: each draws a copy of the masked content.
    static let maskShapeLimit = 24

    func mask(_ e: UIElement, tag: (String, String, [String], String, String) -> String) -> String {
        // A Mask inside another Mask's content or mask element draws its children unmasked: copies of
        // copies would grow the page by the product of their shape counts.
        var inner = self
        inner.inMask = true
        let content = PreviewValues.children(e).map { inner.render($0, in: .overlay) }.joined()
        let shapes = PreviewValues.elements(e, "maskElement")
        let count = shapes.reduce(0) { $0 + Self.opaqueShapes($1) }
        guard !shapes.isEmpty, !inMask, count <= Self.maskShapeLimit else { return tag("div", "ll-z", [], content, "") }
        var masking = inner
        masking.maskCopy = "<div class=\"ll-mask-copy\" aria-hidden=\"true\">\(content)</div>"
        let layer = shapes.map { masking.render($0, in: .overlay) }.joined()
        return tag("div", "ll-z ll-mask", [], "<div class=\"ll-mask-content\">\(content)</div><div class=\"ll-mask-layer\">\(layer)</div>", "")
    }

    /// How many views in the tree (children and element-valued props) fill a shape: a `backgroundColor`, a gradient.
    static func opaqueShapes(_ e: UIElement) -> Int {
        var count = e.component == .linearGradient || PreviewValues.style(e)["backgroundColor"] != nil ? 1 : 0
        for child in PreviewValues.children(e) { count += opaqueShapes(child) }
        for prop in e.props {
            switch prop.value {
            case .element(let child): count += opaqueShapes(child)
            case .elements(let list): for child in list { count += opaqueShapes(child) }
            default: break
            }
        }
        return count
    }

    /// The declarations of an opaque shape in a mask element: its own fill taken away and the shape
    /// clipping what it draws (the copy of the masked content) to its rounded outline; nil for a view
    /// that fills nothing.
    static func maskShape(_ style: JSONObject, _ css: [String]) -> [String]? {
        guard css.contains(where: { $0.hasPrefix("background:") || $0.hasPrefix("background-color:") || $0.hasPrefix("background-image:") }) else { return nil }
        let radius = style["borderRadius"]?.numberValue.map { max(0, min($0, 1000)) } ?? 0
        return css.filter { !$0.hasPrefix("background") } + ["clip-path:inset(0 round \(CSS.px(radius)))"]
    }
}

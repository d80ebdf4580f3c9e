import LivelineCore

/// How deep a layout may nest and how many elements it may expand to.
///
/// Voltra's extension expands every shared element (`$r`) in full where it is used, recursing once
/// per level, so a small payload whose elements refer to each other many times over expands
/// exponentially, and a long chain of references recurses as deep as it is long. Liveline decodes
/// and parses within these limits, so decoding, previews and `ui decode` take time and memory in
/// proportion to the input; a layout past them is refused with an error naming the limit and where
/// it was passed.
public enum LayoutLimits {
    /// The most levels of elements inside elements (children and component-valued props), counted
    /// in the expanded tree; a `$r` takes the level of the element it names. The JSON parser's
    /// 512 levels hold this many with room to spare (each level is at most two JSON levels).
    public static let maxDepth = 64
    /// The most elements a layout may expand to, all regions together, each `$r` counted at every
    /// use. A payload within the budget (at most 20,064 bytes of JSON) holds about 2,200 elements
    /// when nothing is shared.
    public static let maxElements = 10_000

    /// Throws when `layout` nests deeper than `maxDepth` or expands to more than `maxElements`.
    ///
    /// Shared elements are measured once, so this takes time in proportion to the distinct elements.
    /// - Throws: `UIError` `.invalidLayout` naming the limit.
    public static func check(_ layout: UILayout) throws(UIError) {
        var measure = Measure()
        var total = 0
        for region in Region.allCases {
            for element in layout.regions[region]?.elements ?? [] {
                let size = measure.size(of: element)
                if size.depth > maxDepth { throw UIError(.invalidLayout, depthMessage(at: region.wireKey)) }
                total = min(total + size.elements, maxElements + 1)
            }
        }
        if total > maxElements { throw UIError(.invalidLayout, elementsMessage(at: nil)) }
    }

    static func depthMessage(at path: String) -> String {
        """
        layout nests more than \(maxDepth) levels deep (at \(path)); the device's parser recurses once per level \
        (following $r references), so a deeper tree can exhaust its stack. Flatten the UI.
        """
    }

    static func elementsMessage(at path: String?) -> String {
        """
        layout expands to more than \(maxElements) elements\(path.map { " (at \($0))" } ?? ""); the device expands \
        every $r in full where it is used, so shared elements referring to each other multiply. Share less or \
        simplify the UI.
        """
    }

    /// Depth and expanded element count of elements, each distinct element measured once.
    struct Measure {
        private var known: [ObjectIdentifier: (depth: Int, elements: Int)] = [:]

        /// Levels (1 for a leaf) and expanded elements (saturating just past `maxElements`). Stops
        /// descending past `maxDepth` (the depth is then over the limit), so it never recurses deeper.
        mutating func size(of element: UIElement, level: Int = 1) -> (depth: Int, elements: Int) {
            if let size = known[ObjectIdentifier(element)] { return size }
            guard level <= LayoutLimits.maxDepth else { return (LayoutLimits.maxDepth + 1, 1) }
            var depth = 0
            var elements = 1
            for child in element.childElements {
                let size = self.size(of: child, level: level + 1)
                depth = max(depth, size.depth)
                elements = min(elements + size.elements, LayoutLimits.maxElements + 1)
            }
            let size = (depth: depth + 1, elements: elements)
            known[ObjectIdentifier(element)] = size
            return size
        }
    }
}

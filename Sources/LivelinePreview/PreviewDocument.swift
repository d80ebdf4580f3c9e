/// A rendered preview: a whole page, its stylesheet, one fragment per presentation and where each is.
public struct PreviewDocument: Sendable {
    /// A complete self-contained page showing every presentation asked for (no script, no outside
    /// resources), with the warnings under them.
    public let html: String
    /// The CSS the fragments need (also inlined in `html`). The same for every document, so a page
    /// showing many previews includes it once; every selector is under `.ll-preview`.
    public let stylesheet: String
    /// Each presentation's HTML fragment alone (one `<div class="ll-preview …">`), to embed in a page
    /// that includes `stylesheet`.
    public let fragments: [Presentation: String]
    /// Where each presentation is on the page, in the order drawn.
    public let boxes: [PreviewBox]
    /// Decoding and lint warnings (also shown on the page).
    public let warnings: [String]

    /// Creates a document.
    public init(html: String, stylesheet: String, fragments: [Presentation: String], boxes: [PreviewBox], warnings: [String]) {
        self.html = html
        self.stylesheet = stylesheet
        self.fragments = fragments
        self.boxes = boxes
        self.warnings = warnings
    }

    /// The box of `presentation`, if it was drawn.
    public func box(_ presentation: Presentation) -> PreviewBox? { boxes.first { $0.presentation == presentation } }
}

/// Where one presentation is on a preview page, and what a screenshot of it should show.
public struct PreviewBox: Sendable {
    /// The presentation.
    public let presentation: Presentation
    /// CSS selector of the element whose bounding box is the presentation (unique in `html`, and in
    /// a fragment).
    public let selector: String
    /// The box's size in points (CSS px); a screenshot at scale 3 is three times as many pixels.
    public let width: Double, height: Double
    /// The background colour expected just inside the box's edge (away from the rounded corners),
    /// `#RRGGBB`: the tint over the default background, or the Island's black; a layout that draws
    /// to the edge itself (a full-size gradient) covers it.
    public let background: String
    /// The regions of the presentation that hold content (text, icons), in points from the box's
    /// top-left corner: a screenshot has pixels other than `background` inside each.
    public let content: [PreviewRegion]

    /// Creates a box.
    public init(presentation: Presentation, selector: String, width: Double, height: Double, background: String, content: [PreviewRegion]) {
        self.presentation = presentation
        self.selector = selector
        self.width = width
        self.height = height
        self.background = background
        self.content = content
    }
}

/// A rectangle of a presentation where content is drawn: one region of the layout (`lockScreen`,
/// `island.expanded.leading`, ...), in points from the box's top-left corner.
public struct PreviewRegion: Sendable, Equatable {
    /// The layout region's path in the JSON form (`island.compact.trailing`).
    public let name: String
    /// CSS selector of the region's element.
    public let selector: String
    /// Its frame in points, relative to the box.
    public let x: Double, y: Double, width: Double, height: Double

    /// Creates a region.
    public init(name: String, selector: String, x: Double, y: Double, width: Double, height: Double) {
        self.name = name
        self.selector = selector
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

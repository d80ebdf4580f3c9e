import LivelineCore

/// The children of an element, in the forms the wire distinguishes.
public enum UIChildren: Sendable {
    /// No children (no `c` key, or `""` for Text).
    case none
    /// Text content (Text only): already flattened to one string.
    case text(String)
    /// Exactly one child element, emitted as an object.
    case single(UIElement)
    /// A list, emitted as an array even with one element; empty means no `c` key.
    case list([UIElement])
}

import LivelineCore

/// A named prop of an element.
public struct UIProp: Sendable {
    /// The full (JSX) name, e.g. `spacing`; shortened on the wire.
    public var name: String
    /// The value.
    public var value: UIPropValue

    /// Creates a prop.
    public init(_ name: String, _ value: UIPropValue) {
        self.name = name
        self.value = value
    }
}

/// A prop value.
public enum UIPropValue: Sendable {
    /// A plain JSON value, emitted as it is.
    case value(JSONValue)
    /// An explicit `undefined`: not emitted, but makes `p` present (`"p":{}`).
    case undefined
    /// A style, emitted as an index into the stylesheet `s`.
    case style(UIStyle)
    /// A component-valued prop holding one element.
    case element(UIElement)
    /// A component-valued prop holding several elements (emitted as an array).
    case elements([UIElement])
}

import LivelineCore

/// One element of a Live Activity UI: a component, its id, its props in order, and its children.
///
/// A reference type on purpose: Voltra's renderer shares elements and styles by object identity,
/// so using the same `UIElement` twice is how a layout says "the same element" (compatibility mode
/// then emits it once in `e` and refers to it with `$r`). The DSL and the JSON form build fresh
/// instances every time, so they never share by accident.
public final class UIElement: Sendable {
    /// The component.
    public let component: Component
    /// The `id` prop; emitted as `i` only when it is a non-empty string.
    public let id: JSONValue?
    /// The props in insertion order, full names (shortened when encoded), `id` excluded.
    public let props: [UIProp]
    /// The children.
    public let children: UIChildren

    /// Creates an element.
    public init(_ component: Component, id: JSONValue? = nil, props: [UIProp] = [], children: UIChildren = .none) {
        self.component = component
        self.id = id
        self.props = props
        self.children = children
    }

    /// The element id when it is a non-empty string (what the wire keeps as `i`).
    public var idString: String? {
        if case .string(let s)? = id, !s.isEmpty { return s }
        return nil
    }

    /// The value of the prop named `name` (full name), if present.
    public func prop(_ name: String) -> UIPropValue? { props.last { $0.name == name }?.value }

    /// Direct child elements, from children and component-valued props, in render order.
    var childElements: [UIElement] {
        var out: [UIElement] = []
        switch children {
        case .single(let e): out.append(e)
        case .list(let list): out += list
        case .none, .text: break
        }
        for prop in props {
            switch prop.value {
            case .element(let e): out.append(e)
            case .elements(let list): out += list
            default: break
            }
        }
        return out
    }
}

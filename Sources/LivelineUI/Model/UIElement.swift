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

/// A style object, already flattened, `null` values dropped, full key names in first-seen order.
///
/// A reference type: compatibility mode gives one stylesheet entry per `UIStyle` instance, as
/// Voltra does per JavaScript object; compact mode merges equal ones.
public final class UIStyle: Sendable {
    /// The properties, or nil for `style={null}` (a stylesheet entry `null`).
    public let properties: JSONObject?

    /// A style from properties in order; `null` values are dropped.
    public init(_ properties: JSONObject?) {
        guard let properties else { self.properties = nil; return }
        self.properties = JSONObject(properties.members.filter { $0.value != .null })
    }

    /// Flattens a list of style objects left to right: a later value overwrites an earlier one but
    /// keeps the key's first position; `null` entries in the list are skipped.
    public static func flattening(_ objects: [JSONObject?]) -> UIStyle {
        var merged = JSONObject()
        for object in objects {
            guard let object else { continue }
            for member in object { merged[member.key] = member.value }
        }
        return UIStyle(merged)
    }

    /// The stylesheet entry: keys shortened, nested values untouched.
    var wireValue: JSONValue {
        guard let properties else { return .null }
        return .object(JSONObject(properties.members.map { .init(key: ShortNames.shorten($0.key), value: $0.value) }))
    }
}

import Foundation
import LivelineCore

/// Anything the UI builder accepts: it turns into zero or more elements.
public protocol VoltraView: Sendable {
    /// The elements, built fresh on every call (Swift values have no identity to share).
    func makeElements() -> [UIElement]
}

/// A view that is one element: a component with props, children and a style.
public protocol NodeView: VoltraView, StyleModifiable {
    /// The element being described.
    var node: Node { get set }
}

extension NodeView {
    /// The element, built fresh.
    public func makeElements() -> [UIElement] { [node.makeElement()] }

    /// The element's style properties.
    public var styleProperties: JSONObject {
        get { node.style }
        set { node.style = newValue }
    }

    /// Sets the element id (needed for Button and Toggle interactions; shown as `identifier` in events).
    public func id(_ id: String) -> Self {
        var copy = self
        copy.node.id = id
        return copy
    }

    /// Adds a prop by its JSX name, for props this DSL has no typed modifier for.
    public func prop(_ name: String, _ value: JSONValue) -> Self {
        var copy = self
        copy.node.set(name, value)
        return copy
    }
}

/// The description of one element, as the DSL builds it.
public struct Node: Sendable {
    /// A prop value before it becomes a `UIPropValue`.
    enum Value: Sendable {
        case json(JSONValue)
        case views([any VoltraView])
    }

    var component: Component
    var id: String?
    var props: [(name: String, value: Value)] = []
    var children: [any VoltraView] = []
    var text: String?
    var style = JSONObject()

    init(_ component: Component) { self.component = component }

    /// Sets a prop, keeping its first position; `nil` leaves it out.
    mutating func set(_ name: String, _ value: JSONValue?) {
        guard let value else { return }
        if let i = props.firstIndex(where: { $0.name == name }) { props[i].value = .json(value) } else { props.append((name, .json(value))) }
    }

    mutating func set(_ name: String, views: [any VoltraView]) {
        guard !views.isEmpty else { return }
        props.append((name, .views(views)))
    }

    func makeElement() -> UIElement {
        var uiProps: [UIProp] = props.map { prop in
            switch prop.value {
            case .json(let v): return UIProp(prop.name, .value(v))
            case .views(let views):
                let elements = views.flatMap { $0.makeElements() }
                return UIProp(prop.name, elements.count == 1 ? .element(elements[0]) : .elements(elements))
            }
        }
        if !style.isEmpty { uiProps.append(UIProp("style", .style(UIStyle(style)))) }
        // Image's source goes last, as Voltra's Image.toJSON does.
        if let i = uiProps.firstIndex(where: { $0.name == "source" }), component == .image { uiProps.append(uiProps.remove(at: i)) }
        let childElements = children.flatMap { $0.makeElements() }
        let uiChildren: UIChildren
        if let text {
            uiChildren = .text(text)
        } else {
            uiChildren = childElements.isEmpty ? .none : childElements.count == 1 ? .single(childElements[0]) : .list(childElements)
        }
        return UIElement(component, id: id.map(JSONValue.string), props: uiProps, children: uiChildren)
    }
}

/// Builds lists of views, SwiftUI style: blocks, `if`, `if`/`else`, `switch` and `for`.
@resultBuilder
public enum UIBuilder {
    /// A single view.
    public static func buildExpression(_ view: any VoltraView) -> [any VoltraView] { [view] }
    /// A list of views (e.g. from a helper function).
    public static func buildExpression(_ views: [any VoltraView]) -> [any VoltraView] { views }
    /// The views of a block, in order.
    public static func buildBlock(_ parts: [any VoltraView]...) -> [any VoltraView] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [any VoltraView]?) -> [any VoltraView] { part ?? [] }
    /// The `if` branch.
    public static func buildEither(first: [any VoltraView]) -> [any VoltraView] { first }
    /// The `else` branch.
    public static func buildEither(second: [any VoltraView]) -> [any VoltraView] { second }
    /// A `for` loop.
    public static func buildArray(_ parts: [[any VoltraView]]) -> [any VoltraView] { parts.flatMap { $0 } }
    /// An `if #available` block.
    public static func buildLimitedAvailability(_ part: [any VoltraView]) -> [any VoltraView] { part }
}

/// Several views side by side without a container (a Fragment).
public struct Group: VoltraView {
    let content: [any VoltraView]
    /// Groups the views the builder produces.
    public init(@UIBuilder _ content: () -> [any VoltraView]) { self.content = content() }
    /// The elements.
    public func makeElements() -> [UIElement] { content.flatMap { $0.makeElements() } }
}

/// One view per element of `data`.
public struct ForEach<Data: Sequence & Sendable>: VoltraView where Data.Element: Sendable {
    let data: Data
    let content: @Sendable (Data.Element) -> [any VoltraView]
    /// Builds views for each element.
    public init(_ data: Data, @UIBuilder content: @escaping @Sendable (Data.Element) -> [any VoltraView]) {
        self.data = data
        self.content = content
    }
    /// The elements.
    public func makeElements() -> [UIElement] { data.flatMap { content($0).flatMap { $0.makeElements() } } }
}

/// Shares one element instance wherever it is used, so compatibility mode emits it once in `e`
/// and refers to it with `$r`, as Voltra does for a reused JSX element object.
public struct Shared: VoltraView {
    let elements: [UIElement]
    /// Builds the view once.
    public init(_ view: some VoltraView) { elements = view.makeElements() }
    /// The elements.
    public func makeElements() -> [UIElement] { elements }
}

/// Milliseconds since 1970 as Voltra's timers expect (JavaScript's `Date.getTime()`).
func epochMilliseconds(_ date: Date) -> JSONValue {
    .number((date.timeIntervalSince1970 * 1000).rounded())
}

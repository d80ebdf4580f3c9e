import LivelineCore

/// What a region shows: one element, or a fragment of several (emitted as an array).
public enum RegionContent: Sendable {
    case element(UIElement)
    case fragment([UIElement])

    var elements: [UIElement] {
        switch self {
        case .element(let e): [e]
        case .fragment(let list): list
        }
    }
}

import LivelineCore

/// A typed template: a function from an activity's attributes and state to a layout, so the
/// server renders each state to UI and sends it as `VoltraAttributes` content.
public protocol LiveActivityTemplate: Sendable {
    /// The activity's typed attributes (static part) and `ContentState` (dynamic part).
    associatedtype Attributes: ActivityAttributes

    /// The layout for `state`.
    func layout(attributes: Attributes, state: Attributes.ContentState) -> UILayout
}

extension LiveActivityTemplate {
    /// Renders `state` and encodes it as Voltra content, checked against the budget.
    ///
    /// - Throws: `UIError` `.overBudget` or `.compressionRatio`.
    public func contentState(attributes: Attributes, state: Attributes.ContentState, mode: EncodingMode = .compact) throws(UIError)
        -> VoltraAttributes.ContentState
    {
        try VoltraAttributes.ContentState(layout: layout(attributes: attributes, state: state), mode: mode)
    }
}

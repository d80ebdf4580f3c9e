import LivelineCore

/// Turns a layout into the `content-state` object of a Voltra push (what `liveline payload --ui` uses).
public enum VoltraPayload {
    /// `{"uiJsonData": "..."}` for a layout given in the JSON form.
    ///
    /// - Throws: `UIError` `.invalidLayout` for a malformed layout (with its path), `.overBudget`
    ///   (bytes by region and largest subtrees) or `.compressionRatio`.
    public static func contentState(layoutJSON: some Collection<UInt8>, mode: EncodingMode = .compact) throws(UIError) -> JSONObject {
        try contentState(LayoutForm.parse(layoutJSON), mode: mode)
    }

    /// `{"uiJsonData": "..."}` for `layout`, checked against the budget.
    public static func contentState(_ layout: UILayout, mode: EncodingMode = .compact) throws(UIError) -> JSONObject {
        let state = try VoltraAttributes.ContentState(layout: layout, mode: mode)
        return ["uiJsonData": .string(state.uiJsonData)]
    }

    /// The push-to-start `attributes` object `{"name": ..., "deepLinkUrl": ...}`.
    public static func attributes(name: String, deepLinkUrl: String? = nil) -> JSONObject {
        var object: JSONObject = ["name": .string(name)]
        if let deepLinkUrl { object["deepLinkUrl"] = .string(deepLinkUrl) }
        return object
    }

    /// The `attributes-type` of a push-to-start: `VoltraAttributes`.
    public static var attributesType: String { VoltraAttributes.attributesType }
}

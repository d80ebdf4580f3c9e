import Foundation
import LivelineCore

/// The JSON form of a layout, mirroring Voltra's JSX, for users who do not write Swift.
///
/// ```json
/// {"lockScreen": {"type": "VStack", "props": {"spacing": 4, "style": {"padding": 16}},
///                 "children": [{"type": "Text", "children": "Boarding"}]}}
/// ```
/// `props` keep the order in which they are written (as JSX keeps attribute order), so
/// compatibility mode is byte-identical to Voltra's renderer for the same UI.
public enum LayoutForm {
    /// The most bytes of JSON text `parse` reads: 4 MiB, about 200 times the payload JSON any UI
    /// within the budget has (`VoltraBudget.maxJSONBytes`), room for indentation and long names.
    public static let maxInputBytes = 4 << 20

    /// Parses a layout from JSON text.
    ///
    /// - Throws: `UIError` `.invalidLayout` naming the path (`lockScreen.children[1].props.style`),
    ///   what was found and what was expected; `.overBudget`, before parsing, for more than
    ///   `maxInputBytes`.
    public static func parse(_ bytes: some Collection<UInt8>) throws(UIError) -> UILayout {
        guard bytes.count <= maxInputBytes else {
            throw UIError(.overBudget, """
                layout is \(bytes.count) bytes of JSON, over the limit of \(maxInputBytes) bytes, far more than a UI within \
                the budget needs (at most \(VoltraBudget.maxJSONBytes) bytes of payload JSON for \(VoltraBudget.base64Limit) \
                bytes of base64); nothing was parsed. Reduce the UI.
                """)
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw UIError(.invalidLayout, "layout is not valid JSON: \(error.description)")
        }
        return try parse(value)
    }

    /// Parses a layout from a JSON tree.
    public static func parse(_ value: JSONValue) throws(UIError) -> UILayout {
        var parser = FormParser()
        return try parser.layout(value)
    }

    /// The JSON form of `layout` (what `liveline ui decode` prints). Shared elements are written
    /// out in full at each use.
    public static func json(_ layout: UILayout) -> JSONValue {
        var root = JSONObject()
        if let content = layout.regions[.lockScreen] {
            if let tint = layout.lockScreenBackgroundTint {
                root["lockScreen"] = ["content": json(content), "activityBackgroundTint": .string(tint)]
            } else {
                root["lockScreen"] = json(content)
            }
        } else if let tint = layout.lockScreenBackgroundTint {
            root["lockScreen"] = ["activityBackgroundTint": .string(tint)]
        }
        var island = JSONObject()
        if let tint = layout.keylineTint { island["keylineTint"] = .string(tint) }
        var expanded = JSONObject()
        for (region, key) in [(Region.islandExpandedCenter, "center"), (.islandExpandedLeading, "leading"),
                              (.islandExpandedTrailing, "trailing"), (.islandExpandedBottom, "bottom")] {
            if let content = layout.regions[region] { expanded[key] = json(content) }
        }
        if !expanded.isEmpty { island["expanded"] = .object(expanded) }
        var compact = JSONObject()
        if let content = layout.regions[.islandCompactLeading] { compact["leading"] = json(content) }
        if let content = layout.regions[.islandCompactTrailing] { compact["trailing"] = json(content) }
        if !compact.isEmpty { island["compact"] = .object(compact) }
        if let content = layout.regions[.islandMinimal] { island["minimal"] = json(content) }
        if !island.isEmpty { root["island"] = .object(island) }
        if let content = layout.regions[.supplementalSmall] {
            root["supplementalActivityFamilies"] = ["small": json(content)]
        }
        return .object(root)
    }

    static func json(_ content: RegionContent) -> JSONValue {
        switch content {
        case .element(let e): json(e)
        case .fragment(let list): .array(list.map(json))
        }
    }

    /// The JSON form of one element.
    public static func json(_ element: UIElement) -> JSONValue {
        var node: JSONObject = ["type": .string(element.component.rawValue)]
        if let id = element.id { node["id"] = id }
        var props = JSONObject()
        for prop in element.props {
            switch prop.value {
            case .undefined: continue
            case .value(let v):
                if prop.name == "source", element.component == .image, case .string(let s) = v,
                   let parsed = try? JSONValue.parse(s), parsed.objectValue != nil {
                    props[prop.name] = parsed
                } else {
                    props[prop.name] = v
                }
            case .style(let style): props[prop.name] = style.properties.map(JSONValue.object) ?? .null
            case .element(let e): props[prop.name] = json(e)
            case .elements(let list): props[prop.name] = .array(list.map(json))
            }
        }
        if !props.isEmpty { node["props"] = .object(props) }
        switch element.children {
        case .none: break
        case .text(let text): node["children"] = .string(text)
        case .single(let child): node["children"] = json(child)
        case .list(let list): node["children"] = .array(list.map(json))
        }
        return .object(node)
    }
}

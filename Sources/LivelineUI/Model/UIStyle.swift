import LivelineCore

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

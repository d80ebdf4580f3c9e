import LivelineCore

/// The JSON type a device-side parameter expects.
public enum PropType: String, Sendable, Hashable {
    case number, string, boolean, component

    /// Whether `value` has this type as the device's `JSONDecoder` sees it (`null` counts as absent).
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (_, .null): true
        case (.number, .number), (.string, .string), (.boolean, .bool): true
        case (.component, .object), (.component, .array): true
        default: false
        }
    }
}

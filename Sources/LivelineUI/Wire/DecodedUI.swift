import LivelineCore

/// A decoded payload: the tree as the device would render it, and what lint found.
public struct DecodedUI: Sendable {
    /// The layout, with shared elements (`$r`) and styles (`s`) resolved to shared instances.
    public var layout: UILayout
    /// Props of the wrong type, unknown components, bad references, ratio problems.
    public var issues: [UILintIssue]
    /// The payload version (`v`).
    public var version: Int
    /// The JSON text.
    public var json: [UInt8]
}

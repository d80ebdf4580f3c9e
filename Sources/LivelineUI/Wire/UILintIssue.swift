/// Something the device would silently do differently from what the sender meant.
public struct UILintIssue: Sendable, Hashable, CustomStringConvertible {
    /// The kind of issue.
    public enum Kind: String, Sendable, Hashable {
        /// A prop of the wrong JSON type: all of the element's parameters fall back to defaults.
        case wrongPropType = "wrong-prop-type"
        /// A `t` the device does not know: the element renders nothing.
        case unknownComponent = "unknown-component"
        /// A `$r` or a style index out of range, or a malformed node.
        case badReference = "bad-reference"
        /// A node the device cannot read (not an object, `p` not an object, `i` not a string, ...).
        case malformedNode = "malformed-node"
        /// JSON over 8× the compressed size: the device's decoder truncates it and drops the update.
        case compressionRatio = "compression-ratio"
        /// A color string the device cannot parse: the color is not applied.
        case invalidColor = "invalid-color"
        /// `v` other than 1: the device renders nothing.
        case unsupportedVersion = "unsupported-version"
        /// Over the 3345-byte budget (or too big for any encoding to fit it): the push cannot be sent.
        case overBudget = "over-budget"
        /// An entry of the stylesheet `s` that is not an object: the device drops it, and every later
        /// style index names the wrong entry.
        case stylesheetShift = "stylesheet-shift"
        /// A region that shows nothing: `ls` missing or an empty array.
        case emptyRegion = "empty-region"
    }

    /// The kind of issue.
    public let kind: Kind
    /// Where: a wire path such as `ls.c[1].p.sp`.
    public let path: String
    /// What happens and why.
    public let message: String

    /// Creates an issue.
    public init(_ kind: Kind, path: String, _ message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message) [\(kind.rawValue)]" }
}

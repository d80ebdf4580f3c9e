/// An ordered list of HTTP header fields. Names are compared case-insensitively by lookups;
/// HTTP/2 sends them lower-case (the client lower-cases names it sends).
///
/// As text (`description`, `debugDescription`, `dump`), secret values are redacted:
/// `authorization`, cookies and anything named like a token, key or password show as
/// `<redacted, N bytes>`. `fields` and the lookups return the real values.
public struct HTTP2Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from fields in order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Creates headers from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// Adds a field at the end (duplicates are kept).
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with one field, or removes them when `value` is nil.
    public subscript(name: String) -> String? {
        get { first(name) }
        set {
            fields.removeAll { $0.name.lowercased() == name.lowercased() }
            if let newValue { fields.append((name: name, value: newValue)) }
        }
    }

    /// The first value of `name`, compared case-insensitively.
    public func first(_ name: String) -> String? {
        for field in fields where field.name == name || field.name.lowercased() == name.lowercased() {
            return field.value
        }
        return nil
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// `name: value` lines, secret values redacted.
    public var description: String {
        redactedLines.joined(separator: "\n")
    }

    /// The same lines as `description`, secret values redacted.
    public var debugDescription: String { description }

    /// One `name: value` child per field, secret values redacted.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: redactedLines, displayStyle: .collection)
    }

    /// `name: value` per field, secret values redacted.
    package var redactedLines: [String] {
        fields.map { "\($0.name): \(Redaction.headerValue($0.value, name: $0.name))" }
    }

    /// Equal when the same fields are in the same order.
    public static func == (lhs: HTTP2Headers, rhs: HTTP2Headers) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

import Foundation

/// Voltra 2.x's Dynamic Live Activities: the app bundles a layout per *definition* and a push
/// carries only its props, `content-state: {"props": {…}}`, under a generated attributes type.
///
/// What the device does (docs/from-voltra.md names the Voltra sources): each definition id (letters,
/// digits, `_`) gets its own `ActivityAttributes` type, `Voltra` + the id's `_`-separated parts in
/// UpperCamelCase + `LiveActivityAttributes`; its attributes are `{name, deepLinkUrl?}`; its content
/// state decodes `props` as a dictionary of any JSON values (numbers as `Double`) and ignores other
/// keys. Every update replaces the whole record. Voltra itself checks no props: a prop the layout does
/// not expect, or one of the wrong type, decodes and then renders nothing or the wrong thing.
///
/// Liveline checks props against a *declared props schema*: an `ActivitySchema` whose name is the
/// generated type and whose content state is `{"props": {…}}`. A schema file may say it in short:
///
/// ```json
/// {"voltraDynamic": "order_finished", "props": {"orderNumber": "string", "eta": "int?"}}
/// ```
public enum VoltraDynamic {
    /// The content-state key that holds the props.
    public static let propsKey = "props"
    /// What an update's `aps` needs beside its content state, `{"aps":{"timestamp":…,"event":"update","content-state":…}}`,
    /// with a 10-digit timestamp: the content state of a props-only update fits in 4096 minus this.
    public static let updateEnvelopeBytes = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":}}"#.utf8.count
    /// APNs' limit on a Live Activity push to a device token (docs/apns-protocol.md §3.4).
    public static let deviceLimit = 4096

    /// Whether `id` is a definition id Voltra's config plugin accepts: letters, digits and `_`.
    public static func isDefinitionID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 100 && id.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    /// The attributes type Voltra generates for a definition: `order_finished` →
    /// `VoltraOrderFinishedLiveActivityAttributes` (empty parts are skipped, each part's first letter
    /// upper-cased, the rest kept).
    public static func attributesType(definitionID: String) -> String {
        let parts = definitionID.split(separator: "_", omittingEmptySubsequences: true)
        return "Voltra" + parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + "LiveActivityAttributes"
    }

    /// Whether a type name has the shape of a generated dynamic type (and is not `VoltraAttributes`).
    public static func isAttributesType(_ name: String) -> Bool {
        let prefix = "Voltra", suffix = "LiveActivityAttributes"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return false }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    /// The static attributes every generated type declares.
    public static let attributes: ActivitySchema.FieldType = .object([
        .init("name", .string), .init("deepLinkUrl", .optional(.string)),
    ])

    /// The schema of a definition's generated type with its declared props.
    public static func schema(definitionID: String, props: [ActivitySchema.Field]) throws(SchemaError) -> ActivitySchema {
        guard isDefinitionID(definitionID) else {
            throw SchemaError(message: "voltraDynamic: \"\(definitionID.prefix(100))\" is not a Voltra definition id (letters, digits and _ only, as in the app's liveActivities config)")
        }
        let schema = ActivitySchema(name: attributesType(definitionID: definitionID), attributes: attributes,
                                    contentState: .object([.init(propsKey, .object(props))]))
        try checkDeclaration(schema)
        return schema
    }

    /// The content state of a props-only push.
    public static func contentState(props: JSONObject) -> JSONObject { [propsKey: .object(props)] }

    /// Reads the short form `{"voltraDynamic": id, "props": {…}}`.
    static func schema(shortForm object: JSONObject) throws(SchemaError) -> ActivitySchema {
        guard let id = object["voltraDynamic"]?.stringValue else { throw SchemaError(message: "voltraDynamic must be the definition id, a string") }
        for key in object.keys where !["voltraDynamic", "props"].contains(key) {
            throw SchemaError(message: "a voltraDynamic schema has an unknown key \"\(key)\" (expected voltraDynamic, props)")
        }
        guard let props = object["props"]?.objectValue else {
            throw SchemaError(message: "voltraDynamic \(id): \"props\" must be an object of prop names and types, such as {\"status\": \"string\"}")
        }
        guard case .object(let fields) = try ActivitySchema.parseType(.object(props), path: "props") else {
            throw SchemaError(message: "voltraDynamic \(id): \"props\" must be an object of prop names and types")
        }
        return try schema(definitionID: id, props: fields)
    }

    /// A schema named like a generated type must describe one: content state `{props: {…}}`,
    /// attributes `{name, deepLinkUrl?}`, props of JSON types only.
    static func checkDeclaration(_ schema: ActivitySchema) throws(SchemaError) {
        guard let props = schema.voltraDynamicProps else {
            throw SchemaError(message: "\(schema.name) is a Voltra Dynamic Live Activity type: its contentState must be {\"props\": {…}} (the declared props), as the generated type decodes")
        }
        if case .object(let fields) = schema.attributes, !fields.isEmpty, Set(fields.map(\.name)) != ["name", "deepLinkUrl"] {
            throw SchemaError(message: "\(schema.name): the generated type's attributes are name and deepLinkUrl only, not \(fields.map(\.name).joined(separator: ", "))")
        }
        for field in props { try checkJSONType(field.type, path: "props.\(field.name)") }
    }

    private static func checkJSONType(_ type: ActivitySchema.FieldType, path: String) throws(SchemaError) {
        switch type {
        case .date, .dateRange, .data:
            throw SchemaError(message: "\(path): props reach the app's layout as plain JSON, so \(type.name) (a Swift Date or Data encoding) cannot be declared; use int (e.g. Unix milliseconds) or string")
        case .optional(let t), .array(let t), .dictionary(let t): try checkJSONType(t, path: path)
        case .object(let fields): for f in fields { try checkJSONType(f.type, path: "\(path).\(f.name)") }
        case .string, .int, .double, .bool, .url, .any, .enumeration: return
        }
    }

    // MARK: Checking props

    /// Checks a props-only content state against the declared props.
    ///
    /// - Returns: `props-undecodable` when the generated type cannot decode it (the device drops the
    ///   push), and, for what decodes but does not match the declaration (the layout would render
    ///   nothing or the wrong thing): `undeclared-prop`, `missing-prop`, `wrong-prop-type`,
    ///   `prop-precision` (an integer a `Double` cannot hold); `props-too-large` when an update
    ///   carrying it cannot fit APNs' 4096 bytes. Warnings for other content-state keys (ignored).
    public static func check(contentState value: JSONValue, props: [ActivitySchema.Field], path: String = "aps.content-state") -> [LintFinding] {
        guard let state = value.objectValue else {
            return [LintFinding(.error, .propsUndecodable, path: path, "a props-only content state is an object {\"props\": {…}}, got \(value.typeName); the device cannot decode it and drops the push")]
        }
        var findings: [LintFinding] = []
        for key in state.keys where key != propsKey {
            let why = key == "uiJsonData" ? "a Dynamic Live Activity renders its bundled layout from props; uiJsonData is for VoltraAttributes" : "the generated type decodes props only"
            findings.append(LintFinding(.warning, .unknownKey, path: "\(path).\(key)", "\"\(key)\" is ignored: \(why)"))
        }
        guard let raw = state[propsKey] else {
            findings.insert(LintFinding(.error, .propsUndecodable, path: "\(path).\(propsKey)", "\"props\" is missing; the device cannot decode the content state and drops the push"), at: 0)
            return findings
        }
        guard let given = raw.objectValue else {
            findings.insert(LintFinding(.error, .propsUndecodable, path: "\(path).\(propsKey)", "\"props\" must be an object of prop values, got \(raw.typeName); the device cannot decode it and drops the push"), at: 0)
            return findings
        }
        checkObject(given, fields: props, path: "\(path).\(propsKey)", into: &findings)
        let size = value.serializedSize
        if size + updateEnvelopeBytes > deviceLimit {
            let largest = given.members.map { ($0.key, $0.value.serializedSize) }.sorted { $0.1 > $1.1 }.prefix(3)
                .map { "\($0.0) (\($0.1) bytes)" }.joined(separator: ", ")
            findings.append(LintFinding(.error, .propsTooLarge, path: "\(path).\(propsKey)",
                "the props take \(size) bytes; with the smallest update around them the push is \(size + updateEnvelopeBytes) bytes, over APNs' \(deviceLimit). Largest props: \(largest)"))
        }
        return findings.sorted { $0.severity < $1.severity }
    }

    private static func checkObject(_ object: JSONObject, fields: [ActivitySchema.Field], path: String, into findings: inout [LintFinding]) {
        let names = Set(fields.map(\.name))
        for field in fields {
            let fieldPath = "\(path).\(field.name)"
            if let v = object[field.name] {
                checkValue(v, as: field.type, name: field.name, path: fieldPath, into: &findings)
            } else if case .optional = field.type {
                continue
            } else {
                findings.append(LintFinding(.error, .missingProp, path: fieldPath,
                    "prop \"\(field.name)\" (\(field.type.name)) is missing; every update replaces the whole props record, so the layout gets no \(field.name)"))
            }
        }
        for key in object.keys where !names.contains(key) {
            findings.append(LintFinding(.error, .undeclaredProp, path: "\(path).\(key)",
                "prop \"\(key)\" is not declared (declared: \(fields.map(\.name).joined(separator: ", "))); the app's layout does not read it"))
        }
    }

    private static func checkValue(_ value: JSONValue, as type: ActivitySchema.FieldType, name: String, path: String, into findings: inout [LintFinding]) {
        func wrong(_ expected: String) {
            let text = value.jsonString
            findings.append(LintFinding(.error, .wrongPropType, path: path,
                "prop \"\(name)\" must be \(expected) (\(type.name)), got \(value.typeName) \(text.count > 40 ? String(text.prefix(37)) + "..." : text); the device decodes it and the layout renders the wrong thing or nothing"))
        }
        switch type {
        case .any:
            return
        case .optional(let inner):
            if value != .null { checkValue(value, as: inner, name: name, path: path, into: &findings) }
        case .string:
            if value.stringValue == nil { wrong("a string") }
        case .url:
            guard let s = value.stringValue else { return wrong("a URL string") }
            if URL(string: s) == nil { wrong("a valid URL") }
        case .bool:
            if value.boolValue == nil { wrong("true or false") }
        case .double:
            if value.numberValue == nil { wrong("a number") }
        case .int:
            guard let n = value.numberValue, n == n.rounded() else { return wrong("an integer") }
            if n.magnitude > 9_007_199_254_740_992 {
                findings.append(LintFinding(.error, .propPrecision, path: path,
                    "prop \"\(name)\" is \(JSONValue.javaScriptNumber(n)); the device decodes props numbers as Double, which holds integers up to 2^53 exactly: send it as a string"))
            }
        case .enumeration(let cases):
            guard let s = value.stringValue, cases.contains(s) else { return wrong("one of \(cases.map { "\"\($0)\"" }.joined(separator: ", "))") }
        case .array(let element):
            guard let items = value.arrayValue else { return wrong("an array") }
            for (i, item) in items.enumerated() { checkValue(item, as: element, name: "\(name)[\(i)]", path: "\(path)[\(i)]", into: &findings) }
        case .dictionary(let element):
            guard let object = value.objectValue else { return wrong("an object") }
            for m in object { checkValue(m.value, as: element, name: "\(name).\(m.key)", path: "\(path).\(m.key)", into: &findings) }
        case .object(let fields):
            guard let object = value.objectValue else { return wrong("an object") }
            checkObject(object, fields: fields, path: path, into: &findings)
        case .date, .dateRange, .data:
            wrong("a JSON value")  // not declarable (checkDeclaration); kept total
        }
    }

    // MARK: Decoding as the device does

    /// What a generated type decodes from a content state: `nil` and the reason when it cannot
    /// (the device drops the push). Any JSON value decodes as a prop; other keys are ignored.
    public static func decodeProps(_ contentState: JSONValue) -> Result<JSONObject, DecodeFailure> {
        guard let state = contentState.objectValue else { return .failure(DecodeFailure(message: "content-state: expected an object {\"props\": {…}}, got \(contentState.typeName)")) }
        guard let raw = state[propsKey] else { return .failure(DecodeFailure(message: "keyNotFound: content-state.props is missing")) }
        guard let props = raw.objectValue else { return .failure(DecodeFailure(message: "typeMismatch: content-state.props is not a dictionary: got \(raw.typeName)")) }
        return .success(props)
    }

    /// Why a content state does not decode.
    public struct DecodeFailure: Error, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}

extension ActivitySchema {
    /// The declared props when this is a Voltra Dynamic Live Activity schema (its name is a
    /// generated type's and its content state is `{props: {…}}`), else `nil`.
    public var voltraDynamicProps: [Field]? {
        guard VoltraDynamic.isAttributesType(name), case .object(let fields) = contentState, fields.count == 1,
              fields[0].name == VoltraDynamic.propsKey, case .object(let props) = fields[0].type else { return nil }
        return props
    }
}

extension LintFinding.Code {
    /// A props-only content state the generated type cannot decode (no `props` object): dropped.
    public static let propsUndecodable = Self(rawValue: "props-undecodable")
    /// A prop the declared props schema does not have.
    public static let undeclaredProp = Self(rawValue: "undeclared-prop")
    /// A declared, required prop that is absent (each update replaces the whole record).
    public static let missingProp = Self(rawValue: "missing-prop")
    /// A prop whose JSON type is not the declared one.
    public static let wrongPropType = Self(rawValue: "wrong-prop-type")
    /// An integer prop beyond 2^53, which the device's `Double` cannot hold exactly.
    public static let propPrecision = Self(rawValue: "prop-precision")
    /// Props too large for any update to fit APNs' 4096 bytes.
    public static let propsTooLarge = Self(rawValue: "props-too-large")
}

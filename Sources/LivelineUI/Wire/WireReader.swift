import LivelineCore

/// Reads a payload v1 tree the way the Swift client does (§5.3 of the wire-format notes).
struct WireReader {
    private var issues: [UILintIssue] = []
    /// The stylesheet as the device reads it: the objects of `s`, other entries dropped.
    private var styles: [JSONObject] = []
    /// Where each of `styles` is in `s`, for lint paths.
    private var styleOrigins: [Int] = []
    /// The number of entries in `s` as sent.
    private var sentStyles = 0
    private var styleCache: [Int: UIStyle] = [:]
    private var shared: [JSONValue] = []
    private var sharedCache: [Int: UIElement?] = [:]
    private var resolving: Set<Int> = []
    private var measure = LayoutLimits.Measure()

    /// A JSON number that is an integer Swift's `Int` holds exactly (what the device's `JSONDecoder`
    /// reads as `.int`), else nil. Input numbers go through this, never through `Int(_:)`, which
    /// traps on 1e300.
    static func integer(_ value: JSONValue?) -> Int? {
        guard case .number(let n)? = value else { return nil }
        return Int(exactly: n)
    }

    mutating func read(_ value: JSONValue) throws(UIError) -> DecodedUI {
        var layout = UILayout()
        if let list = value.arrayValue {
            // Legacy: a root array is used for every region.
            let read = try nodes(list, path: "$", depth: 1)
            if read.isEmpty {
                // Nothing in any region: not a layout. An empty array, or entries none of which is a node.
                throw UIError(.invalidPayload, list.isEmpty
                    ? "the payload is an empty array: no region has anything to show"
                    : "the payload's array has \(list.count) entr\(list.count == 1 ? "y" : "ies"), none an element the device shows (a node needs a \"t\" or \"type\")")
            }
            let content = RegionContent.fragment(read)
            for region in Region.allCases { layout.regions[region] = content }
            try checkTotal(layout)
            return DecodedUI(layout: layout, issues: issues, version: 1, json: [])
        }
        guard let root = value.objectValue else {
            throw UIError(.invalidPayload, "uiJsonData holds a JSON \(value.typeName), expected the payload object {\"v\":1,...}")
        }
        guard let versionValue = root["v"] else {
            throw UIError(.invalidPayload, "payload has no \"v\" (version); the device refuses it and drops the update")
        }
        // VoltraPayloadMigrator.swift:39 reads `v` with `intValue`: a number JSONDecoder does not
        // decode as an Int (1.5, 1e300, -1e300) is no version at all, and the update is dropped.
        guard let version = Self.integer(versionValue) else {
            throw UIError(.invalidPayload, """
                payload "v" must be an integer, got \(versionValue.jsonString); the device reads no version and drops \
                the update
                """)
        }
        if version != 1 {
            // VoltraPayloadMigrator.swift:44 renders a newer version empty, and :53 an older one, as
            // there is no migration from it.
            let relation = version > 1 ? "newer than 1" : "older than 1 (there is no migration from it)"
            issues.append(UILintIssue(.unsupportedVersion, path: "v", "version \(version) is \(relation); the device renders nothing"))
            return DecodedUI(layout: layout, issues: issues, version: version, json: [])
        }
        readStylesheet(root["s"])
        shared = root["e"]?.arrayValue ?? []
        if let e = root["e"], e.arrayValue == nil { issues.append(UILintIssue(.malformedNode, path: "e", "shared elements must be an array, got \(e.typeName)")) }
        for region in Region.allCases {
            guard let value = root[region.wireKey] else {
                if region == .lockScreen { issues.append(UILintIssue(.emptyRegion, path: "ls", "missing: the device shows nothing on the Lock Screen")) }
                continue
            }
            if let list = value.arrayValue {
                // VoltraLiveActivityPayload.swift:78-82: an array is the region's nodes; none, nothing shown.
                if list.isEmpty {
                    issues.append(UILintIssue(.emptyRegion, path: region.wireKey, "an empty array: the device shows nothing in \(region.formPath)"))
                }
                layout.regions[region] = .fragment(try nodes(list, path: region.wireKey, depth: 1))
            } else if let element = try node(value, path: region.wireKey, depth: 1) {
                // The same `$r` in several regions resolves to one shared element, as it was when encoded.
                layout.regions[region] = .element(element)
            }
        }
        try checkTotal(layout)
        layout.lockScreenBackgroundTint = root["ls_background_tint"]?.stringValue
        layout.keylineTint = root["isl_keyline_tint"]?.stringValue
        for (key, tint) in [("ls_background_tint", layout.lockScreenBackgroundTint), ("isl_keyline_tint", layout.keylineTint)] {
            if let tint, !ColorSyntax.isValid(tint) {
                issues.append(UILintIssue(.invalidColor, path: key, "\"\(tint)\" is not a color the device parses; the tint is not applied"))
            }
        }
        return DecodedUI(layout: layout, issues: issues, version: version, json: [])
    }

    /// Reads `s` as VoltraLiveActivityPayload.swift:98 does, with `compactMap` over its objects: an
    /// entry that is not an object (`null`, which Voltra's renderer writes for `style={null}`) is
    /// dropped, and every later index then names the entry after the one meant.
    private mutating func readStylesheet(_ value: JSONValue?) {
        guard let value else { return }
        guard let list = value.arrayValue else {
            issues.append(UILintIssue(.malformedNode, path: "s", "stylesheet must be an array, got \(value.typeName); styles are ignored"))
            return
        }
        sentStyles = list.count
        for (index, entry) in list.enumerated() {
            if let object = entry.objectValue {
                styles.append(object)
                styleOrigins.append(index)
            } else {
                issues.append(UILintIssue(.stylesheetShift, path: "s[\(index)]", """
                    \(entry.typeName), not a style object: the device drops it from the stylesheet, so style index \
                    \(index) and every later one resolve to a later entry than the one meant (or to none). Voltra's \
                    renderer writes null for style={null}; Liveline's compact mode leaves such a style out.
                    """))
            }
        }
    }

    /// Throws when the regions together expand to more than `LayoutLimits.maxElements`.
    private mutating func checkTotal(_ layout: UILayout) throws(UIError) {
        var total = 0
        for region in Region.allCases {
            for element in layout.regions[region]?.elements ?? [] {
                total = min(total + measure.size(of: element).elements, LayoutLimits.maxElements + 1)
            }
        }
        if total > LayoutLimits.maxElements { throw UIError(.invalidPayload, LayoutLimits.elementsMessage(at: nil)) }
    }

    private mutating func nodes(_ list: [JSONValue], path: String, depth: Int) throws(UIError) -> [UIElement] {
        var out: [UIElement] = []
        for (i, item) in list.enumerated() {
            if let element = try node(item, path: "\(path)[\(i)]", depth: depth) { out.append(element) }
        }
        return out
    }

    /// The element at `path`, `depth` levels down the expanded tree (1 for a region's root).
    ///
    /// Recursion follows the expanded tree, so it stops at `LayoutLimits.maxDepth`; shared elements
    /// are read once and measured once, so a payload that expands exponentially is refused in time
    /// linear in its size.
    private mutating func node(_ value: JSONValue, path: String, depth: Int) throws(UIError) -> UIElement? {
        guard let object = value.objectValue else {
            issues.append(UILintIssue(.malformedNode, path: path, "expected a node object, got \(value.typeName); renders nothing"))
            return nil
        }
        if object.count == 1, let ref = object["$r"] {
            return try reference(ref, path: path, depth: depth)
        }
        guard depth <= LayoutLimits.maxDepth else { throw UIError(.invalidPayload, LayoutLimits.depthMessage(at: path)) }
        // VoltraElement.swift:98: `t` must decode as an Int; 1.5 or 1e300 make no element.
        guard let t = Self.integer(object["t"]) else {
            issues.append(UILintIssue(.malformedNode, path: path + ".t", "node type must be an integer, got \(object["t"]?.jsonString ?? "nothing"); renders nothing"))
            return nil
        }
        guard let component = Component(typeID: t) else {
            issues.append(UILintIssue(.unknownComponent, path: path + ".t", "unknown component id \(t); renders nothing"))
            return nil
        }
        var id: JSONValue?
        if let i = object["i"] {
            if i.stringValue != nil { id = i } else {
                issues.append(UILintIssue(.malformedNode, path: path + ".i", "element id must be a string, got \(i.typeName); ignored"))
            }
        }
        let children = try self.children(object["c"], component: component, path: path + ".c", depth: depth + 1)
        var props: [UIProp] = []
        if let p = object["p"] {
            if let pObject = p.objectValue {
                props = try self.props(pObject, component: component, path: path + ".p", depth: depth + 1)
            } else {
                issues.append(UILintIssue(.malformedNode, path: path + ".p", "props must be an object, got \(p.typeName); ignored"))
            }
        }
        let element = UIElement(component, id: id, props: props, children: children)
        // Its children are measured already, so this looks at this element's own list only. (A text
        // child given as a bare string becomes a Text one level further down.)
        let size = measure.size(of: element)
        if depth - 1 + size.depth > LayoutLimits.maxDepth { throw UIError(.invalidPayload, LayoutLimits.depthMessage(at: path)) }
        if size.elements > LayoutLimits.maxElements { throw UIError(.invalidPayload, LayoutLimits.elementsMessage(at: path)) }
        return element
    }

    /// Resolves `{"$r": n}` to `e[n]` as VoltraNode.swift:42 does, reading each shared element once.
    /// A chain of references (an entry of `e` that is itself a `$r`) is followed in a loop, not by
    /// recursion, so its length does not matter; a cycle renders nothing.
    private mutating func reference(_ first: JSONValue, path: String, depth: Int) throws(UIError) -> UIElement? {
        var ref = first
        var refPath = path
        var chain: [Int] = []
        var seen: Set<Int> = []
        let element: UIElement?
        while true {
            // VoltraNode.swift:42: an `intValue` within `e`, else no reference (and no element).
            guard let index = Self.integer(ref), index >= 0, index < shared.count else {
                issues.append(UILintIssue(.badReference, path: refPath, "$r \(ref.jsonString) is outside e (\(shared.count) entries); renders nothing"))
                element = nil
                break
            }
            if let cached = sharedCache[index] { element = cached; break }
            guard !resolving.contains(index), seen.insert(index).inserted else {
                issues.append(UILintIssue(.badReference, path: refPath, "$r \(index) refers to itself; renders nothing"))
                element = nil
                break
            }
            chain.append(index)
            if let object = shared[index].objectValue, object.count == 1, let next = object["$r"] {
                ref = next
                refPath = "e[\(index)]"
                continue
            }
            resolving.formUnion(chain)
            element = try node(shared[index], path: "e[\(index)]", depth: depth)
            resolving.subtract(chain)
            break
        }
        for index in chain { sharedCache[index] = element }
        // Read once at one depth and used here at another: the expanded tree must still fit.
        if let element, depth - 1 + measure.size(of: element).depth > LayoutLimits.maxDepth {
            throw UIError(.invalidPayload, LayoutLimits.depthMessage(at: path))
        }
        return element
    }

    private mutating func children(_ value: JSONValue?, component: Component, path: String, depth: Int) throws(UIError) -> UIChildren {
        guard let value else { return .none }
        switch value {
        case .string(let s):
            return component == .text ? .text(s) : .single(UIElement(.text, children: .text(s)))
        case .number(let n):
            let s = JSONValue.javaScriptNumber(n)
            return component == .text ? .text(s) : .single(UIElement(.text, children: .text(s)))
        case .bool(let b):
            return component == .text ? .text(String(b)) : .single(UIElement(.text, children: .text(String(b))))
        case .null: return .none
        case .object where component == .text, .array where component == .text:
            // VoltraText.swift:15 shows its children only when they are one string (a VoltraNode
            // `.text`); an array becomes a VoltraNode `.array` (VoltraNode.swift:37-39) and a node an
            // `.element`, so the Text is empty.
            issues.append(UILintIssue(.malformedNode, path: path, """
                Text children are \(value.arrayValue != nil ? "an array" : "a node"), not a string: the device shows \
                an empty Text. Join the text into one string.
                """))
            return .none
        case .object: return try node(value, path: path, depth: depth).map(UIChildren.single) ?? .none
        case .array(let list):
            var out: [UIElement] = []
            for (i, item) in list.enumerated() {
                switch item {
                case .string(let s) where !s.isEmpty: out.append(UIElement(.text, children: .text(s)))
                case .number(let n): out.append(UIElement(.text, children: .text(JSONValue.javaScriptNumber(n))))
                case .bool(let b): out.append(UIElement(.text, children: .text(String(b))))
                case .string, .null: continue
                default: if let e = try node(item, path: "\(path)[\(i)]", depth: depth) { out.append(e) }
                }
            }
            return .list(out)
        }
    }

    private mutating func props(_ object: JSONObject, component: Component, path: String, depth: Int) throws(UIError) -> [UIProp] {
        var props: [UIProp] = []
        var wrong: [String] = []
        let types = component.parameterTypes
        for member in object {
            let name = ShortNames.expand(member.key)
            if name == "style" {
                if let style = style(member.value, path: "\(path).\(member.key)") { props.append(UIProp("style", .style(style))) }
                continue
            }
            if name == "id" { continue }
            checkColor(name, member.value, path: "\(path).\(member.key)")
            if let expected = types[member.key], !expected.accepts(member.value) {
                wrong.append("\(name) (\(member.key)) is \(FormParser.describe(member.value)), expected \(expected.rawValue)")
            }
            if Component.componentProps.contains(name) {
                switch member.value {
                case .object:
                    if let e = try node(member.value, path: "\(path).\(member.key)", depth: depth) { props.append(UIProp(name, .element(e))) }
                case .array(let list):
                    props.append(UIProp(name, .elements(try nodes(list, path: "\(path).\(member.key)", depth: depth))))
                default: props.append(UIProp(name, .value(member.value)))
                }
                continue
            }
            props.append(UIProp(name, .value(member.value)))
        }
        if !wrong.isEmpty {
            issues.append(UILintIssue(.wrongPropType, path: path, """
                \(component.rawValue): \(wrong.joined(separator: "; ")); the device falls back to defaults for all \
                \(component.rawValue) parameters (style still applies)
                """))
            return props.filter { if case .style = $0.value { true } else { false } }
        }
        return props
    }

    private mutating func style(_ value: JSONValue, path: String) -> UIStyle? {
        switch value {
        case .number(let n):
            // VoltraElement.swift:62-66: an `intValue` within the stylesheet the device kept (its
            // objects), else no style.
            guard let index = Self.integer(value), index >= 0, index < styles.count else {
                let dropped = styles.count == sentStyles ? "" : " once the device drops what is not an object"
                issues.append(UILintIssue(.badReference, path: path, """
                    style index \(JSONValue.javaScriptNumber(n)) is outside s (\(styles.count) entries\(dropped)); no style
                    """))
                return nil
            }
            if let cached = styleCache[index] { return cached }
            let object = styles[index]
            for member in object { checkColor(ShortNames.expand(member.key), member.value, path: "s[\(styleOrigins[index])].\(member.key)") }
            let style = UIStyle(JSONObject(object.members.map { .init(key: ShortNames.expand($0.key), value: $0.value) }))
            styleCache[index] = style
            return style
        case .object(let object):
            for member in object { checkColor(ShortNames.expand(member.key), member.value, path: "\(path).\(member.key)") }
            return UIStyle(JSONObject(object.members.map { .init(key: ShortNames.expand($0.key), value: $0.value) }))
        case .null:
            return nil
        default:
            issues.append(UILintIssue(.malformedNode, path: path, "style must be an index or an object, got \(value.typeName); no style"))
            return nil
        }
    }

    private mutating func checkColor(_ name: String, _ value: JSONValue, path: String) {
        guard ColorSyntax.colorKeys.contains(name), case .string(let text) = value,
              !ColorSyntax.isValid(text, gradientAllowed: name == "backgroundColor") else { return }
        issues.append(UILintIssue(.invalidColor, path: path, """
            \(name) "\(text)" is not a color the device parses (#RGB, #RRGGBB[AA], rgb(), rgba(), hsl(), hsla() or a \
            name such as blue); it is not applied
            """))
    }
}

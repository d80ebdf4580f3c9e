import LivelineCore

/// Renders a `UILayout` to the payload v1 JSON tree (§1 of the wire-format notes).
///
/// With `.identity` sharing this follows Voltra's JavaScript renderer step by step (post-order
/// stylesheet indices, identity-based `e`/`$r`), so the bytes match it; the structural settings
/// are what compact mode tries. Inline styles without element sharing (`.inline`, `.none`) are fan-out
/// mode's JSON: no `e`, no `s`, each subtree written where it is used; longer, but it compresses
/// better at low brotli qualities than the deduplicated variants.
struct WireRenderer {
    enum StyleSharing { case identity, structural, inline }
    enum ElementSharing {
        case identity, structural
        /// No `e` table: every element is written where it is used (a root shared by regions too).
        case none
    }

    let styleSharing: StyleSharing
    let elementSharing: ElementSharing

    private var stylesheet: [JSONValue] = []
    private var styleIndexByIdentity: [ObjectIdentifier: Int] = [:]
    private var styleIndexByValue: [JSONValue: Int] = [:]
    /// The one index every `style: null` shares in compatibility mode.
    private var nullStyleIndex: Int?
    private var shared: [JSONValue] = []
    private var sharedIndex: [AnyHashable: Int] = [:]
    private var duplicates: Set<AnyHashable> = []
    private var structuralKeys: [ObjectIdentifier: JSONValue] = [:]

    init(styles: StyleSharing, elements: ElementSharing) {
        styleSharing = styles
        elementSharing = elements
    }

    /// Renders the root object.
    mutating func render(_ layout: UILayout) -> JSONObject {
        switch elementSharing {
        case .identity: duplicates = identityDuplicates(layout)
        case .structural: duplicates = structuralDuplicates(layout)
        case .none: duplicates = []
        }
        var root: JSONObject = ["v": 1]
        var rootCache: [ObjectIdentifier: JSONValue] = [:]
        for region in Region.allCases {
            guard let content = layout.regions[region] else { continue }
            switch content {
            case .element(let element):
                if let cached = rootCache[ObjectIdentifier(element)] {
                    root[region.wireKey] = cached
                } else {
                    let value = render(element)
                    rootCache[ObjectIdentifier(element)] = value
                    root[region.wireKey] = value
                }
            case .fragment(let elements):
                root[region.wireKey] = .array(elements.map { render($0) })
            }
        }
        if !shared.isEmpty { root["e"] = .array(shared) }
        if !stylesheet.isEmpty { root["s"] = .array(stylesheet) }
        if let tint = layout.lockScreenBackgroundTint, !tint.isEmpty { root["ls_background_tint"] = .string(tint) }
        if let tint = layout.keylineTint, !tint.isEmpty { root["isl_keyline_tint"] = .string(tint) }
        return root
    }

    // MARK: Elements

    private func key(for element: UIElement) -> AnyHashable {
        elementSharing == .structural ? AnyHashable(structuralKeys[ObjectIdentifier(element)]!) : AnyHashable(ObjectIdentifier(element))
    }

    private mutating func render(_ element: UIElement) -> JSONValue {
        let isDuplicate = !duplicates.isEmpty && duplicates.contains(key(for: element))
        if isDuplicate, let index = sharedIndex[key(for: element)] { return ["$r": .number(Double(index))] }
        let body = renderBody(element)
        guard isDuplicate else { return body }
        let index = shared.count
        shared.append(body)
        sharedIndex[key(for: element)] = index
        return ["$r": .number(Double(index))]
    }

    private mutating func renderBody(_ element: UIElement) -> JSONValue {
        var children: JSONValue?
        switch element.children {
        case .none: children = element.component == .text ? .string("") : nil
        case .text(let text): children = .string(text)
        case .single(let child): children = render(child)
        case .list(let list):
            let rendered = list.map { render($0) }
            children = rendered.isEmpty ? (element.component == .text ? .string("") : nil) : .array(rendered)
        }
        var props = JSONObject()
        var hasProps = false
        for prop in element.props {
            // `style: null` (a style without properties): Voltra writes `null` into `s`, which the
            // device drops, shifting every later index (VoltraLiveActivityPayload.swift:98). Compact
            // mode never writes a non-object into `s`: it leaves the prop out, which the device
            // renders the same (no style).
            if case .style(let style) = prop.value, style.properties == nil, styleSharing != .identity { continue }
            hasProps = true
            let key = ShortNames.shorten(prop.name)
            switch prop.value {
            case .undefined: continue
            case .value(let value): props[key] = value
            case .style(let style): props[key] = styleValue(style)
            case .element(let child): props[key] = render(child)
            case .elements(let list): props[key] = .array(list.map { render($0) })
            }
        }
        var node: JSONObject = ["t": .number(Double(element.component.typeID))]
        if let id = element.idString { node["i"] = .string(id) }
        if let children { node["c"] = children }
        if hasProps { node["p"] = .object(props) }
        return .object(node)
    }

    // MARK: Styles

    private mutating func styleValue(_ style: UIStyle) -> JSONValue {
        let wire = style.wireValue
        switch styleSharing {
        case .inline:
            return wire
        case .identity:
            // Voltra's stylesheet registry is a JavaScript Map keyed by the style value
            // (stylesheet-registry.ts:39-49): every `null` is one key, so every `style: null` shares
            // one entry, where distinct style objects get one each.
            if style.properties == nil {
                if let index = nullStyleIndex { return .number(Double(index)) }
                stylesheet.append(.null)
                nullStyleIndex = stylesheet.count - 1
                return .number(Double(stylesheet.count - 1))
            }
            if let index = styleIndexByIdentity[ObjectIdentifier(style)] { return .number(Double(index)) }
            stylesheet.append(wire)
            styleIndexByIdentity[ObjectIdentifier(style)] = stylesheet.count - 1
            return .number(Double(stylesheet.count - 1))
        case .structural:
            if let index = styleIndexByValue[wire] { return .number(Double(index)) }
            stylesheet.append(wire)
            styleIndexByValue[wire] = stylesheet.count - 1
            return .number(Double(stylesheet.count - 1))
        }
    }

    // MARK: Duplicate sets

    /// §1.7: roots used by more than one region, plus elements occurring twice within one region.
    private func identityDuplicates(_ layout: UILayout) -> Set<AnyHashable> {
        var result: Set<AnyHashable> = []
        var rootUses: [ObjectIdentifier: Int] = [:]
        for region in Region.allCases {
            guard let content = layout.regions[region] else { continue }
            if case .element(let root) = content { rootUses[ObjectIdentifier(root), default: 0] += 1 }
            var counts: [ObjectIdentifier: Int] = [:]
            func walk(_ element: UIElement) {
                counts[ObjectIdentifier(element), default: 0] += 1
                var next: [UIElement] = []
                switch element.children {
                case .single(let e): next.append(e)
                case .list(let list): next += list
                default: break
                }
                for prop in element.props { if case .element(let e) = prop.value { next.append(e) } }
                next.forEach(walk)
            }
            content.elements.forEach(walk)
            for (id, n) in counts where n >= 2 { result.insert(AnyHashable(id)) }
        }
        for (id, n) in rootUses where n >= 2 { result.insert(AnyHashable(id)) }
        return result
    }

    /// Compact mode: structurally equal subtrees whose repetition costs more bytes than a reference.
    private mutating func structuralDuplicates(_ layout: UILayout) -> Set<AnyHashable> {
        var counts: [JSONValue: Int] = [:]
        var sizes: [JSONValue: Int] = [:]
        func keyOf(_ element: UIElement) -> JSONValue {
            if let known = structuralKeys[ObjectIdentifier(element)] { return known }
            let key = structuralKey(element)
            structuralKeys[ObjectIdentifier(element)] = key
            return key
        }
        func count(_ element: UIElement) {
            let key = keyOf(element)
            counts[key, default: 0] += 1
            element.childElements.forEach(count)
        }
        for content in layout.regions.values { content.elements.forEach(count) }
        // Effective uses: a repeated subtree is emitted once, so its descendants count once too.
        var effective: [JSONValue: Int] = [:]
        var expanded: Set<JSONValue> = []
        func walk(_ element: UIElement) {
            let key = keyOf(element)
            effective[key, default: 0] += 1
            if counts[key]! >= 2 {
                if expanded.contains(key) { return }
                expanded.insert(key)
            }
            element.childElements.forEach(walk)
        }
        for region in Region.allCases { layout.regions[region]?.elements.forEach(walk) }
        var result: Set<AnyHashable> = []
        for (key, n) in effective where n >= 2 {
            let size = sizes[key] ?? key.serializedSize
            sizes[key] = size
            // n copies of `size` bytes versus one copy in `e` plus n references of about 9 bytes.
            if n * size > size + 1 + n * 9 { result.insert(AnyHashable(key)) }
        }
        return result
    }

    private func structuralKey(_ element: UIElement) -> JSONValue {
        var object: JSONObject = ["t": .number(Double(element.component.typeID))]
        if let id = element.idString { object["i"] = .string(id) }
        switch element.children {
        case .none: break
        case .text(let text): object["c"] = .string(text)
        case .single(let child): object["c"] = structuralKey(child)
        case .list(let list): object["c"] = .array(list.map(structuralKey))
        }
        var props = JSONObject()
        for (n, prop) in element.props.enumerated() {
            let key = "\(n):" + prop.name
            switch prop.value {
            case .undefined: props[key] = .array([])
            case .value(let v): props[key] = v
            case .style(let s): props[key] = .array([s.wireValue])
            case .element(let e): props[key] = .array([structuralKey(e)])
            case .elements(let list): props[key] = .array([.array(list.map(structuralKey))])
            }
        }
        if !element.props.isEmpty { object["p"] = .object(props) }
        return .object(object)
    }
}

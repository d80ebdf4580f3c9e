import LivelineCore

/// The recursive-descent reader behind `LayoutForm.parse`.
struct FormParser {
    static let markNames: [String: String] = [
        "BarMark": "bar", "LineMark": "line", "AreaMark": "area", "PointMark": "point", "RuleMark": "rule",
        "SectorMark": "sector",
    ]

    /// Elements parsed so far, against `LayoutLimits.maxElements`.
    private var elements = 0

    func fail(_ path: String, _ message: String) -> UIError {
        UIError(.invalidLayout, "invalid layout at \(path): \(message)")
    }

    static func describe(_ value: JSONValue) -> String {
        let text = value.jsonString
        return value.typeName + (text.count <= 40 ? " \(text)" : " \(text.prefix(37))...")
    }

    mutating func layout(_ value: JSONValue) throws(UIError) -> UILayout {
        guard let root = value.objectValue else {
            throw fail("the top level", "expected an object with lockScreen / island / supplementalActivityFamilies, got \(Self.describe(value))")
        }
        var layout = UILayout()
        for member in root {
            switch member.key {
            case "lockScreen":
                if let object = member.value.objectValue, object["type"] == nil,
                   object["content"] != nil || object["activityBackgroundTint"] != nil || object.isEmpty {
                    _ = try self.object(member.value, path: "lockScreen", keys: ["content", "activityBackgroundTint"])
                    if let content = object["content"], content != .null {
                        layout.regions[.lockScreen] = try regionContent(content, path: "lockScreen.content")
                    }
                    if let tint = object["activityBackgroundTint"] {
                        layout.lockScreenBackgroundTint = try color(tint, path: "lockScreen.activityBackgroundTint")
                    }
                } else if member.value != .null {
                    layout.regions[.lockScreen] = try regionContent(member.value, path: "lockScreen")
                }
            case "island":
                try island(member.value, into: &layout)
            case "supplementalActivityFamilies":
                let families = try object(member.value, path: member.key, keys: ["small"])
                if let small = families["small"], small != .null {
                    layout.regions[.supplementalSmall] = try regionContent(small, path: "supplementalActivityFamilies.small")
                }
            default:
                throw fail(member.key, "unknown key; expected lockScreen, island or supplementalActivityFamilies")
            }
        }
        return layout
    }

    private mutating func island(_ value: JSONValue, into layout: inout UILayout) throws(UIError) {
        let island = try object(value, path: "island", keys: ["keylineTint", "expanded", "compact", "minimal"])
        if let tint = island["keylineTint"] { layout.keylineTint = try color(tint, path: "island.keylineTint") }
        if let expanded = island["expanded"] {
            let regions: [(String, Region)] = [("center", .islandExpandedCenter), ("leading", .islandExpandedLeading),
                                               ("trailing", .islandExpandedTrailing), ("bottom", .islandExpandedBottom)]
            let object = try object(expanded, path: "island.expanded", keys: regions.map(\.0))
            for (key, region) in regions {
                if let node = object[key], node != .null {
                    layout.regions[region] = try regionContent(node, path: "island.expanded.\(key)")
                }
            }
        }
        if let compact = island["compact"] {
            let object = try object(compact, path: "island.compact", keys: ["leading", "trailing"])
            if let node = object["leading"], node != .null {
                layout.regions[.islandCompactLeading] = try regionContent(node, path: "island.compact.leading")
            }
            if let node = object["trailing"], node != .null {
                layout.regions[.islandCompactTrailing] = try regionContent(node, path: "island.compact.trailing")
            }
        }
        if let minimal = island["minimal"], minimal != .null {
            layout.regions[.islandMinimal] = try regionContent(minimal, path: "island.minimal")
        }
    }

    private func object(_ value: JSONValue, path: String, keys: [String]) throws(UIError) -> JSONObject {
        guard let object = value.objectValue else { throw fail(path, "expected an object, got \(Self.describe(value))") }
        for key in object.keys where !keys.contains(key) {
            throw fail(path + "." + key, "unknown key; expected one of \(keys.joined(separator: ", "))")
        }
        return object
    }

    private func color(_ value: JSONValue, path: String) throws(UIError) -> String? {
        switch value {
        case .string(let s): return s
        case .null: return nil
        default: throw fail(path, "a color must be a string such as \"#101828\", got \(Self.describe(value))")
        }
    }

    private mutating func regionContent(_ value: JSONValue, path: String) throws(UIError) -> RegionContent {
        if let list = value.arrayValue {
            var out: [UIElement] = []
            for (i, item) in list.enumerated() where item != .null && item != .bool(false) {
                out.append(try node(item, path: "\(path)[\(i)]", depth: 1))
            }
            return .fragment(out)
        }
        return .element(try node(value, path: path, depth: 1))
    }

    // MARK: Nodes

    /// The node at `path`, `depth` levels down (1 for a region's root); within `LayoutLimits`, which
    /// the decoder applies too, so what is encoded can be decoded.
    mutating func node(_ value: JSONValue, path: String, depth: Int) throws(UIError) -> UIElement {
        guard let object = value.objectValue else {
            throw fail(path, "expected a node {\"type\": ..., \"props\": ..., \"children\": ...}, got \(Self.describe(value))")
        }
        guard depth <= LayoutLimits.maxDepth else { throw UIError(.invalidLayout, LayoutLimits.depthMessage(at: path)) }
        elements += 1
        guard elements <= LayoutLimits.maxElements else { throw UIError(.invalidLayout, LayoutLimits.elementsMessage(at: path)) }
        for key in object.keys where !["type", "id", "props", "children"].contains(key) {
            throw fail("\(path).\(key)", "unknown node key; a node has type, id, props and children (props go inside \"props\")")
        }
        guard case .string(let typeName)? = object["type"] else {
            throw fail("\(path).type", object["type"] == nil ? "missing \"type\"" : "\"type\" must be a string, got \(Self.describe(object["type"]!))")
        }
        guard let component = Component(rawValue: typeName) else {
            if Self.markNames[typeName] != nil { throw fail("\(path).type", "\(typeName) is only allowed as a child of a Chart") }
            let near = Component.allCases.map(\.rawValue).first { $0.lowercased() == typeName.lowercased() }
                ?? Component.allCases.map(\.rawValue).first { $0.lowercased().hasPrefix(typeName.lowercased().prefix(3)) }
            throw fail("\(path).type", "unknown component \"\(typeName)\"" + (near.map { " (did you mean \"\($0)\"?)" } ?? ""))
        }
        var id = object["id"]
        var props: [UIProp] = []
        if let propsValue = object["props"] {
            guard let propsObject = propsValue.objectValue else {
                throw fail("\(path).props", "expected an object of props, got \(Self.describe(propsValue))")
            }
            for member in propsObject {
                let propPath = "\(path).props.\(member.key)"
                if member.key == "id" {
                    if id == nil { id = member.value }
                    continue
                }
                if member.key == "key" { continue }  // React strips `key`; so does Voltra's renderer
                if member.key == "children" {
                    throw fail(propPath, "children go in the node's \"children\", not in props")
                }
                props.append(UIProp(member.key, try propValue(member.key, member.value, path: propPath, depth: depth + 1)))
            }
        }
        let children: UIChildren
        if component == .text {
            children = try textChildren(object["children"], path: "\(path).children")
        } else if component == .chart {
            let marks = try chartMarks(object["children"], path: "\(path).children")
            props = ComponentTransforms.chart(props: props, marks: marks)
            children = .none
        } else {
            children = try elementChildren(object["children"], path: "\(path).children", parent: typeName, depth: depth + 1)
        }
        props = try ComponentTransforms.apply(component, props: props, path: path, fail: fail)
        return UIElement(component, id: id, props: props, children: children)
    }

    private mutating func propValue(_ name: String, _ value: JSONValue, path: String, depth: Int) throws(UIError) -> UIPropValue {
        if name == "style" { return .style(try style(value, path: path)) }
        if Component.componentProps.contains(name) {
            switch value {
            case .object: return .element(try node(value, path: path, depth: depth))
            case .array(let list):
                var out: [UIElement] = []
                for (i, item) in list.enumerated() where item != .null && item != .bool(false) {
                    out.append(try node(item, path: "\(path)[\(i)]", depth: depth))
                }
                return .elements(out)
            case .null: return .value(.null)
            default: throw fail(path, "\(name) takes a node or an array of nodes, got \(Self.describe(value))")
            }
        }
        return .value(value)
    }

    private func style(_ value: JSONValue, path: String) throws(UIError) -> UIStyle {
        switch value {
        case .null: return UIStyle(nil)
        case .object(let object): return UIStyle(object)
        case .array(let list):
            var objects: [JSONObject?] = []
            for (i, item) in list.enumerated() {
                switch item {
                case .object(let o): objects.append(o)
                case .null, .bool(false): objects.append(nil)
                default: throw fail("\(path)[\(i)]", "a style list holds style objects, got \(Self.describe(item))")
                }
            }
            return UIStyle.flattening(objects)
        default:
            throw fail(path, "style must be an object or an array of objects, got \(Self.describe(value))")
        }
    }

    private func textChildren(_ value: JSONValue?, path: String) throws(UIError) -> UIChildren {
        guard let value else { return .none }
        var text = ""
        func flatten(_ v: JSONValue, _ p: String) throws(UIError) {
            switch v {
            case .string(let s): text += s
            case .number(let n): text += JSONValue.javaScriptNumber(n)
            case .bool, .null: break
            case .array(let list): for (i, item) in list.enumerated() { try flatten(item, "\(p)[\(i)]") }
            case .object:
                throw fail(p, "Text children must be text (strings or numbers), got a node; use an HStack of Texts to mix")
            }
        }
        try flatten(value, path)
        return .text(text)
    }

    private mutating func elementChildren(_ value: JSONValue?, path: String, parent: String, depth: Int) throws(UIError) -> UIChildren {
        guard let value, value != .null, value != .bool(false) else { return .none }
        switch value {
        case .object: return .single(try node(value, path: path, depth: depth))
        case .array(let list):
            var out: [UIElement] = []
            func collect(_ items: [JSONValue], _ p: String) throws(UIError) {
                for (i, item) in items.enumerated() {
                    switch item {
                    case .null, .bool: continue
                    case .array(let nested): try collect(nested, "\(p)[\(i)]")
                    default: out.append(try node(item, path: "\(p)[\(i)]", depth: depth))
                    }
                }
            }
            try collect(list, path)
            return .list(out)
        case .string, .number:
            throw fail(path, "raw text \(value.jsonString) cannot be a child of \(parent) (Voltra's renderer rejects it); wrap it in {\"type\": \"Text\", \"children\": ...}")
        default:
            throw fail(path, "expected a node or an array of nodes, got \(Self.describe(value))")
        }
    }

    private func chartMarks(_ value: JSONValue?, path: String) throws(UIError) -> JSONValue? {
        guard let value, value != .null else { return nil }
        let items: [(JSONValue, String)] = value.arrayValue.map { list in list.enumerated().map { ($0.element, "\(path)[\($0.offset)]") } }
            ?? [(value, path)]
        var marks: [JSONValue] = []
        for (item, itemPath) in items where item != .null && item != .bool(false) {
            guard let object = item.objectValue, case .string(let type)? = object["type"], let kind = Self.markNames[type] else {
                throw fail(itemPath, "a Chart's children must be marks (BarMark, LineMark, AreaMark, PointMark, RuleMark, SectorMark), got \(Self.describe(item))")
            }
            let props = object["props"]?.objectValue ?? JSONObject()
            marks.append(try ChartMarkEncoder.encode(kind: kind, props: props, path: itemPath + ".props", fail: fail))
        }
        return marks.isEmpty ? nil : .array(marks)
    }
}

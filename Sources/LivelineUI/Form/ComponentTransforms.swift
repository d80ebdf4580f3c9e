import LivelineCore

/// The prop rewrites Voltra's components do before rendering (their `toJSON` hooks): Image's
/// `source` becomes a JSON string moved to the end, LinearGradient's arrays and points become
/// strings, Symbol's palette is pipe-joined, Timer's templates are stringified, Chart's marks and
/// axis styles become JSON strings.
enum ComponentTransforms {
    typealias Fail = (String, String) -> UIError

    static func apply(_ component: Component, props: [UIProp], path: String, fail: Fail) throws(UIError) -> [UIProp] {
        switch component {
        case .image:
            guard let index = props.firstIndex(where: { $0.name == "source" }) else { return props }
            var out = props
            var source = out.remove(at: index)
            if case .value(let v) = source.value, v.objectValue != nil { source.value = .value(.string(v.jsonString)) }
            out.append(source)
            return out
        case .symbol:
            return props.map { prop in
                guard prop.name == "colors", case .value(.array(let list)) = prop.value else { return prop }
                return UIProp("colors", .value(.string(list.map { $0.stringValue ?? $0.jsonString }.joined(separator: "|"))))
            }
        case .timer:
            return props.map { prop in
                guard prop.name == "textTemplates", case .value(let v) = prop.value, v.objectValue != nil else { return prop }
                return UIProp("textTemplates", .value(.string(v.jsonString)))
            }
        case .linearGradient:
            return try linearGradient(props, path: path, fail: fail)
        default:
            return props
        }
    }

    private static func linearGradient(_ props: [UIProp], path: String, fail: Fail) throws(UIError) -> [UIProp] {
        var colors: [String] = []
        if case .value(.array(let list))? = props.first(where: { $0.name == "colors" })?.value {
            colors = list.map { $0.stringValue ?? $0.jsonString }
        }
        var out: [UIProp] = []
        for prop in props {
            guard case .value(let v) = prop.value else { out.append(prop); continue }
            switch (prop.name, v) {
            case ("colors", .array):
                out.append(UIProp("colors", .value(.string(colors.joined(separator: "|")))))
            case ("locations", .array(let locations)):
                guard locations.count == colors.count else {
                    throw fail("\(path).props.locations", "has \(locations.count) entries but colors has \(colors.count); give one location per color")
                }
                let stops = zip(colors, locations).map { "\($0)@\($1.numberValue.map(JSONValue.javaScriptNumber) ?? $1.jsonString)" }
                out.append(UIProp("stops", .value(.string(stops.joined(separator: "|")))))
            case ("start", _), ("end", _):
                let name = prop.name == "start" ? "startPoint" : "endPoint"
                out.append(UIProp(name, .value(.string(try point(v, path: "\(path).props.\(prop.name)", fail: fail)))))
            default:
                out.append(prop)
            }
        }
        return out
    }

    static let unitPointNames: [String: String] = [
        "0,0": "topLeading", "0.5,0": "top", "1,0": "topTrailing", "0,0.5": "leading", "0.5,0.5": "center",
        "1,0.5": "trailing", "0,1": "bottomLeading", "0.5,1": "bottom", "1,1": "bottomTrailing",
    ]

    /// A gradient point as the wire wants it: a keyword for the nine unit points, else `"x,y"`.
    static func point(_ value: JSONValue, path: String, fail: Fail) throws(UIError) -> String {
        var x: Double?
        var y: Double?
        switch value {
        case .string(let s): return s
        case .object(let o): x = o["x"]?.numberValue; y = o["y"]?.numberValue
        case .array(let a) where a.count == 2: x = a[0].numberValue; y = a[1].numberValue
        default: break
        }
        guard let x, let y else {
            throw fail(path, "a gradient point is a keyword, {\"x\": n, \"y\": n} or [x, y], got \(FormParser.describe(value))")
        }
        return unitPoint(x: x, y: y)
    }

    static func unitPoint(x: Double, y: Double) -> String {
        let text = JSONValue.javaScriptNumber(x) + "," + JSONValue.javaScriptNumber(y)
        return unitPointNames[text] ?? text
    }

    /// Chart's `toJSON`: the other props in order, then `marks`, `foregroundStyleScale`,
    /// `xAxisGridStyle`, `yAxisGridStyle`, `yScale` as JSON strings; `chartScrollableAxes` dropped.
    static func chart(props: [UIProp], marks: JSONValue?) -> [UIProp] {
        let moved: Set<String> = ["marks", "foregroundStyleScale", "xAxisGridStyle", "yAxisGridStyle", "yScale", "chartScrollableAxes"]
        var out = props.filter { !moved.contains($0.name) }
        func value(_ name: String) -> JSONValue? {
            if case .value(let v)? = props.last(where: { $0.name == name })?.value, v != .null { return v }
            return nil
        }
        if let marks { out.append(UIProp("marks", .value(.string(marks.jsonString)))) } else if let given = value("marks") {
            out.append(UIProp("marks", .value(given.stringValue.map(JSONValue.string) ?? .string(given.jsonString))))
        }
        if let scale = value("foregroundStyleScale") {
            if let object = scale.objectValue {
                let entries = JSONValue.array(object.members.map { [.string($0.key), $0.value] })
                out.append(UIProp("foregroundStyleScale", .value(.string(entries.jsonString))))
            } else {
                out.append(UIProp("foregroundStyleScale", .value(scale)))
            }
        }
        for name in ["xAxisGridStyle", "yAxisGridStyle"] {
            guard let grid = value(name) else { continue }
            if let object = grid.objectValue {
                var encoded = JSONObject()
                for (full, short) in [("visible", "v"), ("color", "c"), ("lineWidth", "lw"), ("dash", "d")] {
                    if let v = object[full], v != .null { encoded[short] = v }
                }
                out.append(UIProp(name, .value(.string(JSONValue.object(encoded).jsonString))))
            } else {
                out.append(UIProp(name, .value(grid)))
            }
        }
        if let scale = value("yScale") {
            if let object = scale.objectValue {
                var encoded = JSONObject()
                if let v = object["min"], v != .null { encoded["mn"] = v }
                if let v = object["max"], v != .null { encoded["mx"] = v }
                if !encoded.isEmpty { out.append(UIProp("yScale", .value(.string(JSONValue.object(encoded).jsonString)))) }
            } else {
                out.append(UIProp("yScale", .value(scale)))
            }
        }
        return out
    }
}

import LivelineCore

/// Encodes one chart mark to Voltra's compact `[kind, data, options]` triple.
enum ChartMarkEncoder {
    static func encode(kind: String, props: JSONObject, path: String, fail: ComponentTransforms.Fail) throws(UIError) -> JSONValue {
        var options = JSONObject()
        func copy(_ full: String, _ short: String) {
            if let v = props[full], v != .null { options[short] = v }
        }
        copy("color", "c")
        switch kind {
        case "bar":
            if props["stacking"] == "grouped" { options["stk"] = "grouped" }
            copy("cornerRadius", "cr"); copy("width", "w")
        case "line": copy("interpolation", "itp"); copy("lineWidth", "lw"); copy("symbol", "sym")
        case "area": copy("interpolation", "itp")
        case "point": copy("symbol", "sym"); copy("symbolSize", "syms")
        case "rule": copy("lineWidth", "lw"); copy("xValue", "xv"); copy("yValue", "yv")
        default: copy("innerRadius", "ir"); copy("outerRadius", "or"); copy("angularInset", "agin")
        }
        if kind == "rule" { return [.string(kind), .null, .object(options)] }
        guard let data = props["data"]?.arrayValue else {
            throw fail("\(path).data", "a \(kind) mark needs \"data\": an array of points")
        }
        var points: [JSONValue] = []
        for (i, point) in data.enumerated() {
            if point.arrayValue != nil { points.append(point); continue }
            guard let object = point.objectValue else {
                throw fail("\(path).data[\(i)]", "expected a point object, got \(FormParser.describe(point))")
            }
            if kind == "sector" {
                guard let value = object["value"], let category = object["category"] else {
                    throw fail("\(path).data[\(i)]", "a sector point needs \"value\" and \"category\"")
                }
                points.append([value, category])
            } else {
                guard let x = object["x"], let y = object["y"] else {
                    throw fail("\(path).data[\(i)]", "a point needs \"x\" and \"y\"")
                }
                if let series = object["series"], series != .null { points.append([x, y, series]) } else { points.append([x, y]) }
            }
        }
        return [.string(kind), .array(points), .object(options)]
    }
}

import LivelineCore

/// A data point of a bar, line, area or point mark.
public struct ChartPoint: Sendable, Hashable {
    public var x: JSONValue, y: Double, series: String?
    /// A point; `x` is a number or a category string.
    public init(_ x: JSONValue, _ y: Double, series: String? = nil) {
        self.x = x
        self.y = y
        self.series = series
    }
    var json: JSONValue { series.map { [x, .number(y), .string($0)] } ?? [x, .number(y)] }
}

/// One mark of a Chart, encoded into the Chart's `marks` string.
public struct ChartMark: Sendable, Hashable {
    let json: JSONValue

    private static func options(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(pairs.compactMap { pair in pair.1.map { .init(key: pair.0, value: $0) } }))
    }

    /// BarMark.
    public static func bar(_ data: [ChartPoint], color: Color? = nil, grouped: Bool = false, cornerRadius: Double? = nil, width: Double? = nil) -> ChartMark {
        ChartMark(json: ["bar", .array(data.map(\.json)), options([("c", color.map { .string($0.value) }), ("stk", grouped ? "grouped" : nil),
                                                                   ("cr", cornerRadius.map(JSONValue.number)), ("w", width.map(JSONValue.number))])])
    }
    /// LineMark.
    public static func line(_ data: [ChartPoint], color: Color? = nil, interpolation: String? = nil, lineWidth: Double? = nil, symbol: String? = nil) -> ChartMark {
        ChartMark(json: ["line", .array(data.map(\.json)), options([("c", color.map { .string($0.value) }), ("itp", interpolation.map(JSONValue.string)),
                                                                    ("lw", lineWidth.map(JSONValue.number)), ("sym", symbol.map(JSONValue.string))])])
    }
    /// AreaMark.
    public static func area(_ data: [ChartPoint], color: Color? = nil, interpolation: String? = nil) -> ChartMark {
        ChartMark(json: ["area", .array(data.map(\.json)), options([("c", color.map { .string($0.value) }), ("itp", interpolation.map(JSONValue.string))])])
    }
    /// PointMark.
    public static func point(_ data: [ChartPoint], color: Color? = nil, symbol: String? = nil, symbolSize: Double? = nil) -> ChartMark {
        ChartMark(json: ["point", .array(data.map(\.json)), options([("c", color.map { .string($0.value) }), ("sym", symbol.map(JSONValue.string)),
                                                                     ("syms", symbolSize.map(JSONValue.number))])])
    }
    /// RuleMark at `x` or `y`.
    public static func rule(x: JSONValue? = nil, y: Double? = nil, color: Color? = nil, lineWidth: Double? = nil) -> ChartMark {
        ChartMark(json: ["rule", .null, options([("c", color.map { .string($0.value) }), ("lw", lineWidth.map(JSONValue.number)),
                                                 ("xv", x), ("yv", y.map(JSONValue.number))])])
    }
    /// SectorMark (pie / donut) from (value, category) pairs.
    public static func sector(_ data: [(value: Double, category: String)], color: Color? = nil, innerRadius: Double? = nil,
                              outerRadius: Double? = nil, angularInset: Double? = nil) -> ChartMark {
        ChartMark(json: ["sector", .array(data.map { [.number($0.value), .string($0.category)] }),
                         options([("c", color.map { .string($0.value) }), ("ir", innerRadius.map(JSONValue.number)),
                                  ("or", outerRadius.map(JSONValue.number)), ("agin", angularInset.map(JSONValue.number))])])
    }
}

/// Axis grid lines of a Chart.
public struct ChartGridStyle: Sendable, Hashable {
    public var visible: Bool?, color: Color?, lineWidth: Double?, dash: [Double]?
    /// Creates a grid style.
    public init(visible: Bool? = nil, color: Color? = nil, lineWidth: Double? = nil, dash: [Double]? = nil) {
        self.visible = visible
        self.color = color
        self.lineWidth = lineWidth
        self.dash = dash
    }
    var wire: String {
        var o = JSONObject()
        if let visible { o["v"] = .bool(visible) }
        if let color { o["c"] = .string(color.value) }
        if let lineWidth { o["lw"] = .number(lineWidth) }
        if let dash { o["d"] = .array(dash.map(JSONValue.number)) }
        return JSONValue.object(o).jsonString
    }
}

/// Chart (`t:21`): Swift Charts marks.
public struct Chart: NodeView {
    public var node: Node
    /// A chart of `marks`; `colors` maps series names to colors (`foregroundStyleScale`).
    public init(_ marks: [ChartMark], xAxis: ChartVisibility? = nil, yAxis: ChartVisibility? = nil, legend: ChartVisibility? = nil,
                xGrid: ChartGridStyle? = nil, yGrid: ChartGridStyle? = nil, colors: [(series: String, color: Color)] = []) {
        node = Node(.chart)
        node.set("xAxisVisibility", xAxis.map { .string($0.rawValue) })
        node.set("yAxisVisibility", yAxis.map { .string($0.rawValue) })
        node.set("legendVisibility", legend.map { .string($0.rawValue) })
        if !marks.isEmpty { node.set("marks", .string(JSONValue.array(marks.map(\.json)).jsonString)) }
        if !colors.isEmpty {
            node.set("foregroundStyleScale", .string(JSONValue.array(colors.map { [.string($0.series), .string($0.color.value)] }).jsonString))
        }
        node.set("xAxisGridStyle", xGrid.map { .string($0.wire) })
        node.set("yAxisGridStyle", yGrid.map { .string($0.wire) })
    }
}

import LivelineCore

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

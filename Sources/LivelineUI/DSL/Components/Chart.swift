import LivelineCore

/// Chart (`t:21`): Swift Charts marks.
public struct Chart: NodeView {
    /// The element this view describes.
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

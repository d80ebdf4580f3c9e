import LivelineCore

/// Axis grid lines of a Chart.
public struct ChartGridStyle: Sendable, Hashable {
    /// Whether lines show, their color, width and dash pattern.
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

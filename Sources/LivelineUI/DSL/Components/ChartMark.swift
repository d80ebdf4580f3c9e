import LivelineCore

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

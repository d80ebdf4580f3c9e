import LivelineCore

/// A data point of a bar, line, area or point mark.
public struct ChartPoint: Sendable, Hashable {
    /// The x value (number or category), the y value, and the series it belongs to.
    public var x: JSONValue, y: Double, series: String?
    /// A point; `x` is a number or a category string.
    public init(_ x: JSONValue, _ y: Double, series: String? = nil) {
        self.x = x
        self.y = y
        self.series = series
    }
    var json: JSONValue { series.map { [x, .number(y), .string($0)] } ?? [x, .number(y)] }
}

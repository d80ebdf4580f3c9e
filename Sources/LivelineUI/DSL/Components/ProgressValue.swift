import Foundation
import LivelineCore

/// What a progress view or gauge shows: a value, or a time range the device animates by itself.
public enum ProgressValue: Sendable, Hashable {
    /// `value` out of `total`.
    case value(Double, total: Double? = nil)
    /// From `start` to `end`; `countDown` runs it backwards.
    case timeRange(ClosedRange<Date>, countDown: Bool = false)

    func apply(to node: inout Node, totalName: String = "maximumValue", countDownAllowed: Bool = true) {
        switch self {
        case .value(let v, let total):
            node.set("value", .number(v))
            node.set(totalName, total.map(JSONValue.number))
        case .timeRange(let range, let countDown):
            node.set("startAtMs", epochMilliseconds(range.lowerBound))
            node.set("endAtMs", epochMilliseconds(range.upperBound))
            if countDown && countDownAllowed { node.set("countDown", .bool(true)) }
        }
    }
}

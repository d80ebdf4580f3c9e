import Foundation
import LivelineCore

/// Text (`t:0`): one string.
public struct Text: NodeView {
    /// The element this view describes.
    public var node: Node
    /// Text with a string.
    public init(_ text: String, lineLimit: Int? = nil, alignment: MultilineTextAlignment? = nil) {
        node = Node(.text)
        node.text = text
        node.set("numberOfLines", lineLimit.map { .number(Double($0)) })
        node.set("multilineTextAlignment", alignment.map { .string($0.rawValue) })
    }
    /// A clock time formatted on the server (`"14:35"`, or `"14:35:09"` with seconds) in `timeZone`.
    ///
    /// For a time that ticks on the device, use `Timer`.
    public init(_ date: Date, seconds: Bool = false, timeZone: TimeZone = TimeZone(secondsFromGMT: 0)!) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { let n = n ?? 0; return n < 10 ? "0\(n)" : "\(n)" }
        self.init(two(c.hour) + ":" + two(c.minute) + (seconds ? ":" + two(c.second) : ""))
    }
}

import Foundation
import LivelineCore

/// Text (`t:0`): one string.
public struct Text: NodeView {
    public var node: Node
    /// Text with a string.
    public init(_ text: String, lineLimit: Int? = nil, alignment: MultilineTextAlignment? = nil) {
        node = Node(.text)
        node.text = text
        node.set("numberOfLines", lineLimit.map { .number(Double($0)) })
        node.set("multilineTextAlignment", alignment.map { .string($0.rawValue) })
    }
    /// A date formatted on the server (e.g. `"14:35"`), in `timeZone`.
    public init(_ date: Date, format: String = "HH:mm", timeZone: TimeZone = TimeZone(identifier: "UTC")!) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        self.init(formatter.string(from: date))
    }
}

/// Why a preview could not be drawn.
public struct PreviewError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The problem, in a sentence naming what was wrong and what is supported.
    public let message: String

    /// An error with `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

import Foundation

/// A failure of a test-support operation: a tool that failed, a server that did not start.
public struct TestingError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the command, path or port involved.
    public let description: String

    /// Creates an error with a message naming the problem and the value.
    public init(_ description: String) {
        self.description = description
    }
}

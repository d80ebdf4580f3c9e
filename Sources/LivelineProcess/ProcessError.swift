/// A child process that could not be started or did not do what was asked (a checked run that
/// failed, a program that closed its output without the line awaited).
public struct ProcessError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, naming the program and the reason.
    public let description: String

    /// Creates an error with a message naming the program and the problem.
    public init(_ description: String) {
        self.description = description
    }
}

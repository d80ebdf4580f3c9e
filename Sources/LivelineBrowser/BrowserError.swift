/// A failure of the browser layer: Chromium or chromedriver missing or not starting, a WebDriver
/// command the browser refused, a PNG this decoder does not read. The message names the problem.
public struct BrowserError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the program, command or value involved.
    public let description: String

    /// Creates an error with a message naming the problem.
    public init(_ description: String) {
        self.description = description
    }
}

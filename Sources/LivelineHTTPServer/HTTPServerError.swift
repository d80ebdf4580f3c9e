/// Why an `HTTPServer` could not start: a configuration value out of range, a host that is not
/// an IP address, or an address that cannot be bound (in use, not local, no permission).
public struct HTTPServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, with the value involved and, for system failures, the `errno` text.
    public var message: String

    /// Creates an error with a message.
    public init(message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

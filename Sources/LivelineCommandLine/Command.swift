import Foundation

/// One command of a tool: its spec (for `--help` and parsing) and what it does.
public protocol LivelineCommand {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments; returns the exit code.
    static func run(_ arguments: Arguments) async throws -> Int32
}

/// A word that leads to a command, to a group of commands (`liveline ui encode`), or to another
/// program that takes the rest of the arguments as they are (`liveline bench`).
public struct CommandEntry {
    public var name: String
    public var abstract: String
    public var command: (any LivelineCommand.Type)?
    public var children: [CommandEntry] = []
    /// Takes the arguments after this word unparsed and returns the exit code.
    public var forward: (([String]) async -> Int32)?

    public init(_ command: any LivelineCommand.Type, name: String? = nil) {
        self.name = name ?? String(command.spec.path.split(separator: " ").last ?? "")
        self.abstract = command.spec.abstract
        self.command = command
    }

    public init(group name: String, abstract: String, children: [CommandEntry]) {
        self.name = name
        self.abstract = abstract
        self.children = children
    }

    public init(forwarding name: String, abstract: String, to forward: @escaping ([String]) async -> Int32) {
        self.name = name
        self.abstract = abstract
        self.forward = forward
    }
}

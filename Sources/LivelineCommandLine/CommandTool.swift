import Foundation

/// A command-line tool: its name, what it is, and its commands. `run` picks the command from the
/// leading words, prints help for a group, parses the options against the command's spec and
/// maps errors to exit codes (64 for usage mistakes, `CLIError.exitCode` for the rest).
public struct CommandTool {
    public var name: String
    public var abstract: String
    public var version: String
    public var commands: [CommandEntry]

    public init(name: String, abstract: String, version: String, commands: [CommandEntry]) {
        self.name = name
        self.abstract = abstract
        self.version = version
        self.commands = commands
    }

    public func run(_ argv: [String]) async -> Int32 {
        var entries = commands
        var path = name
        var rest = argv[...]
        var abstract = self.abstract
        while true {
            guard let word = rest.first, !word.hasPrefix("-") else {
                if rest.first == "--version" { Console.out("\(name) \(version)"); return 0 }
                let helpAsked = rest.first == "--help" || rest.first == "-h"
                let text = Self.groupHelp(path: path, abstract: abstract, entries: entries)
                if helpAsked { Console.out(text); return 0 }
                let names = entries.map(\.name).joined(separator: ", ")
                Console.err("error: missing command (one of: \(names))\nhint: see '\(path) --help'")
                return 64
            }
            guard let entry = entries.first(where: { $0.name == word }) else {
                Console.err("error: unknown command '\(word)' for '\(path)'\nhint: see '\(path) --help'")
                return 64
            }
            rest = rest.dropFirst()
            path += " " + word
            if let forward = entry.forward { return await forward(Array(rest)) }
            if let command = entry.command { return await Self.execute(command, Array(rest)) }
            entries = entry.children
            abstract = entry.abstract
        }
    }

    static func execute(_ command: any LivelineCommand.Type, _ argv: [String]) async -> Int32 {
        do {
            let arguments = try Arguments(argv, spec: command.spec)
            if arguments.wantsHelp { Console.out(command.spec.helpText); return 0 }
            return try await command.run(arguments)
        } catch let error as UsageError {
            Console.err("error: \(error.message)\nhint: see '\(error.helpPath) --help'")
            return 64
        } catch let error as CLIError {
            Console.err("error: \(error.message)")
            return error.exitCode
        } catch {
            Console.err("error: \(error)")
            return 1
        }
    }

    static func groupHelp(path: String, abstract: String, entries: [CommandEntry]) -> String {
        let width = (entries.map(\.name.count).max() ?? 0) + 2
        var text = "\(abstract)\n\nUSAGE: \(path) <command> [options]\n\nCOMMANDS:\n"
        for entry in entries {
            text += "  \(entry.name)\(String(repeating: " ", count: width - entry.name.count))\(entry.abstract)\n"
        }
        text += "\nSee '\(path) <command> --help' for a command's options."
        return text
    }
}

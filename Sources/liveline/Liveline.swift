import Foundation

/// One command of the tool: its spec (for `--help` and parsing) and what it does.
protocol LivelineCommand {
    static var spec: CommandSpec { get }
    /// Runs with parsed arguments; returns the exit code.
    static func run(_ arguments: Arguments) async throws -> Int32
}

/// A word that leads to a command or to a group of commands (`liveline ui encode`).
struct CommandEntry {
    var name: String
    var abstract: String
    var command: (any LivelineCommand.Type)?
    var children: [CommandEntry] = []

    init(_ command: any LivelineCommand.Type, name: String? = nil) {
        self.name = name ?? String(command.spec.path.split(separator: " ").last ?? "")
        self.abstract = command.spec.abstract
        self.command = command
    }

    init(group name: String, abstract: String, children: [CommandEntry]) {
        self.name = name
        self.abstract = abstract
        self.children = children
    }
}

@main
struct Liveline {
    /// Every top-level command; a new command adds one line here.
    static var commands: [CommandEntry] {
        [
            CommandEntry(PayloadCommand.self),
            CommandEntry(LintCommand.self),
            CommandEntry(FixturesCommand.self),
            CommandEntry(DemoCommand.self),
            CommandEntry(SendCommand.self),
            CommandEntry(BroadcastCommand.self),
            ChannelsCommand.entry,
            CommandEntry(JWTCommand.self),
            CommandEntry(group: "ui", abstract: "Encode, decode and measure server-driven UI (Voltra payload v1).",
                         children: [CommandEntry(UIEncodeCommand.self), CommandEntry(UIDecodeCommand.self), CommandEntry(UISizeCommand.self),
                                    CommandEntry(UIPreviewCommand.self)]),
            CommandEntry(PreviewCommand.self),
            CommandEntry(SimulatorCommand.self),
            CommandEntry(ServeCommand.self),
            CommandEntry(group: "bench", abstract: "Run a benchmark and print ratios against a reference.", children: [
                CommandEntry(BenchClientCommand.self),
                CommandEntry(BenchSimulatorCommand.self),
                CommandEntry(BenchUICommand.self),
                CommandEntry(BenchServiceCommand.self),
                CommandEntry(BenchFaultsCommand.self),
                CommandEntry(BenchScaleCommand.self),
            ]),
        ]
    }

    static func main() async {
        ParentWatch.start()
        let code = await run(Array(CommandLine.arguments.dropFirst()))
        exit(code)
    }

    static func run(_ argv: [String]) async -> Int32 {
        var entries = commands
        var path = "liveline"
        var rest = argv[...]
        var abstract = "Liveline: run iOS Live Activities from a server."
        while true {
            guard let word = rest.first, !word.hasPrefix("-") else {
                if rest.first == "--version" { Console.out("liveline \(version)"); return 0 }
                let helpAsked = rest.first == "--help" || rest.first == "-h"
                let text = groupHelp(path: path, abstract: abstract, entries: entries)
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
            if let command = entry.command {
                return await execute(command, Array(rest))
            }
            entries = entry.children
            abstract = entry.abstract
        }
    }

    static let version = "0.1.0"

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

import Foundation
import LivelineCommandLine
import LivelineToolSupport

/// `liveline-bench`: the benchmarks, each printing ratios against a reference measured in the
/// same run. `liveline bench X ...` runs `liveline-bench X ...`.
@main
struct LivelineBench {
    /// Every benchmark; a new one adds one line here.
    static var commands: [CommandEntry] {
        [
            CommandEntry(BenchClientCommand.self),
            CommandEntry(BenchClientMemoryCommand.self),
            CommandEntry(BenchFarAPNsCommand.self),
            CommandEntry(BenchSmallSendsCommand.self),
            CommandEntry(BenchSimulatorCommand.self),
            CommandEntry(BenchUICommand.self),
            CommandEntry(BenchServiceCommand.self),
            CommandEntry(BenchFaultsCommand.self),
            CommandEntry(BenchScaleCommand.self),
            CommandEntry(BenchHTTP2Command.self),
        ]
    }

    static var tool: CommandTool { CommandTool(name: "liveline-bench", abstract: "Run a benchmark and print ratios against a reference.", version: "0.1.0", commands: commands) }

    static func main() async {
        ParentWatch.start()
        exit(await tool.run(Array(CommandLine.arguments.dropFirst())))
    }
}

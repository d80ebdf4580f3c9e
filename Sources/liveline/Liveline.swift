import Foundation
import LivelineCommandLine
import LivelineToolSupport

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
            CommandEntry(group: "template", abstract: "Design templates: a typed activity's layout bound to its content state.", children: [CommandEntry(TemplateSwiftUICommand.self)]),
            CommandEntry(SimulatorCommand.self),
            CommandEntry(ServeCommand.self),
            CommandEntry(forwarding: "bench", abstract: "Run a benchmark: runs liveline-bench (built beside liveline) with the same arguments.",
                         to: benchEntry),
        ]
    }

    static var tool: CommandTool { CommandTool(name: "liveline", abstract: "Liveline: run iOS Live Activities from a server.", version: version, commands: commands) }

    static func main() async {
        let argv = Array(CommandLine.arguments.dropFirst())
        // `liveline bench` becomes liveline-bench (exec), which watches the parent itself: the
        // watch's descriptor must reach it open.
        if argv.first != "bench" { ParentWatch.start() }
        exit(await tool.run(argv))
    }

    static let version = "0.1.0"

    /// `liveline bench X ...` is `liveline-bench X ...`: the benchmarks are their own executable.
    static func benchEntry(_ arguments: [String]) async -> Int32 {
        let error = SiblingExecutable.replaceProcess(with: "liveline-bench", arguments, neededBy: "liveline bench")
        Console.err("error: \(error.message)")
        return error.exitCode
    }
}

import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineUI

/// `liveline ui size FILE.json`: bytes by region and the largest subtrees, both modes.
enum UISizeCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline ui size", abstract: "Show a layout's bytes by region and its largest subtrees.",
        usage: "<layout.json> [--compat]",
        options: [.init(name: "compat", help: "Break down the Voltra-compatible encoding instead of compact mode.")],
        positionals: 1...1,
        discussion: "Sizes are of the uncompressed JSON; 'alone' is a region compressed by itself (a rough share).")

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let path = arguments.positionals[0]
        let layout = try UICLI.layout(path)
        // Compact mode's smallest JSON: when even that cannot fit, neither mode is worth compressing.
        do { try VoltraBudget.checkBeforeEncoding(layout, mode: .compact) } catch { throw CLIError(message: "\(path): \(error.message)") }
        let compat = VoltraEncoder.encode(layout, mode: .compatible)
        let compact = VoltraEncoder.encode(layout, mode: .compact)
        let shown = arguments.flag("compat") ? compat : compact
        let report = SizeReport(shown)
        var lines = [UICLI.sizeLine(compact), UICLI.sizeLine(compat), ""]
        lines.append("region".padding(toLength: 12, withPad: " ", startingAt: 0) + "   JSON  alone")
        for part in report.parts {
            lines.append(part.key.padding(toLength: 12, withPad: " ", startingAt: 0)
                + String(format: " %6d %6d", part.jsonBytes, part.compressedAlone))
        }
        if !report.largestSubtrees.isEmpty {
            lines.append("")
            lines.append("largest subtrees (JSON bytes):")
            for subtree in report.largestSubtrees { lines.append(String(format: "%6d  ", subtree.jsonBytes) + subtree.path) }
        }
        Console.out(lines.joined(separator: "\n"))
        for issue in VoltraDecoder.lint(layout) { Console.err("warning: \(issue)") }
        do { try VoltraBudget.check(shown) } catch { throw CLIError(message: error.message) }
        return 0
    }
}

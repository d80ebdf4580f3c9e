import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineUI

/// `liveline ui encode FILE.json`: a JSON-form layout to the `uiJsonData` string.
enum UIEncodeCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline ui encode", abstract: "Encode a JSON-form layout to the uiJsonData string.",
        usage: "<layout.json> [--compat] [--json]",
        options: [
            .init(name: "compat", help: "Voltra-compatible bytes (identity sharing, brotli quality 2) instead of compact mode."),
            .init(name: "json", help: "Print the payload v1 JSON instead of the base64 string."),
        ],
        positionals: 1...1,
        discussion: """
            Prints the string on stdout and its size against the budget (3345 bytes of base64) on stderr.
            The layout mirrors Voltra's JSX: {"lockScreen": NODE, "island": {...}}, NODE = {"type", "id",
            "props", "children"}. Use '-' to read stdin.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let path = arguments.positionals[0]
        let layout = try UICLI.layout(path)
        let mode: EncodingMode = arguments.flag("compat") ? .compatible : .compact
        do { try VoltraBudget.checkBeforeEncoding(layout, mode: mode) } catch { throw CLIError(message: "\(path): \(error.message)") }
        let encoded = VoltraEncoder.encode(layout, mode: mode)
        Console.out(arguments.flag("json") ? encoded.jsonString : encoded.base64)
        Console.err(UICLI.sizeLine(encoded))
        for issue in VoltraDecoder.lint(layout) { Console.err("warning: \(issue)") }
        do { try VoltraBudget.check(encoded) } catch { throw CLIError(message: error.message) }
        return 0
    }
}

/// Helpers shared by the `liveline ui` commands.
enum UICLI {
    static func layout(_ path: String) throws -> UILayout {
        let bytes = try readUserFile(path, what: "layout")
        do { return try LayoutForm.parse(bytes) } catch {
            throw CLIError(message: "\(path): \(error.message)")
        }
    }

    static func sizeLine(_ encoded: EncodedUI) -> String {
        let base64 = encoded.base64.utf8.count
        let percent = Int((Double(base64) * 100 / Double(VoltraBudget.base64Limit)).rounded())
        return "\(encoded.mode.rawValue): \(base64) of \(VoltraBudget.base64Limit) bytes of base64 (\(percent)%); "
            + "JSON \(encoded.json.count) B, brotli q\(encoded.quality) \(encoded.compressed.count) B"
    }
}

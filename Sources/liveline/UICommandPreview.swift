import Foundation
import LivelineCore
import LivelineUI

/// `liveline ui preview FILE|STRING`: a text (or HTML) mock of the Lock Screen and Dynamic Island.
enum UIPreviewCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline ui preview", abstract: "Draw a layout or a uiJsonData string as text (or HTML): Lock Screen and Dynamic Island.",
        usage: "<layout.json|string|file> [--region lock|island|all] [--html] [--now <date>] [--width <n>] [--time-zone <tz>]",
        options: [
            .init(name: "region", valueName: "lock|island|all", help: "What to draw (default all)."),
            .init(name: "html", help: "Print a self-contained HTML page instead of text."),
            .init(name: "now", valueName: "date", help: "The moment to show: timers count to it (default now)."),
            .init(name: "width", valueName: "n", help: "Columns of the text preview (default 44, at least 24)."),
            .init(name: "time-zone", valueName: "tz", help: "Time zone of the Lock Screen clock, e.g. Europe/Lisbon (default UTC)."),
        ],
        positionals: 1...1,
        discussion: """
            The argument is a JSON-form layout file, a uiJsonData string, or a file (or '-' for stdin)
            holding the string, a payload v1 JSON or a whole APNs body. A payload is decoded as the
            device decodes it, so what it would not draw (an unknown component) is not drawn.
            Symbols show as [sf:name], images as [img:asset]; timers are resolved at --now.
            DATE is \(DateArgument.formats).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let surfaceText = arguments.value("region") ?? "all"
        guard let surface = UIPreview.Surface(rawValue: surfaceText) else {
            throw arguments.usageError("'--region' must be lock, island or all, got '\(surfaceText)'")
        }
        let now = try arguments.value("now").map { t throws(UsageError) in
            try DateArgument.parse(t, option: "now", now: Date(), helpPath: spec.path)
        } ?? Date()
        let width = try arguments.int("width") ?? 44
        guard width >= 24, width <= 400 else { throw arguments.usageError("'--width' must be from 24 to 400, got \(width)") }
        var timeZone = TimeZone(secondsFromGMT: 0)!
        if let name = arguments.value("time-zone") {
            guard let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) else {
                throw arguments.usageError("'--time-zone' is not a time zone: '\(name)' (use a name like Europe/Lisbon or UTC)")
            }
            timeZone = zone
        }
        let (layout, issues) = try UICLI.anyLayout(arguments.positionals[0])
        let preview = UIPreview(width: width, now: now, timeZone: timeZone)
        Console.out(arguments.flag("html") ? preview.html(layout, surface: surface) : preview.text(layout, surface: surface))
        for issue in issues { Console.err("warning: \(issue)") }
        return 0
    }
}

extension UICLI {
    /// A layout from what the user gave: a JSON-form file, a payload v1 JSON, an APNs body with
    /// `uiJsonData`, or the base64 string itself (inline, in a file or on stdin). Payloads are decoded
    /// as the device does; their lint findings come back as issues.
    static func anyLayout(_ argument: String) throws -> (UILayout, [UILintIssue]) {
        let (text, fromFile) = try readArgument(argument, what: "layout or uiJsonData")
        let source = fromFile ? argument : "the argument"
        do {
            guard text.hasPrefix("{") || text.hasPrefix("[") else {
                let decoded = try VoltraDecoder.lint(base64: text)
                return (decoded.layout, decoded.issues)
            }
            let value: JSONValue
            do { value = try JSONValue.parse(text) } catch {
                throw CLIError(message: "\(source): not valid JSON: \(error.description)")
            }
            if let inner = value["aps"]?["content-state"]?["uiJsonData"]?.stringValue {
                let decoded = try VoltraDecoder.lint(base64: inner)
                return (decoded.layout, decoded.issues)
            }
            if value["v"] != nil || value.arrayValue != nil {
                let decoded = try VoltraDecoder.decode(json: Array(text.utf8))
                return (decoded.layout, decoded.issues)
            }
            let layout: UILayout
            do { layout = try LayoutForm.parse(value) } catch { throw CLIError(message: "\(source): \(error.message)") }
            return (layout, VoltraDecoder.lint(layout))
        } catch let error as UIError {
            throw CLIError(message: source == "the argument" ? error.message : "\(source): \(error.message)")
        }
    }

    /// The text of an argument that is either inline or a file name ('-' for stdin), trimmed, and
    /// whether it came from a file. A name that cannot be base64 (it has a '.') is read as a file, so
    /// a missing file is reported as one.
    static func readArgument(_ argument: String, what: String) throws -> (text: String, fromFile: Bool) {
        let looksLikePath = argument.contains(".") && !argument.hasPrefix("{") && !argument.hasPrefix("[")
        guard argument == "-" || looksLikePath || FileManager.default.fileExists(atPath: argument) else {
            return (argument.trimmingCharacters(in: .whitespacesAndNewlines), false)
        }
        let text = String(decoding: try readUserFile(argument, what: what), as: UTF8.self)
        return (text.trimmingCharacters(in: .whitespacesAndNewlines), true)
    }
}

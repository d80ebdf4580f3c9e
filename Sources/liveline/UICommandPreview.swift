import Foundation
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineUI

/// `liveline ui preview FILE|STRING`: a text (or HTML) mock of the Lock Screen and Dynamic Island.
enum UIPreviewCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline ui preview", abstract: "Draw a layout or a uiJsonData string as text (or HTML): Lock Screen and Dynamic Island.",
        usage: "<layout.json|string|file> [--region lock|island|all] [--html [--dark]] [--now <date>] [--width <n>] [--time-zone <tz>]",
        options: [
            .init(name: "region", valueName: "lock|island|all", help: "What to draw (default all)."),
            .init(name: "html", help: "Print a self-contained HTML page (real point sizes, fonts, colours) instead of text."),
            .init(name: "dark", help: "With --html: the dark appearance."),
            .init(name: "now", valueName: "date", help: "The moment to show: timers count to it (default now)."),
            .init(name: "width", valueName: "n", help: "Columns of the text preview (default 44, at least 24)."),
            .init(name: "time-zone", valueName: "tz", help: "Time zone of the Lock Screen clock, e.g. Europe/Lisbon (default UTC)."),
        ],
        positionals: 1...1,
        discussion: """
            The argument is a JSON-form layout file, a uiJsonData string, or a file (or '-' for stdin)
            holding the string, a payload v1 JSON or a whole APNs body. A payload is decoded as the
            device decodes it, so what it would not draw (an unknown component) is not drawn.
            In text, symbols show as [sf:name], images as [img:asset]; in HTML as drawn stand-ins.
            Timers are resolved at --now.
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
        if arguments.flag("dark") && !arguments.flag("html") { throw arguments.usageError("'--dark' goes with '--html'") }
        let (layout, issues) = try UICLI.anyLayout(arguments.positionals[0])
        if arguments.flag("html") {
            let presentations: [Presentation] = switch surface {
            case .lockScreen: [.lockScreen]
            case .island: [.islandCompact, .islandMinimal, .islandExpanded]
            case .all: Presentation.standard
            }
            let options = PreviewOptions(at: now, dark: arguments.flag("dark"), timeZone: timeZone, presentations: presentations)
            Console.out(ActivityPreview.document(layout: layout, warnings: issues.map(\.description), options: options).html)
        } else {
            Console.out(UIPreview(width: width, now: now, timeZone: timeZone).text(layout, surface: surface))
        }
        for issue in issues { Console.err("warning: \(issue)") }
        return 0
    }
}

extension UICLI {
    /// What a `ui decode` or `ui preview` argument held.
    enum Input {
        /// A `uiJsonData` string, inline or in an APNs body, decoded as the device does (with lint).
        case payload(DecodedUI)
        /// Other JSON (a payload v1 JSON or a JSON-form layout): the parsed value and its bytes.
        case json(JSONValue, [UInt8])
    }

    /// Reads what the user gave: JSON (a payload v1 JSON, an APNs body with `uiJsonData`, a JSON-form
    /// layout) or the base64 string itself, inline, in a file or on stdin. The bytes are read strictly,
    /// as `lint` and `ui encode` read them: JSON through the JSON parser (invalid UTF-8 and lone
    /// surrogates are errors with their line and column), a string as UTF-8 or not at all. `source` is
    /// the file name for messages (nil for an inline argument).
    static func input(_ argument: String, what: String, notJSON: String) throws -> (input: Input, source: String?) {
        let (bytes, fromFile) = try readArgument(argument, what: what)
        let source = fromFile ? argument : nil
        guard bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "[") else {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw failure(source, "uiJsonData is not valid UTF-8 text (it should be a base64 string)")
            }
            return (.payload(try decoding(source) { () throws(UIError) in try VoltraDecoder.lint(base64: text) }), source)
        }
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch { throw failure(source, notJSON + error.description) }
        if let inner = value["aps"]?["content-state"]?["uiJsonData"]?.stringValue {
            return (.payload(try decoding(source) { () throws(UIError) in try VoltraDecoder.lint(base64: inner) }), source)
        }
        return (.json(value, bytes), source)
    }

    /// `body`'s result, its `UIError` as a `CLIError` naming `source`.
    static func decoding<T>(_ source: String?, _ body: () throws(UIError) -> T) throws(CLIError) -> T {
        do { return try body() } catch { throw failure(source, error.message) }
    }

    private static func failure(_ source: String?, _ message: String) -> CLIError {
        CLIError(message: source.map { "\($0): \(message)" } ?? message)
    }

    /// A layout from what the user gave (see `input`), with what lint found: a payload's findings as
    /// the device decodes it, or a JSON-form layout's.
    static func anyLayout(_ argument: String) throws -> (UILayout, [UILintIssue]) {
        let (input, source) = try input(argument, what: "layout or uiJsonData", notJSON: "not valid JSON: ")
        switch input {
        case .payload(let decoded):
            return (decoded.layout, decoded.issues)
        case .json(let value, let bytes) where value["v"] != nil || value.arrayValue != nil:
            let decoded = try decoding(source) { () throws(UIError) in try VoltraDecoder.lint(json: bytes) }
            return (decoded.layout, decoded.issues)
        case .json(let value, _):
            let layout = try decoding(source) { () throws(UIError) in try LayoutForm.parse(value) }
            return (layout, VoltraDecoder.lint(layout))
        }
    }

    /// The bytes of an argument that is either inline or a file name ('-' for stdin), without the
    /// whitespace around them, and whether they came from a file. A name that cannot be base64 (it has
    /// a '.') is read as a file, so a missing file is reported as one.
    static func readArgument(_ argument: String, what: String) throws -> (bytes: [UInt8], fromFile: Bool) {
        let looksLikePath = argument.contains(".") && !argument.hasPrefix("{") && !argument.hasPrefix("[")
        guard argument == "-" || looksLikePath || FileManager.default.fileExists(atPath: argument) else {
            return (trimmed(Array(argument.utf8)), false)
        }
        return (trimmed(try readUserFile(argument, what: what)), true)
    }

    /// `bytes` without leading and trailing ASCII whitespace.
    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C]
        guard let first = bytes.firstIndex(where: { !space.contains($0) }),
              let last = bytes.lastIndex(where: { !space.contains($0) }) else { return [] }
        return Array(bytes[first...last])
    }
}

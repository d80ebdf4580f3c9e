import Foundation
import LivelineBrowser
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineToolSupport

/// `liveline preview PAYLOAD --out DIR`: the preview page and one PNG per presentation, drawn by
/// headless Chromium from the page itself.
enum PreviewCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline preview", abstract: "Write a Live Activity's preview page and a 3x PNG per presentation (headless Chromium).",
        usage: "<payload.json|string|file>... --out <dir> [--at <date>] [--dark] [--time-zone <tz>]",
        options: [
            .init(name: "out", valueName: "dir", help: "Where index.html and the PNGs go (made if missing)."),
            .init(name: "at", valueName: "date", help: "The instant to draw: timers, relative times, staleness (default now)."),
            .init(name: "dark", help: "Dark appearance."),
            .init(name: "time-zone", valueName: "tz", help: "Time zone of clock times, e.g. Europe/Lisbon (default UTC)."),
        ],
        positionals: 1...1000,
        discussion: """
            The argument is an APNs body (a typed FlightAttributes start/update/end with aps.attributes-type
            and aps.attributes, or server-driven UI in aps.content-state.uiJsonData), a JSON-form layout, or a
            uiJsonData string: inline, in a file, or '-' for stdin (as 'liveline ui preview' reads it).
            Writes DIR/index.html and lock-screen.png, island-compact.png, island-minimal.png and
            island-expanded.png: each a screenshot at 3x of that presentation's box in index.html, so the
            PNGs show exactly what the page shows. Several payloads share one browser and each gets a folder
            DIR/NAME/ named after its file (inline ones: payload-1, ...).
            Needs Debian's chromium and chromium-driver (LIVELINE_CHROMIUM and LIVELINE_CHROMEDRIVER
            override where they are). DATE is \(DateArgument.formats).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let out = URL(fileURLWithPath: try arguments.required("out"), isDirectory: true)
        let at = try arguments.value("at").map { t throws(UsageError) in
            try DateArgument.parse(t, option: "at", now: Date(), helpPath: spec.path)
        } ?? Date()
        var options = PreviewOptions(at: at, dark: arguments.flag("dark"))
        if let name = arguments.value("time-zone") {
            guard let zone = TimeZone(identifier: name) ?? TimeZone(abbreviation: name) else {
                throw arguments.usageError("'--time-zone' is not a time zone: '\(name)' (use a name like Europe/Lisbon or UTC)")
            }
            options.timeZone = zone
        }
        let inputs = arguments.positionals
        let folders = try folderNames(inputs)
        // Every input is read and drawn before anything is written.
        let documents = try inputs.map { try PreviewInput.document($0, options: options) }
        var pages: [(document: PreviewDocument, page: URL, directory: URL)] = []
        for (document, folder) in zip(documents, folders) {
            let directory = folder.map { out.appendingPathComponent($0, isDirectory: true) } ?? out
            try PreviewCapture.prepare(directory)
            let page = directory.appendingPathComponent("index.html")
            try PreviewCapture.write(document.html, to: page)
            Console.out("wrote \(page.path)")
            for warning in document.warnings { Console.err("warning: \(folder.map { "\($0): " } ?? "")\(warning)") }
            pages.append((document, page, directory))
        }
        let capture = try await PreviewCapture.start()
        for (document, page, directory) in pages {
            for shot in try await capture.shoot(document, page: page, into: directory) {
                Console.out("wrote \(shot.file.path) (\(shot.pixelWidth)x\(shot.pixelHeight) px: \(shot.box.presentation.title), "
                    + "\(PreviewCapture.points(shot.box.width))x\(PreviewCapture.points(shot.box.height)) pt at \(capture.browser.scale)x)")
            }
        }
        await capture.browser.stop()
        return 0
    }

    /// nil for a single input (its files go straight into --out); otherwise a folder per input, named
    /// after its file without the extension ('-' is stdin, inline text payload-N).
    static func folderNames(_ inputs: [String]) throws(UsageError) -> [String?] {
        guard inputs.count > 1 else { return [nil] }
        let names = inputs.enumerated().map { index, input -> String in
            if input == "-" { return "stdin" }
            guard input.contains(".") || FileManager.default.fileExists(atPath: input), !input.hasPrefix("{"), !input.hasPrefix("[") else {
                return "payload-\(index + 1)"
            }
            return URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        }
        var seen: [String: String] = [:]
        for (name, input) in zip(names, inputs) {
            if let other = seen[name] {
                throw UsageError(message: "'\(other)' and '\(input)' would both write to '\(name)/'; rename one", helpPath: spec.path)
            }
            seen[name] = input
        }
        return names
    }
}

/// What `liveline preview` reads: an APNs body through `ActivityPreview`'s body reader, anything else
/// as `liveline ui preview` reads it.
enum PreviewInput {
    static func document(_ argument: String, options: PreviewOptions) throws -> PreviewDocument {
        let (bytes, fromFile) = try UICLI.readArgument(argument, what: "payload")
        let source = fromFile ? argument + ": " : ""
        if bytes.first == UInt8(ascii: "{"), let value = try? JSONValue.parse(bytes), value["aps"] != nil {
            do { return try ActivityPreview.document(apnsBody: bytes, options: options) } catch {
                throw CLIError(message: source + "\(error)")
            }
        }
        // A layout or a uiJsonData string: the bytes go to `ui preview`'s reader as the inline argument.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError(message: source + "not valid UTF-8 (give an APNs body, a JSON-form layout or a uiJsonData string)")
        }
        do {
            let (layout, issues) = try UICLI.anyLayout(text)
            return ActivityPreview.document(layout: layout, warnings: issues.map(\.description), options: options)
        } catch let error as CLIError {
            throw CLIError(message: source + error.message, exitCode: error.exitCode)
        }
    }
}

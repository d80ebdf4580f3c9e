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
        usage: "<payload.json|string|file>... --out <dir> [--type <T> --attributes <json|file> | --start <file>] [--states] [--at <date>] "
            + "[--template <file>] [--dark] [--always-on] [--text-size <size>] [--phone 393|402|440] [--presentations <list>] [--time-zone <tz>]",
        options: [
            .init(name: "out", valueName: "dir", help: "Where index.html and the PNGs go (made if missing)."),
            .init(name: "type", valueName: "T", help: "The attributes type of an update or end body (which does not name it), e.g. FlightAttributes."),
            .init(name: "attributes", valueName: "json|file", help: "The activity's attributes for an update or end body (inline JSON or a file)."),
            .init(name: "start", valueName: "file", help: "A push-to-start body whose attributes-type and attributes the other bodies take."),
            .init(name: "template", valueName: "file", help: "Your type's design template (JSON-form layout bound to the content state): draws that type."),
            .init(name: "states", help: "Draw the payloads as a sequence of states: one page (strip.html) and one PNG (strip.png)."),
            .init(name: "at", valueName: "date", help: "The instant to draw: timers, relative times, staleness (default now)."),
            .init(name: "dark", help: "Dark appearance."),
            .init(name: "always-on", help: "The Always-On display at reduced luminance: the Lock Screen dark and dimmed."),
            .init(name: "text-size", valueName: "size", help: "Dynamic Type size: xs, s, m, l (default), xl, xxl, xxxl, ax1 ... ax5."),
            .init(name: "phone", valueName: "width", help: "The iPhone's screen width in points: 393 (default), 402 or 440."),
            .init(name: "presentations", valueName: "list", help: "Comma-separated presentations to draw, or 'all' (default: the four of the phone)."),
            .init(name: "time-zone", valueName: "tz", help: "Time zone of clock times, e.g. Europe/Lisbon (default UTC)."),
        ],
        positionals: 1...1000,
        discussion: """
            The argument is an APNs body (a typed FlightAttributes start/update/end with aps.attributes-type
            and aps.attributes, or server-driven UI in aps.content-state.uiJsonData), a JSON-form layout, or a
            uiJsonData string: inline, in a file, or '-' for stdin (as 'liveline ui preview' reads it).
            An update or end body of a typed activity names neither its type nor its attributes: give them
            with --type and --attributes, or --start with the push-to-start body; with --states the later
            bodies take them from the first. An end body draws the ended activity (its Lock Screen only).
            Writes DIR/index.html and lock-screen.png, island-compact.png, island-minimal.png and
            island-expanded.png: each a screenshot at 3x of that presentation's box in index.html, so the
            PNGs show exactly what the page shows. Several payloads share one browser and each gets a folder
            DIR/NAME/ named after its file (inline ones: payload-1, ...). With --states they are drawn in
            order on one page instead, a row per state (its Lock Screen and compact Island).
            --template FILE draws your own attributes type from its design template (docs/previews.md,
            "Design templates"): a JSON-form layout whose values are bound to the attributes and content
            state ({"bind": "state.gate"}), with conditions for per-state content; bodies without
            aps.attributes-type take the template's type. Built in: FlightActivityAttributes and
            FlightAttributes, both through Examples/FlightTracker/FlightActivity.template.json
            (the example widget's views are generated from it: 'liveline template swiftui').
            More presentations: \(Presentation.allCases.map(\.rawValue).joined(separator: ", ")) (alert-banner:
            the banner of an alerting push, with the alert's text in its caption; island-two: two activities
            at once; watch-smart-stack and carplay: the small family).
            Needs Debian's chromium and chromium-driver (LIVELINE_CHROMIUM and LIVELINE_CHROMEDRIVER
            override where they are). DATE is \(DateArgument.formats).
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let out = URL(fileURLWithPath: try arguments.required("out"), isDirectory: true)
        var options = try previewOptions(arguments)
        options.template = try template(arguments)
        var base = try typeAndAttributes(arguments, template: options.template)
        let inputs = arguments.positionals
        let states = arguments.flag("states")
        let folders = states ? [] : try folderNames(inputs)
        // Every input is read and drawn before anything is written.
        var documents: [PreviewDocument] = []
        for input in inputs {
            let drawn = try PreviewInput.read(input, options: options, type: base.type, attributes: base.attributes)
            documents.append(drawn.document)
            // In a sequence the first body's type and attributes carry on to the updates after it.
            if states, base.type == nil, let type = drawn.type { base = (type, drawn.attributes) }
        }
        if states { return try await strip(documents, inputs: inputs, out: out) }
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

    /// The drawing options from the flags.
    static func previewOptions(_ arguments: Arguments) throws(UsageError) -> PreviewOptions {
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
        options.alwaysOn = arguments.flag("always-on")
        if let name = arguments.value("text-size") {
            guard let size = PreviewTextSize(name: name) else {
                throw arguments.usageError("'--text-size' must be one of \(PreviewTextSize.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
            }
            options.textSize = size
        }
        if let width = arguments.value("phone") {
            guard let phone = PreviewPhone(rawValue: width) else {
                throw arguments.usageError("'--phone' must be 393, 402 or 440 (the screen's width in points), got '\(width)'")
            }
            options.phone = phone
        }
        if let list = arguments.value("presentations") {
            if list == "all" {
                options.presentations = Presentation.allCases
            } else {
                var chosen: [Presentation] = []
                for name in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    guard let presentation = Presentation(rawValue: name) else {
                        throw arguments.usageError("'--presentations': unknown presentation '\(name)' (known: \(Presentation.allCases.map(\.rawValue).joined(separator: ", ")), or all)")
                    }
                    chosen.append(presentation)
                }
                options.presentations = chosen
            }
        }
        return options
    }

    /// `--template`'s design, read and checked against its schema.
    static func template(_ arguments: Arguments) throws -> LayoutTemplate? {
        guard let file = arguments.value("template") else { return nil }
        do { return try LayoutTemplate.load(file: file) } catch { throw CLIError(message: "'--template' \(error)") }
    }

    /// `--type` with `--attributes`, or `--start`'s type and attributes; nil when neither is given.
    /// Without `--type`, a template's type is the type.
    static func typeAndAttributes(_ arguments: Arguments, template: LayoutTemplate? = nil) throws -> (type: String?, attributes: JSONValue?) {
        let type = arguments.value("type") ?? template?.attributesType, attributesText = arguments.value("attributes"), start = arguments.value("start")
        if start != nil && (arguments.value("type") != nil || attributesText != nil) {
            throw arguments.usageError("'--start' gives the type and attributes: use it without '--type' and '--attributes'")
        }
        if let start {
            let (bytes, _) = try UICLI.readArgument(start, what: "start body")
            guard let body = try? JSONValue.parse(bytes), let aps = body["aps"]?.objectValue else {
                throw CLIError(message: "'--start' \(start): not an APNs body (no \"aps\" object)")
            }
            guard let startType = aps["attributes-type"]?.stringValue, let attributes = aps["attributes"], attributes.objectValue != nil else {
                throw CLIError(message: "'--start' \(start): a push-to-start body names aps.attributes-type and carries aps.attributes; this one does not")
            }
            return (startType, attributes)
        }
        if attributesText != nil && type == nil { throw arguments.usageError("'--attributes' needs '--type' (the attributes' Swift type, e.g. FlightAttributes)") }
        guard let attributesText else { return (type, nil) }
        let (bytes, _) = try UICLI.readArgument(attributesText, what: "attributes")
        guard let attributes = try? JSONValue.parse(bytes), attributes.objectValue != nil else {
            throw CLIError(message: "'--attributes' is not a JSON object (give the activity's attributes, inline or in a file)")
        }
        return (type, attributes)
    }

    /// `--states`: every document's Lock Screen and compact Island in one page and one PNG.
    static func strip(_ documents: [PreviewDocument], inputs: [String], out: URL) async throws -> Int32 {
        let names = inputs.enumerated().map { index, input in
            input == "-" || input.hasPrefix("{") || !(input.contains(".") || FileManager.default.fileExists(atPath: input))
                ? "payload \(index + 1)" : URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
        }
        let strip = PreviewStrip(Array(zip(names, documents)).map { (name: $0.0, document: $0.1) }, title: "\(documents.count) states in order")
        try PreviewCapture.prepare(out)
        let page = out.appendingPathComponent("strip.html")
        try PreviewCapture.write(strip.html, to: page)
        Console.out("wrote \(page.path)")
        for warning in strip.warnings { Console.err("warning: \(warning)") }
        let capture = try await PreviewCapture.start()
        try await capture.browser.navigate(to: page.absoluteString)
        let png = try await capture.browser.screenshot(of: try await capture.browser.element(PreviewStrip.selector))
        let file = out.appendingPathComponent("strip.png")
        try PreviewCapture.write(Data(png), to: file)
        let size = try PNGImage.size(png: png)
        Console.out("wrote \(file.path) (\(size.width)x\(size.height) px: \(documents.count) states, each its Lock Screen and compact Island)")
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
        try read(argument, options: options, type: nil, attributes: nil).document
    }

    /// The document of one input, and the attributes type and attributes its APNs body carries
    /// (or was given), for the bodies after it in a sequence.
    static func read(_ argument: String, options: PreviewOptions, type: String?, attributes: JSONValue?) throws
        -> (document: PreviewDocument, type: String?, attributes: JSONValue?)
    {
        let (bytes, fromFile) = try UICLI.readArgument(argument, what: "payload")
        let source = fromFile ? argument + ": " : ""
        if bytes.first == UInt8(ascii: "{"), let value = try? JSONValue.parse(bytes), value["aps"] != nil {
            do {
                let document = try ActivityPreview.document(apnsBody: bytes, attributesType: type, attributes: attributes, options: options)
                return (document, value["aps"]?["attributes-type"]?.stringValue ?? type, value["aps"]?["attributes"] ?? attributes)
            } catch {
                throw CLIError(message: source + "\(error)")
            }
        }
        // A layout or a uiJsonData string: the bytes go to `ui preview`'s reader as the inline argument.
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CLIError(message: source + "not valid UTF-8 (give an APNs body, a JSON-form layout or a uiJsonData string)")
        }
        do {
            let (layout, issues) = try UICLI.anyLayout(text)
            return (ActivityPreview.document(layout: layout, warnings: issues.map(\.description), options: options), type, attributes)
        } catch let error as CLIError {
            throw CLIError(message: source + error.message, exitCode: error.exitCode)
        }
    }
}

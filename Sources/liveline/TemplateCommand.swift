import Foundation
import LivelineCommandLine
import LivelineCore
import LivelinePreview
import LivelineToolSupport

/// `liveline template swiftui FILE`: a design template's SwiftUI views, for the widget extension.
enum TemplateSwiftUICommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline template swiftui", abstract: "Write a design template's SwiftUI views (the widget draws what the preview draws).",
        usage: "<template.json> [--import <module>[,<module>]] [--out <file.swift>] [--check]",
        options: [
            .init(name: "import", valueName: "modules", help: "Modules the views import beside SwiftUI, WidgetKit and ActivityKit (the attributes type's), comma-separated."),
            .init(name: "out", valueName: "file", help: "Where the Swift goes (default: standard output)."),
            .init(name: "check", help: "With --out: write nothing; exit 1 if the file differs from what the template gives (for CI)."),
        ],
        positionals: 1...1,
        discussion: """
            The argument is a template file (docs/previews.md, "Design templates"): a JSON-form layout whose
            values are bound to the attributes and content state, which 'liveline preview --template FILE'
            draws. The output declares <Type>Design: a view per region (lockScreen, expandedLeading,
            expandedTrailing, expandedCenter, expandedBottom, compactLeading, compactTrailing, minimal),
            lockScreenBackgroundTint and keylineTint, for an ActivityViewContext. A Button with an id is
            drawn by <Type>Button(id:context:label:), which the widget declares (it runs the intent).
            Example: Examples/FlightTracker/FlightActivity.template.json gives FlightActivityViews.swift.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let file = arguments.positionals[0]
        let template: LayoutTemplate
        do { template = try LayoutTemplate.load(file: file) } catch { throw CLIError(message: "\(error)") }
        let imports = (arguments.value("import") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let swift: String
        do { swift = try SwiftUIGenerator.swift(template, imports: imports, source: file) } catch { throw CLIError(message: "\(error)") }
        guard let out = arguments.value("out") else {
            if arguments.flag("check") { throw arguments.usageError("'--check' compares with the file given by '--out'") }
            Console.out(swift)
            return 0
        }
        if arguments.flag("check") {
            let current = try? String(contentsOfFile: out, encoding: .utf8)
            guard current == swift else {
                Console.err("\(out) is not what \(file) gives: regenerate it (liveline template swiftui \(file) --out \(out))")
                return 1
            }
            Console.out("\(out) is up to date with \(file)")
            return 0
        }
        do { try swift.write(toFile: out, atomically: true, encoding: .utf8) } catch {
            throw CLIError(message: "cannot write \(out): \(error.localizedDescription)")
        }
        Console.out("wrote \(out) (\(template.attributesType)Design from \(file))")
        return 0
    }
}

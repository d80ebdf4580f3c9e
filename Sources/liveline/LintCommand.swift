import Foundation
import LivelineCommandLine
import LivelineCore

/// `liveline lint FILE`: the errors and silent failures in a Live Activity push body.
enum LintCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline lint", abstract: "Check a push body for errors and silent failures.",
        usage: "FILE [--schema FILE|NAME] [options]",
        options: [
            .init(name: "schema", valueName: "FILE|NAME", help: "The ContentState/attributes schema (FlightAttributes is built in)."),
            .init(name: "previous-timestamp", valueName: "DATE", help: "The last timestamp sent to this activity; the body's must be newer."),
            .init(name: "now", valueName: "DATE", help: "What time it is, for stale dates (default: now)."),
            .init(name: "json", valueName: nil, help: "Print the findings as JSON."),
        ],
        positionals: 1...1,
        discussion: """
        FILE is a request body ('-' reads standard input). Exit status: 0 when there is no error
        (warnings allowed), 1 when there are errors.
        DATE is \(DateArgument.formats).

        A schema file maps each field to a type: string, int, double, bool, date, data, url,
        dateRange, any; T? is optional, [T] an array; {"enum": [...]} lists string cases:
          {"name": "FlightAttributes",
           "attributes": {"flightNumber": "string", "departure": "date"},
           "contentState": {"status": {"enum": ["scheduled", "delayed"]}, "gate": "string?"}}
        A Voltra Dynamic Live Activity's props (JSON types only; undeclared props are errors):
          {"voltraDynamic": "order_finished", "props": {"orderNumber": "string", "etaMinutes": "int?"}}
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let file = arguments.positionals[0]
        let bytes = try readUserFile(file, what: "body file")
        let body: JSONValue
        do { body = try JSONValue.parse(bytes) } catch { throw CLIError(message: "'\(file)': \(error)") }
        let now = try arguments.value("now").map { t throws(UsageError) in try DateArgument.parse(t, option: "now", now: Date(), helpPath: spec.path) } ?? Date()
        let previous = try arguments.value("previous-timestamp").map { t throws(UsageError) in
            try DateArgument.parse(t, option: "previous-timestamp", now: now, helpPath: spec.path)
        }
        let linter = Linter(schemas: Array(PayloadBuilder.builtInSchemas.values), schema: try PayloadBuilder.schema(arguments), now: now, previousTimestamp: previous)
        let findings = linter.lint(body: body) + PayloadBuilder.voltraFindings(body, schema: try PayloadBuilder.schema(arguments))
        let errors = findings.filter { $0.severity == .error }.count
        if arguments.flag("json") {
            let list = JSONValue.array(findings.map {
                ["severity": .string($0.severity.rawValue), "code": .string($0.code.rawValue), "path": .string($0.path), "message": .string($0.message)]
            })
            Console.out(list.prettyPrinted())
        } else {
            for finding in findings { Console.out("\(finding)") }
            let warnings = findings.count - errors
            Console.out("\(file): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), \(body.serializedSize) of 4096 bytes")
        }
        return errors > 0 ? 1 : 0
    }
}

import Foundation
import LivelineCommandLine
import LivelineCore
import LivelineUI

/// `liveline ui decode STRING|FILE`: a `uiJsonData` string back to the JSON-form layout, with lint.
enum UIDecodeCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline ui decode", abstract: "Decode a uiJsonData string to the JSON-form layout and lint it.",
        usage: "<string|file>",
        options: [.init(name: "wire", help: "Print the payload v1 JSON as the device receives it instead of the JSON form.")],
        positionals: 1...1,
        discussion: """
            The argument is the base64 string itself, or a file (or '-' for stdin) holding the string, a
            payload v1 JSON, or a whole APNs body with aps.content-state.uiJsonData. Lint findings (props
            of the wrong JSON type, unknown components, bad references, a compression ratio over 8:1) go
            to stderr as warnings; the device renders what is printed.
            """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let decoded: DecodedUI
        switch try UICLI.input(arguments.positionals[0], what: "uiJsonData", notJSON: "uiJsonData does not hold JSON: ") {
        case (.payload(let payload), _): decoded = payload
        case (.json(_, let bytes), let source):
            decoded = try UICLI.decoding(source) { () throws(UIError) in try VoltraDecoder.lint(json: bytes) }
        }
        if arguments.flag("wire") {
            Console.out((try? JSONValue.parse(decoded.json).prettyPrinted()) ?? String(decoding: decoded.json, as: UTF8.self))
        } else {
            Console.out(LayoutForm.json(decoded.layout).prettyPrinted())
        }
        for issue in decoded.issues { Console.err("warning: \(issue)") }
        return 0
    }
}

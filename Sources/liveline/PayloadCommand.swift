import Foundation
import LivelineCommandLine
import LivelineCore

/// `liveline payload start|update|end`: builds, validates and prints a Live Activity push body.
enum PayloadCommand: LivelineCommand {
    static let spec = CommandSpec(
        path: "liveline payload", abstract: "Build and validate a Live Activity push body.",
        usage: "start|update|end [options]",
        options: PayloadBuilder.options + [
            .init(name: "headers", valueName: nil, help: "Also print the request headers (needs --bundle-id or --topic)."),
            .init(name: "pretty", valueName: nil, help: "Indent the JSON."),
            .init(name: "apns-file", valueName: "BUNDLE_ID", help: "Write an Xcode Simulator .apns file for this app instead."),
            .init(name: "output", valueName: "FILE", help: "With --apns-file: where to write (default <event>.apns)."),
        ],
        positionals: 1...1,
        discussion: """
        \(PayloadBuilder.dateHelp)
        The body is validated (required fields, sizes, dates) and checked against the schema of its
        attributes type (FlightAttributes is built in; --schema FILE for others) before it is printed.

        EXAMPLES:
          liveline payload start --example flight --alert-title "LL 1234" --alert-body "Boarding at 14:20"
          liveline payload update --content-state state.json --stale-date +30m --headers --bundle-id com.example.flights
          liveline payload end --example flight --dismissal immediate
        """)

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let word = arguments.positionals[0]
        guard let event = LiveActivityPush.Event(rawValue: word) else {
            throw arguments.usageError("unknown event '\(word)'; expected start, update or end")
        }
        if arguments.flag("headers"), arguments.value("bundle-id") == nil, arguments.value("topic") == nil {
            throw arguments.usageError("'--headers' needs '--bundle-id' (or '--topic') to print apns-topic")
        }
        let now = Date()
        let built = try PayloadBuilder.build(arguments, event: event, now: now)
        let (bytes, warnings) = try PayloadBuilder.check(built, now: now)
        for warning in warnings { Console.err("\(warning)") }
        let json = arguments.flag("pretty") ? built.request.body.prettyPrinted() : String(decoding: bytes, as: UTF8.self)

        if let bundleID = arguments.value("apns-file") {
            var file = built.request.body.objectValue ?? [:]
            file["Simulator Target Bundle"] = .string(bundleID)
            let path = arguments.value("output") ?? "\(event.rawValue).apns"
            guard FileManager.default.createFile(atPath: path, contents: Data((JSONValue.object(file).prettyPrinted() + "\n").utf8)) else {
                throw CLIError(message: "cannot write '\(path)'")
            }
            Console.out("wrote \(path) (\(bytes.count) of 4096 bytes); send it with: xcrun simctl push booted \(bundleID) \(path)")
            return 0
        }
        if arguments.flag("headers") {
            var lines = [":method: POST", ":path: /3/device/<token>"]
            lines += built.request.headers.map { "\($0.name): \($0.value)" }
            Console.out(lines.joined(separator: "\n") + "\n\n")
        }
        Console.out(json)
        Console.err("ok: \(event.rawValue) body is \(bytes.count) of 4096 bytes (\(bytes.count * 100 / 4096)%)")
        return 0
    }
}
